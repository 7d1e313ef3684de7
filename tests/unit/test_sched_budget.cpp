#include "sched/budget.h"
#include "scratch.h"
#include "util/file.h"

#include <chrono>
#include <csignal>
#include <dirent.h>
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc;

namespace {

constexpr uint64_t kMiB = 1ull << 20;

/// A forked child that reserves `bytes` under `budget` in `dir`, writes one
/// byte to `ready` once it holds them, and holds them until killed or
/// `hold_ms` passed. Returns its pid.
pid_t holder(const std::string& dir, uint64_t bytes, uint64_t budget, int ready, int hold_ms) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        {
            auto r = sched::reserve(dir, bytes, budget);
            if (!r) ::_exit(2);
            (void)!::write(ready, "x", 1);
            ::usleep(static_cast<useconds_t>(hold_ms) * 1000);
        } // released here: _exit runs no destructors
        ::_exit(0);
    }
    return pid;
}

void wait_ready(int fd) {
    char c = 0;
    REQUIRE(::read(fd, &c, 1) == 1);
}

int64_t ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 t)
        .count();
}

size_t files_in(const std::string& dir) {
    size_t n = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d))
            if (e->d_name[0] != '.') ++n;
        ::closedir(d);
    }
    return n;
}

} // namespace

TEST_CASE("may_start: fits beside what runs; alone always; the oldest waiter first") {
    sched::Holders none;
    CHECK(sched::may_start(none, 10, 5)); // larger than the budget, alone: runs
    sched::Holders running{4, 1, 0, 0, false};
    CHECK(sched::may_start(running, 6, 10));
    CHECK_FALSE(sched::may_start(running, 7, 10));
    sched::Holders waiting{4, 1, 5, 1, true}; // an older step waits for 5
    CHECK(sched::may_start(waiting, 1, 10));
    CHECK_FALSE(sched::may_start(waiting, 2, 10));     // would keep the older one waiting
    sched::Holders big_waiting{0, 0, 20, 1, true};     // nothing runs; an older step of 20 waits
    CHECK_FALSE(sched::may_start(big_waiting, 1, 10)); // it goes first
}

TEST_CASE("reserve: a step that does not fit waits for the holder; one that fits does not") {
    test::ScratchDir dir;
    const std::string budget = dir.file("budget");
    int p[2];
    REQUIRE(::pipe(p) == 0);
    pid_t pid = holder(budget, 600 * kMiB, 1000 * kMiB, p[1], 300);
    wait_ready(p[0]);
    auto start = std::chrono::steady_clock::now();
    {
        auto fits = sched::reserve(budget, 400 * kMiB, 1000 * kMiB);
        REQUIRE(fits.ok());
        CHECK(ms_since(start) < 100);
        CHECK(fits->waited_ms() < 100);
    }
    auto waits = sched::reserve(budget, 500 * kMiB, 1000 * kMiB);
    REQUIRE(waits.ok());
    CHECK(ms_since(start) >= 200); // the holder let go after 300 ms
    CHECK(waits->waited_ms() >= 200);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    ::close(p[0]);
    ::close(p[1]);
}

TEST_CASE("reserve: a step larger than the budget runs alone") {
    test::ScratchDir dir;
    const std::string budget = dir.file("budget");
    auto alone = sched::reserve(budget, 5000 * kMiB, 1000 * kMiB);
    REQUIRE(alone.ok());
    CHECK(alone->waited_ms() < 100);
    int p[2];
    REQUIRE(::pipe(p) == 0);
    auto start = std::chrono::steady_clock::now();
    pid_t pid = holder(budget, 1 * kMiB, 1000 * kMiB, p[1], 0);
    ::usleep(150 * 1000);
    int status = 0;
    CHECK(::waitpid(pid, &status, WNOHANG) == 0); // waits while the large one runs
    alone = sched::Reservation();
    wait_ready(p[0]);
    CHECK(ms_since(start) >= 150);
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WEXITSTATUS(status) == 0);
    ::close(p[0]);
    ::close(p[1]);
    CHECK(files_in(budget) == 1); // the folder's lock alone: every reservation removed
}

TEST_CASE("reserve: a holder killed by SIGKILL holds nothing; its file goes") {
    test::ScratchDir dir;
    const std::string budget = dir.file("budget");
    int p[2];
    REQUIRE(::pipe(p) == 0);
    pid_t pid = holder(budget, 900 * kMiB, 1000 * kMiB, p[1], 60000);
    wait_ready(p[0]);
    CHECK(files_in(budget) == 2);
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    auto start = std::chrono::steady_clock::now();
    auto r = sched::reserve(budget, 900 * kMiB, 1000 * kMiB);
    REQUIRE(r.ok());
    CHECK(ms_since(start) < 100);
    CHECK(files_in(budget) == 2); // ours and the lock: the dead one's was removed
    ::close(p[0]);
    ::close(p[1]);
}

TEST_CASE("reserve: an error names the folder it cannot make") {
    test::ScratchDir dir;
    REQUIRE(util::write_file_atomic(dir.file("file"), "").ok());
    auto r = sched::reserve(dir.file("file/budget"), kMiB, 10 * kMiB);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().text().find(dir.file("file")) != std::string::npos);
}
