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

/// A forked child that reserves `bytes` under `budget` in `dir` (saying it
/// expects to run `expected_ms`; 0: unknown), writes one byte to `ready` once
/// it holds them, and holds them until killed or `hold_ms` passed. Returns
/// its pid.
pid_t holder(const std::string& dir, uint64_t bytes, uint64_t budget, int ready, int hold_ms,
             int64_t expected_ms = 0) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        {
            auto r = sched::reserve(dir, {bytes, expected_ms * 1000000}, budget);
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
    using sched::Ask;
    sched::Holders none;
    CHECK(sched::may_start(none, Ask{10}, 5, 0)); // larger than the budget, alone: runs
    sched::Holders running{{{4, 0}}, 0, 0, false};
    CHECK(sched::may_start(running, Ask{6}, 10, 0));
    CHECK_FALSE(sched::may_start(running, Ask{7}, 10, 0));
    sched::Holders waiting{{{4, 0}}, 5, 1, true}; // an older step waits for 5
    CHECK(sched::may_start(waiting, Ask{1}, 10, 0));
    CHECK_FALSE(sched::may_start(waiting, Ask{2}, 10, 0)); // would keep the older one waiting
    // The running step's end is unknown: no time is short enough to pass.
    CHECK_FALSE(sched::may_start(waiting, Ask{2, 1}, 10, 0));
    sched::Holders big_waiting{{}, 20, 1, true}; // nothing runs; an older step of 20 waits
    CHECK_FALSE(sched::may_start(big_waiting, Ask{1, 1}, 10, 0)); // it goes first
}

TEST_CASE("may_start: a step passes the waiting head when it does not delay it (backfill)") {
    using sched::Ask;
    // 6 runs until t=100; the head needs 8 of 10: it starts at 100, leaving 2.
    sched::Holders h{{{6, 100}}, 8, 1, true};
    const sched::Shadow s = sched::shadow_of(h, 10, 0);
    CHECK(s.time == 100);
    CHECK(s.extra == 2);
    CHECK(sched::may_start(h, Ask{4, 50}, 10, 0));        // fits now, ends by 100
    CHECK(sched::may_start(h, Ask{4, 100}, 10, 0));       // ends just in time
    CHECK_FALSE(sched::may_start(h, Ask{4, 101}, 10, 0)); // would delay the head
    CHECK_FALSE(sched::may_start(h, Ask{4, 0}, 10, 0));   // unknown time
    CHECK(sched::may_start(h, Ask{2, 0}, 10, 0));         // fits beside the head at 100
    CHECK_FALSE(sched::may_start(h, Ask{5, 10}, 10, 0));  // does not fit now
    CHECK_FALSE(sched::may_start(h, Ask{4, 50}, 10, 60)); // late: ends at 110

    // The head fits only once both end: its shadow is the later end.
    sched::Holders two{{{5, 200}, {3, 100}}, 6, 1, true};
    CHECK(sched::shadow_of(two, 10, 0).time == 200);
    CHECK(sched::shadow_of(two, 10, 0).extra == 4);
    CHECK(sched::may_start(two, Ask{2, 150}, 10, 0));
    CHECK(sched::may_start(two, Ask{2, 0}, 10, 0)); // 2 <= the 4 left beside the head

    // A step of unknown end that must end first: no shadow, the plain rule.
    sched::Holders unknown{{{5, 0}, {3, 100}}, 6, 1, true};
    CHECK(sched::shadow_of(unknown, 10, 0).time == INT64_MAX);
    CHECK_FALSE(sched::may_start(unknown, Ask{2, 10}, 10, 0));
    // ... and one that need not: the known end suffices.
    sched::Holders enough{{{3, 0}, {5, 100}}, 6, 1, true};
    CHECK(sched::shadow_of(enough, 10, 0).time == 100);
    CHECK(sched::shadow_of(enough, 10, 0).extra == 1);
    CHECK(sched::may_start(enough, Ask{2, 90}, 10, 0));

    // A step past its expected end is taken to end now: nothing ends before.
    sched::Holders late{{{6, 50}}, 8, 1, true};
    CHECK(sched::shadow_of(late, 10, 100).time == 100);
    CHECK_FALSE(sched::may_start(late, Ask{4, 10}, 10, 100));

    // A head larger than the budget runs alone: nothing may run beside it.
    sched::Holders huge{{{6, 100}}, 20, 1, true};
    CHECK(sched::shadow_of(huge, 10, 0).time == 100);
    CHECK(sched::shadow_of(huge, 10, 0).extra == 0);
    CHECK(sched::may_start(huge, Ask{4, 100}, 10, 0));
    CHECK_FALSE(sched::may_start(huge, Ask{1, 0}, 10, 0));
}

