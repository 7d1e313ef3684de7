#include "sched/memory.h"
#include "scratch.h"
#include "util/file.h"

#include <doctest/doctest.h>

using namespace phc;

TEST_CASE("parse_memory: sizes and percents") {
    constexpr uint64_t G = 1ull << 30, M = 1ull << 20;
    CHECK(*sched::parse_memory("8G", 0) == 8 * G);
    CHECK(*sched::parse_memory("8g", 0) == 8 * G);
    CHECK(*sched::parse_memory("8GiB", 0) == 8 * G);
    CHECK(*sched::parse_memory("8GB", 0) == 8 * G);
    CHECK(*sched::parse_memory("512M", 0) == 512 * M);
    CHECK(*sched::parse_memory("1.5G", 0) == 3 * G / 2);
    CHECK(*sched::parse_memory("4096", 0) == 4096);
    CHECK(*sched::parse_memory("64K", 0) == 64 * 1024);
    CHECK(*sched::parse_memory("75%", 4 * G) == 3 * G);
    CHECK(*sched::parse_memory("100%", 4 * G) == 4 * G);
    for (const char* bad : {"", "G", "0", "-1G", "8X", "8GG", "101%", "%", "1e30", "nan", "8 G"}) {
        auto r = sched::parse_memory(bad, 4 * G);
        CHECK_MESSAGE(!r.ok(), bad);
        if (!r.ok())
            CHECK(r.error().message ==
                  std::string("'") + bad + "' is not a size (512M, 8G) or a percent (75%)");
    }
}

namespace {

/// A fake /proc and /sys under `dir`: MemTotal of 16 GiB, in cgroup `cg` (v2)
/// whose memory.max is `max`.
void fake_machine(const test::ScratchDir& dir, const std::string& cgroup_line,
                  const std::string& limit_file, const std::string& limit) {
    REQUIRE(util::make_dirs(dir.file("proc/self")).ok());
    REQUIRE(util::write_file_atomic(dir.file("proc/meminfo"),
                                    "MemTotal:       16777216 kB\nMemFree: 1 kB\n")
                .ok());
    REQUIRE(util::write_file_atomic(dir.file("proc/self/cgroup"), cgroup_line).ok());
    if (limit_file.empty()) return;
    const std::string folder = limit_file.substr(0, limit_file.rfind('/'));
    REQUIRE(util::make_dirs(dir.file(folder)).ok());
    REQUIRE(util::write_file_atomic(dir.file(limit_file), limit).ok());
}

} // namespace

TEST_CASE("available_memory: the cgroup's limit when lower, else MemTotal") {
    constexpr uint64_t G = 1ull << 30;
    {
        test::ScratchDir dir;
        fake_machine(dir, "0::/ci/job\n", "sys/fs/cgroup/ci/job/memory.max", "4294967296\n");
        CHECK(sched::available_memory(dir.path()) == 4 * G);
        // The default budget is 10% less; a percent is of the limit.
        CHECK(*sched::memory_budget(std::nullopt, "PHC_MEMORY", dir.path()) == 4 * G - 4 * G / 10);
        CHECK(*sched::memory_budget(std::string("50%"), "--memory", dir.path()) == 2 * G);
    }
    {
        test::ScratchDir dir; // "max": no limit
        fake_machine(dir, "0::/ci/job\n", "sys/fs/cgroup/ci/job/memory.max", "max\n");
        CHECK(sched::available_memory(dir.path()) == 16 * G);
    }
    {
        test::ScratchDir dir; // a parent's limit binds too
        fake_machine(dir, "0::/ci/job\n", "sys/fs/cgroup/ci/memory.max", "2147483648\n");
        CHECK(sched::available_memory(dir.path()) == 2 * G);
    }
    {
        test::ScratchDir dir; // cgroup v1, unlimited (a huge number)
        fake_machine(dir, "4:memory:/docker/x\n0::/\n",
                     "sys/fs/cgroup/memory/docker/x/memory.limit_in_bytes",
                     "9223372036854771712\n");
        CHECK(sched::available_memory(dir.path()) == 16 * G);
    }
    {
        test::ScratchDir dir; // cgroup v1 with a limit
        fake_machine(dir, "4:memory:/docker/x\n",
                     "sys/fs/cgroup/memory/docker/x/memory.limit_in_bytes", "1073741824\n");
        CHECK(sched::available_memory(dir.path()) == G);
    }
    {
        test::ScratchDir dir;
        fake_machine(dir, "0::/\n", "", "");
        auto bad = sched::memory_budget(std::string("lots"), "--memory", dir.path());
        REQUIRE_FALSE(bad.ok());
        CHECK(bad.error().message ==
              "--memory: 'lots' is not a size (512M, 8G) or a percent (75%)");
    }
}

TEST_CASE("format_size") {
    CHECK(sched::format_size(12) == "12 B");
    CHECK(sched::format_size(64ull << 20) == "64 MiB");
    CHECK(sched::format_size(3ull << 29) == "1.5 GiB");
}
