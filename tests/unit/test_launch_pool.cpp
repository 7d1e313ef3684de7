#include "launch/jobserver.h"
#include "launch/pool.h"
#include "scratch.h"
#include "util/cgroup.h"
#include "util/file.h"

#include <chrono>
#include <doctest/doctest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc;
using namespace phc::launch;
using namespace std::chrono_literals;

namespace {

/// A launcher's view of the pool in `dir` (several in one process: flock
/// locks belong to open files, so they exclude each other as processes do).
std::unique_ptr<CpuPool> open_pool(const std::string& dir, int size) {
    auto pool = CpuPool::open(dir, size);
    REQUIRE(pool.ok());
    return std::move(*pool);
}

/// How long `f` took, in ms.
template <class F> long long ms_of(F&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start)
        .count();
}

} // namespace

TEST_CASE("cpu pool: own slots count, extras only when free, a late launcher waits for extras") {
    test::ScratchDir scratch;
    const std::string dir = scratch.file("pool");
    auto a = open_pool(dir, 3), b = open_pool(dir, 3), c = open_pool(dir, 3);
    struct stat st {};
    REQUIRE(::stat(dir.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);

    REQUIRE(a->join(1s).ok());
    CHECK(a->counted());
    auto extra = a->try_take(); // a runs two jobs
    REQUIRE(extra);
    REQUIRE(b->join(1s).ok()); // the third slot
    CHECK(b->counted());
    CHECK_FALSE(b->try_take()); // full
    // c finds no free slot while a holds an extra: it waits, here up to 150 ms.
    CHECK(ms_of([&] { REQUIRE(c->join(150ms).ok()); }) >= 140);
    CHECK_FALSE(c->counted());
    // The extra comes back: a launcher joining now counts.
    a->give_back(*extra);
    auto d = open_pool(dir, 3);
    REQUIRE(d->join(1s).ok());
    CHECK(d->counted());
    // Full, and nobody holds an extra: a launcher goes on at once, uncounted
    // (it runs one job, as ninja asked: never more than max(-jN, pool)).
    auto e = open_pool(dir, 3);
    CHECK(ms_of([&] { REQUIRE(e->join(10s).ok()); }) < 1000);
    CHECK_FALSE(e->counted());
    // A launcher that ends gives its slot back with it.
    b.reset();
    auto f = open_pool(dir, 3);
    REQUIRE(f->join(1s).ok());
    CHECK(f->counted());
}

TEST_CASE("cpu pool: a waiting join ends when an extra comes back, and on a signal") {
    test::ScratchDir scratch;
    const std::string dir = scratch.file("pool");
    auto a = open_pool(dir, 2), b = open_pool(dir, 2);
    REQUIRE(a->join(1s).ok());
    auto extra = a->try_take();
    REQUIRE(extra);
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    REQUIRE(::write(pipe_fds[1], "x", 1) == 1); // a signal is pending
    CHECK(ms_of([&] { REQUIRE(b->join(10s, pipe_fds[0]).ok()); }) < 1000);
    CHECK_FALSE(b->counted());
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
}

TEST_CASE("cpu pool: a SIGKILLed holder's slots come back") {
    test::ScratchDir scratch;
    const std::string dir = scratch.file("pool");
    int ready[2];
    REQUIRE(::pipe(ready) == 0);
    pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        auto pool = CpuPool::open(dir, 2);
        if (!pool || !(*pool)->join(1s) || !(*pool)->counted() || !(*pool)->try_take()) _exit(1);
        (void)::write(ready[1], "r", 1);
        ::pause();
        _exit(0);
    }
    char r = 0;
    REQUIRE(::read(ready[0], &r, 1) == 1);
    auto mine = open_pool(dir, 2);
    CHECK_FALSE(mine->try_take()); // both slots are the child's
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    REQUIRE(mine->join(1s).ok());
    CHECK(mine->counted());
    CHECK(mine->try_take());
    ::close(ready[0]);
    ::close(ready[1]);
}