TEST_CASE("reserve: a short step passes a waiting large one; a long one does not") {
    test::ScratchDir dir;
    const std::string budget = dir.file("budget");
    int p[2], q[2];
    REQUIRE(::pipe(p) == 0);
    REQUIRE(::pipe(q) == 0);
    // 600 of 1000 held for 600 ms, expected to take 600 ms.
    pid_t running = holder(budget, 600 * kMiB, 1000 * kMiB, p[1], 600, 600);
    wait_ready(p[0]);
    // The head: 700 waits for it.
    pid_t head = holder(budget, 700 * kMiB, 1000 * kMiB, q[1], 0, 10);
    ::usleep(50 * 1000);
    int status = 0;
    REQUIRE(::waitpid(head, &status, WNOHANG) == 0);
    auto start = std::chrono::steady_clock::now();
    {
        // 350 fits now (not beside the head: 300 is left then), and ends (100 ms)
        // before the head could start.
        auto short_one = sched::reserve(budget, {350 * kMiB, 100 * 1000000}, 1000 * kMiB);
        REQUIRE(short_one.ok());
        CHECK(ms_since(start) < 100);
    }
    // 350 for 5 s would hold memory the head needs when the holder ends.
    auto long_one = sched::reserve(budget, {350 * kMiB, 5000 * 1000000LL}, 1000 * kMiB);
    REQUIRE(long_one.ok());
    CHECK(ms_since(start) >= 400); // after the holder (600 ms) and the head
    wait_ready(q[0]);              // the head started before it
    long_one = sched::Reservation();
    for (pid_t pid : {running, head}) {
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WEXITSTATUS(status) == 0);
    }
    for (int fd : {p[0], p[1], q[0], q[1]})
        ::close(fd);
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
        auto fits = sched::reserve(budget, {400 * kMiB}, 1000 * kMiB);
        REQUIRE(fits.ok());
        CHECK(ms_since(start) < 100);
        CHECK(fits->waited_ms() < 100);
    }
    auto waits = sched::reserve(budget, {500 * kMiB}, 1000 * kMiB);
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
    auto alone = sched::reserve(budget, {5000 * kMiB}, 1000 * kMiB);
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
    auto r = sched::reserve(budget, {900 * kMiB}, 1000 * kMiB);
    REQUIRE(r.ok());
    CHECK(ms_since(start) < 100);
    CHECK(files_in(budget) == 2); // ours and the lock: the dead one's was removed
    ::close(p[0]);
    ::close(p[1]);
}

TEST_CASE("reserve: an error names the folder it cannot make") {
    test::ScratchDir dir;
    REQUIRE(util::write_file_atomic(dir.file("file"), "").ok());
    auto r = sched::reserve(dir.file("file/budget"), {kMiB}, 10 * kMiB);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().text().find(dir.file("file")) != std::string::npos);
}

TEST_CASE("reserve: a link in the budget folder's place is refused; no file it leads to goes") {
    test::ScratchDir dir;
    const std::string outside = dir.file("outside");
    REQUIRE(util::make_dirs(outside));
    REQUIRE(util::write_file_atomic(outside + "/notes.txt", "keep\n").ok());
    REQUIRE(util::write_file_atomic(outside + "/123.abcdef", "").ok()); // a reservation's name
    REQUIRE(util::make_dirs(dir.file(".phc-ninja")));
    REQUIRE(::symlink("../outside", dir.file(".phc-ninja/budget").c_str()) == 0);
    auto r = sched::reserve(dir.file(".phc-ninja/budget"), {kMiB}, 10 * kMiB);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().text().find(dir.file(".phc-ninja/budget")) != std::string::npos);
    CHECK(util::file_exists(outside + "/notes.txt"));
    CHECK(util::file_exists(outside + "/123.abcdef"));
}

TEST_CASE("reserve: only files named as reservations are ever removed from the folder") {
    test::ScratchDir dir;
    const std::string budget = dir.file("budget");
    REQUIRE(util::make_dirs(budget));
    REQUIRE(util::write_file_atomic(budget + "/notes.txt", "keep\n").ok());
    REQUIRE(util::write_file_atomic(budget + "/42.stale1", "").ok()); // a dead step's
    {
        auto r = sched::reserve(budget, {kMiB}, 10 * kMiB);
        REQUIRE(r.ok());
    }
    CHECK(util::file_exists(budget + "/notes.txt"));
    CHECK_FALSE(util::file_exists(budget + "/42.stale1"));
}
