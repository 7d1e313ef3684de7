// Restoring split edges' deps records (regen/records.h): SETS.records read,
// records put back only where they describe the output as it is.
#include "depsets/depsets.h"
#include "depsets/records.h"
#include "ninja/deps_log.h"
#include "scratch.h"
#include "util/file.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <doctest/doctest.h>
#include <string>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

using namespace phc;
using depsets::DepsRecord;

namespace {

/// An empty version 4 log, as ninja starts one.
std::string empty_log(int32_t version = 4) {
    std::string t = "# ninjadeps\n";
    char v[4];
    std::memcpy(v, &version, 4);
    t.append(v, 4);
    return t;
}

std::string read(const std::string& path) {
    auto t = util::read_file(path);
    REQUIRE(t.ok());
    return *t;
}

int64_t mtime_ns(const std::string& path) {
    struct stat st;
    REQUIRE(::stat(path.c_str(), &st) == 0);
    return static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000LL + st.st_mtim.tv_nsec;
}

} // namespace

TEST_CASE("records: the last whole line of each output counts") {
    const std::string text = depsets::records_line({"a.o", 10, {"phc_s_1"}}) +
                             depsets::records_line({"b.o", 11, {"phc_s_2", "b.hip"}}) +
                             "garbage\n" + "x a.o phc_s_9\n" +
                             depsets::records_line({"a.o", 12, {"phc_s_3"}}) + "13 b.o phc_s_4";
    auto last = depsets::parse_records(text);
    REQUIRE(last.size() == 2);
    CHECK(last["a.o"].mtime == 12);
    CHECK(last["a.o"].deps == std::vector<std::string>{"phc_s_3"});
    CHECK(last["b.o"].mtime == 11); // the cut-short line is not a record
    CHECK(last["b.o"].deps == std::vector<std::string>{"phc_s_2", "b.hip"});
}

TEST_CASE("restore_deps: puts back records that describe the outputs as they are") {
    test::InScratch in("phc-records");
    for (const char* f : {"a.o", "b.o", "c.o"})
        REQUIRE(util::write_file_atomic(f, "obj").ok());
    const int64_t ma = mtime_ns("a.o"), mb = mtime_ns("b.o"), mc = mtime_ns("c.o");
    // a.o as it is; b.o rebuilt since its line (another mtime); c.o recorded
    // in the log already; d.o not an output of the manifest.
    REQUIRE(
        util::write_file_atomic("records", depsets::records_line({"a.o", ma - 5, {"phc_s_old"}}) +
                                               depsets::records_line({"a.o", ma, {"phc_s_a"}}) +
                                               depsets::records_line({"b.o", mb - 1, {"phc_s_b"}}) +
                                               depsets::records_line({"c.o", mc, {"phc_s_c"}}) +
                                               depsets::records_line({"d.o", 1, {"phc_s_d"}}))
            .ok());
    auto log = ninja::parse_deps_log(empty_log());
    REQUIRE(log.ok());
    const std::string before = empty_log() + ninja::deps_log_append(*log, {{"c.o", mc, {"z.h"}}});
    REQUIRE(util::write_file_atomic(".ninja_deps", before).ok());
    const std::vector<std::string> outputs{"a.o", "b.o", "c.o"};
    auto r = depsets::restore_deps(".ninja_deps", "records", outputs, outputs);
    REQUIRE(r.ok());
    CHECK(r->records == 1);
    const std::string after = read(".ninja_deps");
    CHECK(after.starts_with(before)); // only appended
    auto back = ninja::parse_deps_log(after);
    REQUIRE(back.ok());
    CHECK(back->has_record("a.o"));
    CHECK_FALSE(back->has_record("b.o"));
    CHECK(std::find(back->paths.begin(), back->paths.end(), "phc_s_a") != back->paths.end());
    CHECK(std::find(back->paths.begin(), back->paths.end(), "phc_s_old") == back->paths.end());
    // Again: a.o has its record now; nothing is written.
    auto r2 = depsets::restore_deps(".ninja_deps", "records", outputs, outputs);
    REQUIRE(r2.ok());
    CHECK(r2->records == 0);
    CHECK(read(".ninja_deps") == after);
}

