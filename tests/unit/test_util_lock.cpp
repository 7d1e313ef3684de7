#include "scratch.h"
#include "util/lock.h"

#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc;

namespace {

/// Exit status of a forked child that tries for `path`'s lock once: 0 granted,
/// 1 refused (held elsewhere), 2 an error.
int child_try_lock(const std::string& path) {
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        auto lock = util::FileLock::open(path);
        if (!lock) ::_exit(2);
        auto had = lock->try_lock();
        ::_exit(!had ? 2 : *had ? 0 : 1);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    return WEXITSTATUS(status);
}

} // namespace

TEST_CASE("FileLock: a second holder is refused while the first holds it, granted after") {
    test::ScratchDir dir;
    const std::string path = dir.file("x.lock");
    auto first = util::FileLock::open(path);
    REQUIRE(first.ok());
    struct stat st {};
    CHECK(::stat(path.c_str(), &st) == 0); // created
    CHECK_FALSE(first->held());
    CHECK(child_try_lock(path) == 0); // nobody holds it yet
    REQUIRE(first->lock().ok());
    CHECK(first->held());
    CHECK(child_try_lock(path) == 1);
    // Moved, the lock stays held.
    util::FileLock moved = std::move(*first);
    CHECK(moved.held());
    CHECK(child_try_lock(path) == 1);
    moved.unlock(); // the file stays open, to lock again
    CHECK_FALSE(moved.held());
    CHECK(child_try_lock(path) == 0);
    REQUIRE(moved.lock().ok());
    CHECK(child_try_lock(path) == 1);
    moved.release();
    CHECK_FALSE(moved.held());
    CHECK(moved.fd() == -1);
    CHECK(child_try_lock(path) == 0);
}

TEST_CASE("FileLock: two opens in one process exclude each other; destruction lets go") {
    test::ScratchDir dir;
    const std::string path = dir.file("x.lock");
    {
        auto a = util::FileLock::open(path);
        REQUIRE(a.ok());
        REQUIRE(a->lock().ok());
        auto b = util::FileLock::open(path);
        REQUIRE(b.ok());
        auto had = b->try_lock();
        REQUIRE(had.ok());
        CHECK_FALSE(*had);
        auto within = b->lock_within(std::chrono::milliseconds(30));
        REQUIRE(within.ok());
        CHECK_FALSE(*within);
    }
    CHECK(child_try_lock(path) == 0);
}

TEST_CASE("FileLock: the lock of a holder killed by SIGKILL is free") {
    test::ScratchDir dir;
    const std::string path = dir.file("x.lock");
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        auto lock = util::FileLock::open(path);
        if (!lock || !lock->lock()) ::_exit(2);
        (void)!::write(ready[1], "x", 1);
        for (;;)
            ::pause();
    }
    ::close(ready[1]);
    char c = 0;
    REQUIRE(::read(ready[0], &c, 1) == 1);
    ::close(ready[0]);
    CHECK(child_try_lock(path) == 1);
    ::kill(pid, SIGKILL);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFSIGNALED(status));
    CHECK(child_try_lock(path) == 0);
}

TEST_CASE("FileLock: lock() waits for the holder to let go") {
    test::ScratchDir dir;
    const std::string path = dir.file("x.lock");
    auto held = util::FileLock::open(path);
    REQUIRE(held.ok());
    REQUIRE(held->lock().ok());
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The copy of the held descriptor fork gave us holds the lock too (a
        // lock belongs to the open file description): it goes first.
        ::close(held->fd());
        auto lock = util::FileLock::open(path);
        ::_exit(lock && lock->lock() && lock->held() ? 0 : 2);
    }
    ::usleep(150 * 1000);
    int status = 0;
    CHECK(::waitpid(pid, &status, WNOHANG) == 0); // still waiting
    held->release();
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(std::chrono::steady_clock::now() - start >= std::chrono::milliseconds(150));
}

TEST_CASE("FileLock: open refuses what is not a regular file, and says where") {
    test::ScratchDir dir;
    const std::string fifo = dir.file("fifo");
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    auto lock = util::FileLock::open(fifo); // O_NONBLOCK: does not wait for a writer
    REQUIRE_FALSE(lock.ok());
    CHECK(lock.error().where == fifo);
    CHECK(lock.error().message == "lock file is not a regular file");
    auto missing = util::FileLock::open(dir.file("no/such/x.lock"));
    REQUIRE_FALSE(missing.ok());
    CHECK(missing.error().message.starts_with("cannot open lock file: "));
}

TEST_CASE("open_fd: close-on-exec always") {
    test::ScratchDir dir;
    util::Fd fd = util::open_fd(dir.file("f"), O_WRONLY | O_CREAT);
    REQUIRE(fd.valid());
    CHECK((::fcntl(fd.get(), F_GETFD) & FD_CLOEXEC) != 0);
    CHECK_FALSE(util::open_fd(dir.file("missing"), O_RDONLY).valid());
}
