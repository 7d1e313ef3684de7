#include "sched/steps.h"
#include "scratch.h"
#include "util/file.h"

#include <algorithm>
#include <csignal>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <set>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc;

namespace {

sched::StepRecord record(std::string output, sched::Kind kind, uint64_t peak, int exit = 0) {
    sched::StepRecord r;
    r.start_ms = 1700000000000;
    r.wall_ms = 1200;
    r.cpu_ms = 1100;
    r.wait_ms = 7;
    r.reserved = 1ull << 30;
    r.peak = peak;
    r.exit_code = exit;
    r.kind = kind;
    r.output = std::move(output);
    return r;
}

} // namespace

TEST_CASE("step records: a line and back") {
    auto r = record("obj/a b.o", sched::Kind::Devlink, 123456789, 130);
    const std::string line = sched::record_line(r);
    CHECK(line ==
          "v1\t1700000000000\t1200\t1100\t7\t1073741824\t123456789\t130\tdevlink\tobj/a b.o\n");
    auto back = sched::parse_record(std::string_view(line).substr(0, line.size() - 1));
    REQUIRE(back);
    CHECK(back->output == "obj/a b.o");
    CHECK(back->kind == sched::Kind::Devlink);
    CHECK(back->peak == 123456789);
    CHECK(back->exit_code == 130);
    CHECK(back->wait_ms == 7);
}

TEST_CASE("step records: torn lines are skipped, whole ones kept") {
    const std::string a = sched::record_line(record("a.o", sched::Kind::Device, 100));
    const std::string b = sched::record_line(record("b.o", sched::Kind::Host, 200));
    for (size_t cut = 1; cut < a.size() - 1; ++cut) {
        // A line cut short by SIGKILL, then the next step's whole line.
        const std::string text = a.substr(0, cut) + b + a;
        auto all = sched::parse_records(text);
        INFO("cut at ", cut);
        REQUIRE(all.size() == 1);
        CHECK(all[0].output == "a.o"); // the cut line ran into b's: both lost, the last kept
    }
    CHECK(sched::parse_records(a + b.substr(0, b.size() - 1)).size() == 1); // no newline yet
    CHECK(sched::parse_records("v2\t1\t2\t3\t4\t5\t6\t7\tdevice\tx\n").empty());
    CHECK(sched::parse_records("v1\t1\t2\t3\t4\t5\t6\t7\tgpu\tx\n").empty());
    CHECK(sched::parse_records("v1\t1\t2\t3\t4\t5\t-6\t7\tdevice\tx\n").empty());
    CHECK(sched::parse_records("v1\t1\t2\t3\t4\t5\t6\t7\tdevice\t\n").empty());
}

TEST_CASE("estimate: own last peak, else the kind's largest, else the default, each +10%") {
    using sched::Kind;
    std::string text;
    for (const auto& r : {record("a.o", Kind::Device, 1000), record("b.o", Kind::Device, 3000),
                          record("a.o", Kind::Device, 2000), record("h.o", Kind::Host, 500),
                          record("f.o", Kind::Device, 9000, /*exit=*/1)})
        text += sched::record_line(r);
    CHECK(sched::estimate(text, {"a.o"}, Kind::Device).bytes == 2200); // its last, not its largest
    CHECK(sched::estimate(text, {"a.o", "b.o"}, Kind::Device).bytes == 3300);
    CHECK(sched::estimate(text, {"new.o"}, Kind::Device).bytes ==
          3300); // the failed step's left out
    CHECK(sched::estimate(text, {"f.o"}, Kind::Device).bytes == 3300);
    CHECK(sched::estimate(text, {"new.o"}, Kind::Host).bytes == 550);
    CHECK(sched::estimate(text, {}, Kind::Devlink).bytes == 2ull << 30);
    CHECK(sched::estimate("", {"a.o"}, Kind::Bundle).bytes == 64ull << 20);
    CHECK(sched::estimate("", {"a.o"}, Kind::Device).bytes == 1ull << 30);
}

TEST_CASE("estimate: the time is the outputs' last successful wall time +10%, else unknown") {
    using sched::Kind;
    std::string text;
    auto timed = [](std::string out, int64_t wall, int exit = 0) {
        sched::StepRecord r = record(std::move(out), Kind::Device, 1000, exit);
        r.wall_ms = wall;
        return r;
    };
    for (const auto& r : {timed("a.o", 5000), timed("a.o", 1000), timed("b.o", 3000),
                          timed("b.o", 9000, /*exit=*/1)})
        text += sched::record_line(r);
    CHECK(sched::estimate(text, {"a.o"}, Kind::Device).wall_ms == 1100); // its last
    CHECK(sched::estimate(text, {"b.o"}, Kind::Device).wall_ms == 3300); // not the failed one
    CHECK(sched::estimate(text, {"a.o", "b.o"}, Kind::Device).wall_ms == 3300);
    CHECK(sched::estimate(text, {"a.o", "new.o"}, Kind::Device).wall_ms == 0); // one unknown
    CHECK(sched::estimate(text, {"new.o"}, Kind::Device).wall_ms == 0);        // not the kind's
    CHECK(sched::estimate(text, {}, Kind::Device).wall_ms == 0);
}