TEST_CASE("restore_deps: no log, another version or a fifo: nothing is written") {
    test::InScratch in("phc-records");
    REQUIRE(util::write_file_atomic("a.o", "obj").ok());
    REQUIRE(
        util::write_file_atomic("records", depsets::records_line({"a.o", mtime_ns("a.o"), {"s"}}))
            .ok());
    auto none = depsets::restore_deps(".ninja_deps", "records", {"a.o"}, {"a.o"});
    REQUIRE(none.ok());
    CHECK(none->records == 0);
    CHECK(::access(".ninja_deps", F_OK) != 0);
    REQUIRE(util::write_file_atomic(".ninja_deps", empty_log(3)).ok());
    auto old = depsets::restore_deps(".ninja_deps", "records", {"a.o"}, {"a.o"});
    REQUIRE(old.ok());
    CHECK(old->records == 0);
    CHECK(read(".ninja_deps") == empty_log(3));
    REQUIRE(::unlink(".ninja_deps") == 0);
    REQUIRE(::mkfifo(".ninja_deps", 0644) == 0);
    auto fifo = depsets::restore_deps(".ninja_deps", "records", {"a.o"}, {"a.o"});
    REQUIRE(fifo.ok());
    CHECK(fifo->records == 0);
    struct stat st;
    REQUIRE(::lstat(".ninja_deps", &st) == 0);
    CHECK(S_ISFIFO(st.st_mode));
}

TEST_CASE("deps_set: remembers what ninja records for an output that exists") {
    test::InScratch in("phc-records");
    REQUIRE(depsets::prepare_sets("deps.ninja", {}).ok());
    REQUIRE(util::write_file_atomic("k.o", "obj").ok());
    REQUIRE(util::write_file_atomic("k.d", "k.o: /s/k.hip /i/x.h\n").ok());
    REQUIRE(depsets::deps_set("deps.ninja", "k.d", {"/s/k.hip"}).ok());
    const auto set = depsets::make_depset({"/i/x.h"});
    auto last = depsets::parse_records(read("deps.ninja.records"));
    REQUIRE(last.count("k.o") == 1);
    CHECK(last["k.o"].mtime == mtime_ns("k.o"));
    CHECK(last["k.o"].deps == std::vector<std::string>{set.name});
    // Only the source: the depfile stays and ninja records its list.
    REQUIRE(util::write_file_atomic("k.d", "k.o: ./k.hip\n").ok());
    REQUIRE(depsets::deps_set("deps.ninja", "k.d", {"k.hip"}).ok());
    last = depsets::parse_records(read("deps.ninja.records"));
    CHECK(last["k.o"].deps == std::vector<std::string>{"k.hip"});
    // An edge whose output is not the depfile's target (an RDC host compile
    // writing host.o, its depfile naming the object): recorded for the output.
    REQUIRE(util::write_file_atomic("host.o", "obj").ok());
    REQUIRE(util::write_file_atomic("k.d", "k.o: /s/k.hip /i/x.h\n").ok());
    REQUIRE(depsets::deps_set("deps.ninja", "k.d", {"/s/k.hip"}, "./host.o").ok());
    last = depsets::parse_records(read("deps.ninja.records"));
    REQUIRE(last.count("host.o") == 1);
    CHECK(last["host.o"].mtime == mtime_ns("host.o"));
    CHECK(last["host.o"].deps == std::vector<std::string>{set.name});
    CHECK(last["k.o"].deps == std::vector<std::string>{"k.hip"}); // unchanged
    // No output (the compile failed): no line.
    REQUIRE(util::write_file_atomic("m.d", "m.o: /i/x.h\n").ok());
    REQUIRE(depsets::deps_set("deps.ninja", "m.d").ok());
    CHECK(depsets::parse_records(read("deps.ninja.records")).count("m.o") == 0);
}