TEST_CASE("cpu pool: its folder must be the user's own") {
    test::ScratchDir scratch;
    REQUIRE(::mkdir(scratch.file("real").c_str(), 0700) == 0);
    REQUIRE(::symlink("real", scratch.file("link").c_str()) == 0);
    auto link = CpuPool::open(scratch.file("link"), 2);
    REQUIRE_FALSE(link.ok());
    CHECK(link.error().text() == scratch.file("link") + ": is a symbolic link, not a folder");
    REQUIRE(::mkdir(scratch.file("open").c_str(), 0700) == 0);
    REQUIRE(::chmod(scratch.file("open").c_str(), 0777) == 0);
    auto open = CpuPool::open(scratch.file("open"), 2);
    REQUIRE_FALSE(open.ok());
    CHECK(open.error().text() == scratch.file("open") + ": is writable by other users");
    REQUIRE(util::write_file_atomic(scratch.file("file"), "x").ok());
    CHECK_FALSE(CpuPool::open(scratch.file("file"), 2).ok());
    CHECK(CpuPool::open(scratch.file("new/deeper"), 2).ok()); // parents made too
}

TEST_CASE("cpu pool: tokens through a Jobserver, and its size from PHC_JOBS") {
    test::ScratchDir scratch;
    auto js = Jobserver::shared(open_pool(scratch.file("pool"), 2));
    CHECK(js->describe() == "the CPU pool of 2 in " + scratch.file("pool"));
    CHECK(js->retry_ms() > 0);
    REQUIRE(js->pool()->join(1s).ok());
    auto t = js->try_acquire();
    REQUIRE(t);
    CHECK_FALSE(js->try_acquire());
    t->release();
    CHECK(js->try_acquire());

    ::setenv("PHC_JOBS", "6", 1);
    CHECK(*pool_size() == 6);
    for (const char* bad : {"abc", "0", "-2", "3x", ""}) {
        ::setenv("PHC_JOBS", bad, 1);
        auto size = pool_size();
        REQUIRE_FALSE(size.ok());
        CHECK(size.error().text() ==
              std::string("PHC_JOBS='") + bad + "' is not a positive number");
    }
    ::unsetenv("PHC_JOBS");
    CHECK(*pool_size() >= 1);
    ::setenv("PHC_POOL_DIR", "/x/y", 1);
    CHECK(pool_dir() == "/x/y");
    ::unsetenv("PHC_POOL_DIR");
}

TEST_CASE("available_cpus: the affinity, less the lowest cgroup CPU quota") {
    auto fake = [](const test::ScratchDir& dir, const std::string& cgroup,
                   const std::vector<std::pair<std::string, std::string>>& files) {
        REQUIRE(util::make_dirs(dir.file("proc/self")).ok());
        REQUIRE(util::write_file_atomic(dir.file("proc/self/cgroup"), cgroup).ok());
        for (const auto& [name, text] : files) {
            REQUIRE(util::make_dirs(dir.file(name.substr(0, name.rfind('/')))).ok());
            REQUIRE(util::write_file_atomic(dir.file(name), text).ok());
        }
    };
    {
        test::ScratchDir dir; // 1.5 CPUs: 2
        fake(dir, "0::/ci/job\n", {{"sys/fs/cgroup/ci/job/cpu.max", "150000 100000\n"}});
        CHECK(util::available_cpus(dir.path(), 8) == 2);
    }
    {
        test::ScratchDir dir; // no quota, a parent's binds
        fake(dir, "0::/ci/job\n",
             {{"sys/fs/cgroup/ci/job/cpu.max", "max 100000\n"},
              {"sys/fs/cgroup/ci/cpu.max", "300000 100000\n"}});
        CHECK(util::available_cpus(dir.path(), 8) == 3);
    }
    {
        test::ScratchDir dir; // a quota above the affinity
        fake(dir, "0::/\n", {{"sys/fs/cgroup/cpu.max", "1600000 100000\n"}});
        CHECK(util::available_cpus(dir.path(), 4) == 4);
    }
    {
        test::ScratchDir dir; // v1: cpu,cpuacct
        fake(dir, "5:cpu,cpuacct:/docker/x\n1:name=systemd:/y\n",
             {{"sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "50000\n"},
              {"sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n"}});
        CHECK(util::available_cpus(dir.path(), 8) == 1);
    }
    {
        test::ScratchDir dir; // v1 unlimited (-1)
        fake(dir, "5:cpu,cpuacct:/docker/x\n",
             {{"sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_quota_us", "-1\n"},
              {"sys/fs/cgroup/cpu,cpuacct/docker/x/cpu.cfs_period_us", "100000\n"}});
        CHECK(util::available_cpus(dir.path(), 8) == 8);
    }
    CHECK(util::available_cpus() >= 1);
}