TEST_CASE("append_records: parallel appenders never mix lines; the file stays bounded") {
    test::ScratchDir dir;
    const std::string path = dir.file("steps");
    constexpr int kChildren = 8, kEach = 200;
    std::vector<pid_t> pids;
    for (int c = 0; c < kChildren; ++c) {
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            for (int i = 0; i < kEach; ++i) {
                auto r = record("obj/" + std::to_string(c) + "/" + std::to_string(i) + ".o",
                                sched::Kind::Device, 1000 + static_cast<uint64_t>(i));
                if (!sched::append_records(path, {r, r})) ::_exit(1);
            }
            ::_exit(0);
        }
        pids.push_back(pid);
    }
    for (pid_t pid : pids) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    auto text = util::read_file(path);
    REQUIRE(text);
    auto all = sched::parse_records(*text);
    CHECK(all.size() == 2 * kChildren * kEach);
    CHECK(std::count(text->begin(), text->end(), '\n') == 2 * kChildren * kEach);

    // The append that makes the file reach kCompactAt keeps each output's last line.
    std::string big;
    const std::string line = sched::record_line(record("same.o", sched::Kind::Host, 7));
    while (big.size() + line.size() < sched::kCompactAt)
        big += line;
    REQUIRE(util::write_file_atomic(path, big).ok());
    REQUIRE(sched::append_records(path, {record("same.o", sched::Kind::Host, 7)}).ok());
    REQUIRE(sched::append_records(path, {record("last.o", sched::Kind::Host, 5)}).ok());
    auto after = util::read_file(path);
    REQUIRE(after);
    auto kept = sched::parse_records(*after);
    REQUIRE(kept.size() == 2);
    CHECK(kept[0].output == "same.o");
    CHECK(kept[1].output == "last.o");
    CHECK(after->size() < 1000);

    // A build with more outputs than kCompactAt holds: nothing to gain, no
    // rewrite; every record stays, and the file grows on to the next size.
    std::string unique;
    for (size_t i = 0; unique.size() <= sched::kCompactAt - 200; ++i)
        unique += sched::record_line(record(fmt::format("o{}.o", i), sched::Kind::Host, i));
    REQUIRE(util::write_file_atomic(path, unique).ok());
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    const ino_t inode = st.st_ino;
    size_t appended = 0;
    for (size_t i = 0; i < 2000; ++i, ++appended)
        REQUIRE(sched::append_records(path, {record(fmt::format("n{}.o", i), sched::Kind::Host, i)})
                    .ok());
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(st.st_ino == inode); // never replaced
    auto grown = util::read_file(path);
    REQUIRE(grown);
    CHECK(grown->size() > sched::kCompactAt);
    CHECK(sched::parse_records(*grown).size() == sched::parse_records(unique).size() + appended);
}

TEST_CASE("append_records: a file size limit leaves no cut line (all or nothing)") {
    test::ScratchDir dir;
    const std::string path = dir.file("steps");
    const std::string first = sched::record_line(record("a.o", sched::Kind::Host, 1));
    REQUIRE(util::write_file_atomic(path, first).ok());
    pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // Room for half a line more: the write is cut short (SIGXFSZ ignored,
        // as the step runner does once its command ended).
        std::signal(SIGXFSZ, SIG_IGN);
        const rlim_t limit = first.size() + first.size() / 2;
        const rlimit rl{limit, limit};
        if (::setrlimit(RLIMIT_FSIZE, &rl) != 0) ::_exit(3);
        auto st = sched::append_records(path, {record("b.o", sched::Kind::Host, 2)});
        ::_exit(st.ok() ? 1 : 0);
    }
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0); // an error, not a kill
    auto text = util::read_file(path);
    REQUIRE(text);
    CHECK(*text == first); // the cut line truncated away
}

TEST_CASE("append_records: appends beside a compaction are never lost silently") {
    test::ScratchDir dir;
    const std::string path = dir.file("steps");
    // Just under kCompactAt, of one output: a compaction happens mid-way and
    // gains much (it reads and rewrites 4 MiB while the others append).
    std::string pad;
    const std::string line = sched::record_line(record("pad.o", sched::Kind::Host, 7));
    while (pad.size() + 2 * line.size() < sched::kCompactAt)
        pad += line;
    REQUIRE(util::write_file_atomic(path, pad).ok());
    constexpr int kChildren = 2, kEach = 400;
    std::vector<pid_t> pids;
    for (int c = 0; c < kChildren; ++c) {
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            // An append that waited longer than the lock allows (a compaction
            // under a sanitizer on a loaded machine) says so: counted.
            int failed = 0;
            for (int i = 0; i < kEach; ++i)
                if (!sched::append_records(
                        path, {record(fmt::format("b{}/{}.o", c, i), sched::Kind::Device, 1)}))
                    ++failed;
            ::_exit(std::min(failed, 255));
        }
        pids.push_back(pid);
    }
    size_t failed = 0;
    for (pid_t pid : pids) {
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        REQUIRE(WIFEXITED(status));
        failed += static_cast<size_t>(WEXITSTATUS(status));
    }
    CHECK(failed < kChildren * kEach / 2); // most appends went in
    auto text = util::read_file(path);
    REQUIRE(text);
    CHECK(text->size() < sched::kCompactAt); // compacted
    std::set<std::string> outputs;
    for (const auto& r : sched::parse_records(*text))
        outputs.insert(r.output);
    // Every append that said it went in is there, and the padding's output.
    CHECK(outputs.size() == kChildren * kEach - failed + 1);
}