TEST_CASE("records: builds between regens cannot grow the file without bound") {
    test::InScratch in("phc-records");
    std::string text;
    for (int round = 0; text.size() <= (9u << 20); ++round)
        for (const char* o : {"a.o", "b.o"})
            text += depsets::records_line({o, 1000 + round, {"phc_s_1"}});
    REQUIRE(util::write_file_atomic("records", text).ok());
    depsets::compact_if_grown("records", static_cast<long long>(text.size()));
    const std::string once = read("records");
    CHECK(once.starts_with("# compacted "));
    auto last = depsets::parse_records(once);
    REQUIRE(last.size() == 2);
    CHECK(last == depsets::parse_records(text)); // the last line of each output
    CHECK(once.size() < 200);
    // Past 8 MB but not twice the size after the last compaction: left alone.
    std::string grown = "# compacted 6000000\n" + text.substr(0, 9u << 20);
    grown.resize(grown.rfind('\n') + 1);
    REQUIRE(util::write_file_atomic("records", grown).ok());
    depsets::compact_if_grown("records", static_cast<long long>(grown.size()));
    CHECK(read("records") == grown);
    // Small: left alone.
    REQUIRE(util::write_file_atomic("records", text.substr(0, 1000)).ok());
    depsets::compact_if_grown("records", 1000);
    CHECK(read("records") == text.substr(0, 1000));
}

TEST_CASE("restorable: only what a build could have recorded, nothing ninja cannot read") {
    const std::vector<std::string> written{"gen/cfg.h", "x.o", "x.o.phc/bundle.hipfb",
                                           "x.o.phc/gfx906.o"};
    auto ok = [&](DepsRecord r) { return depsets::restorable(r, written); };
    CHECK(ok({"x.o.phc/gfx906.o", 5, {"phc_s_0123456789abcdef"}}));
    CHECK(ok({"x.o", 5, {"x.hip"}}));
    CHECK(ok({"x.o", 5, {}}));
    // A dependency an edge writes (a damaged line): a cycle for ninja.
    CHECK_FALSE(ok({"x.o.phc/gfx906.o", 5, {"x.o"}}));
    CHECK_FALSE(ok({"x.o.phc/gfx906.o", 5, {"x.o.phc/bundle.hipfb"}}));
    CHECK_FALSE(ok({"x.o", 5, {"gen/cfg.h"}}));
    CHECK_FALSE(ok({"x.o", 5, {"x.o"}}));
    CHECK_FALSE(ok({"y.o", 5, {"y.o"}}));
    // Paths deps-set never writes.
    CHECK_FALSE(ok({"x.o", 5, {"a//b.h"}}));
    CHECK_FALSE(ok({"x.o", 5, {"./b.h"}}));
    CHECK_FALSE(ok({"x.o", 5, {"a:b.h"}}));
    CHECK_FALSE(ok({"x.o", 5, {std::string("a\0b.h", 5)}}));
    CHECK_FALSE(ok({"./x.o", 5, {"b.h"}}));
    CHECK_FALSE(ok({"x.o", 0, {"b.h"}}));
    // Over ninja's record size limit ((1 << 19) - 1 bytes): ninja would truncate the log there.
    std::vector<std::string> many;
    for (int i = 0; i < (1 << 17) - 4; ++i)
        many.push_back("h" + std::to_string(i % 7));
    CHECK(ok({"x.o", 5, many})); // (1 << 19) - 4 bytes
    many.push_back("h0");
    CHECK_FALSE(ok({"x.o", 5, many}));
    CHECK(ok({"x.o", 5, {std::string((1 << 19) - 1 - 4 - 3, 'p')}}));
    CHECK_FALSE(ok({"x.o", 5, {std::string((1 << 19) - 1 - 4 - 2, 'p')}}));
    CHECK_FALSE(ok({std::string((1 << 19), 'o'), 5, {"b.h"}}));
}

TEST_CASE("restore_deps: a damaged line naming an output is not put back") {
    test::InScratch in("phc-records");
    for (const char* f : {"a.o", "b.o"})
        REQUIRE(util::write_file_atomic(f, "obj").ok());
    // Two lines run together (an append cut short, then the next one): a.o
    // would depend on b.o, and b.o's record on... a cycle.
    REQUIRE(util::write_file_atomic("records",
                                    std::to_string(mtime_ns("a.o")) + " a.o phc_s_1" +
                                        depsets::records_line({"b.o", mtime_ns("b.o"), {"a.o"}}))
                .ok());
    REQUIRE(util::write_file_atomic(".ninja_deps", empty_log()).ok());
    const std::vector<std::string> outputs{"a.o", "b.o"};
    auto r = depsets::restore_deps(".ninja_deps", "records", outputs, outputs);
    REQUIRE(r.ok());
    CHECK(r->records == 0);
    CHECK(read(".ninja_deps") == empty_log());
}

namespace {

/// A process named `name` whose current directory is `dir`, stopped when this goes.
class NamedProcess {
public:
    NamedProcess(const std::string& dir, const char* name) {
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            if (::chdir(dir.c_str()) != 0) ::_exit(1);
            ::prctl(PR_SET_NAME, name);
            ::pause();
            ::_exit(0);
        }
        // Until the child is named.
        for (int i = 0; i < 2000 && comm() != name; ++i)
            ::usleep(1000);
        REQUIRE(comm() == name);
    }
    ~NamedProcess() {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
    long pid() const { return pid_; }

private:
    std::string comm() const {
        auto t = util::read_file("/proc/" + std::to_string(pid_) + "/comm");
        return t ? t->substr(0, t->find('\n')) : std::string();
    }
    pid_t pid_;
};

} // namespace

TEST_CASE("restore_deps: never appends while a ninja builds in the directory") {
    test::InScratch in("phc-records");
    REQUIRE(util::write_file_atomic("a.o", "obj").ok());
    REQUIRE(util::write_file_atomic("records",
                                    depsets::records_line({"a.o", mtime_ns("a.o"), {"phc_s_a"}}))
                .ok());
    REQUIRE(util::write_file_atomic(".ninja_deps", empty_log()).ok());
    const std::vector<std::string> outputs{"a.o"};
    {
        // ninja numbers the paths it adds from the log it read: an append now
        // would give two paths one id, and its next load would truncate the log.
        NamedProcess ninja(in.dir(), "ninja");
        CHECK(depsets::ninja_building_here() == ninja.pid());
        auto r = depsets::restore_deps(".ninja_deps", "records", outputs, outputs);
        REQUIRE(r.ok());
        CHECK(r->records == 0);
        CHECK(r->waiting == 1);
        CHECK(r->ninja == ninja.pid());
        CHECK(read(".ninja_deps") == empty_log());
    }
    {
        // One elsewhere, or of another name here, does not count.
        test::ScratchDir other("phc-records-other");
        NamedProcess elsewhere(other.path(), "ninja");
        NamedProcess make(in.dir(), "make");
        CHECK(depsets::ninja_building_here() == 0);
    }
    auto r = depsets::restore_deps(".ninja_deps", "records", outputs, outputs);
    REQUIRE(r.ok());
    CHECK(r->records == 1);
    CHECK(r->waiting == 0);
}

TEST_CASE("restore_deps: the ninja that runs regen (an ancestor) does not count") {
    test::InScratch in("phc-records");
    char name[17] = {};
    REQUIRE(::prctl(PR_GET_NAME, name) == 0);
    REQUIRE(::prctl(PR_SET_NAME, "ninja") == 0);
    pid_t kid = ::fork();
    if (kid == 0) {
        ::prctl(PR_SET_NAME, "phc-ninja");
        ::_exit(depsets::ninja_building_here() == 0 ? 0 : 1);
    }
    ::prctl(PR_SET_NAME, name);
    REQUIRE(kid > 0);
    int status = 0;
    REQUIRE(::waitpid(kid, &status, 0) == kid);
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

TEST_CASE("restore_deps: a records file that is a fifo is not waited on") {
    test::InScratch in("phc-records");
    REQUIRE(util::write_file_atomic(".ninja_deps", empty_log()).ok());
    REQUIRE(::mkfifo("records", 0644) == 0);
    auto r = depsets::restore_deps(".ninja_deps", "records", {"a.o"}, {"a.o"});
    REQUIRE(r.ok());
    CHECK(r->records == 0);
}
