#include "sched/history.h"
#include "scratch.h"
#include "util/file.h"

#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace phc;
using namespace phc::sched;

namespace {

StepRecord rec(const std::string& out, int64_t wall, uint64_t peak, int exit_code = 0) {
    StepRecord r;
    r.start_ms = 1000;
    r.wall_ms = wall;
    r.cpu_ms = wall;
    r.peak = peak;
    r.exit_code = exit_code;
    r.kind = Kind::Device;
    r.output = out;
    return r;
}

/// Sets an environment variable for one scope.
struct Env {
    std::string name, before;
    bool was = false;
    Env(const char* n, const char* v) : name(n) {
        if (const char* b = std::getenv(n)) {
            before = b;
            was = true;
        }
        ::setenv(n, v, 1);
    }
    ~Env() {
        if (was)
            ::setenv(name.c_str(), before.c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
    Env(const Env&) = delete;
    Env& operator=(const Env&) = delete;
};

} // namespace

TEST_CASE("history: the folder, and one file per project") {
    {
        Env h("PHC_HISTORY", "/ci/cache/h");
        CHECK(history_dir() == "/ci/cache/h");
    }
    {
        Env h("PHC_HISTORY", "off");
        CHECK(history_dir().empty());
    }
    {
        Env h("PHC_HISTORY", "");
        Env x("XDG_CACHE_HOME", "/home/u/.c");
        CHECK(history_dir() == "/home/u/.c/phc-ninja/history");
    }
    CHECK(history_file("", "cmake-p-Release").empty());
    CHECK(history_file("/h", "").empty());
    const std::string a = history_file("/h", "cmake-p-Release");
    CHECK(a.starts_with("/h/cmake-p-Release-"));
    CHECK(a.ends_with(".steps"));
    CHECK(a == history_file("/h", "cmake-p-Release"));
    // Keys that differ only in characters a file name cannot hold stay apart.
    CHECK(history_file("/h", "a/b") != history_file("/h", "a_b"));
    CHECK(history_file("/h", "a/b").find("/h/a_b-") == 0);
}

TEST_CASE("history: kept for the steps, appended to, read back, seeding a fresh folder") {
    test::ScratchDir dir;
    const std::string records = dir.file("b/.phc-ninja");
    const std::string hist = dir.file("cache/h/p.steps");
    CHECK(kept_history_path(records)->empty());
    // Nothing named: the steps append nowhere.
    CHECK(append_history(records, {rec("x.o", 5, 7)}));
    CHECK(!std::filesystem::exists(hist));
    REQUIRE(keep_history_path(records, hist));
    CHECK(*kept_history_path(records) == hist);
    // Appended (its folder made), the last good record of each output wins.
    REQUIRE(append_history(records, {rec("a.o.phc/gfx906.o", 100, 1 << 20)}));
    REQUIRE(
        append_history(records, {rec("a.o.phc/gfx906.o", 300, 3 << 20), rec("b.o", 50, 1 << 10)}));
    REQUIRE(append_history(records, {rec("a.o.phc/gfx906.o", 9, 1, 1)})); // failed: not kept
    const auto read = last_records(hist);
    REQUIRE(read);
    const auto& last = *read;
    REQUIRE(last.size() == 2);
    CHECK(last[0].output == "a.o.phc/gfx906.o");
    CHECK(last[0].wall_ms == 300);
    CHECK(last[0].peak == 3u << 20);
    const auto walls = wall_times(last);
    CHECK(walls.at("b.o") == 50);
    // A fresh build folder is seeded; one with records of its own is not.
    const std::string fresh = dir.file("fresh/.phc-ninja");
    REQUIRE(seed_steps(fresh, last));
    auto text = util::read_file(fresh + "/steps");
    REQUIRE(text);
    CHECK(parse_records(*text).size() == 2);
    REQUIRE(seed_steps(fresh, {rec("c.o", 1, 1)}));
    text = util::read_file(fresh + "/steps");
    REQUIRE(text);
    CHECK(parse_records(*text).size() == 2);
    // A torn or foreign history is no history, and no error.
    REQUIRE(util::write_file_atomic(dir.file("bad.steps"), "v1 garbage\nnot a record"));
    CHECK(last_records(dir.file("bad.steps"))->empty());
    CHECK(last_records(dir.file("missing.steps"))->empty());
    // Dropping the history removes the file that names it (and only a regular file).
    REQUIRE(keep_history_path(records, ""));
    CHECK(kept_history_path(records)->empty());
    CHECK(keep_history_path(records, ""));
}

TEST_CASE("history: a fifo or a device in the history's place is refused, never waited on") {
    test::ScratchDir dir;
    const std::string records = dir.file(".phc-ninja");
    REQUIRE(util::make_dirs(records));
    REQUIRE(::mkfifo((records + "/history").c_str(), 0600) == 0);
    auto kept = kept_history_path(records); // a read of the fifo would wait for a writer
    REQUIRE_FALSE(kept);
    CHECK(kept.error().text().find(records + "/history") != std::string::npos);
    CHECK_FALSE(append_history(records, {rec("a.o", 1, 1)}));
    REQUIRE(::mkfifo(dir.file("fifo.steps").c_str(), 0600) == 0);
    auto fifo = last_records(dir.file("fifo.steps"));
    REQUIRE_FALSE(fifo);
    CHECK(fifo.error().text().find(dir.file("fifo.steps")) != std::string::npos);
    // A link to a zero device: never read to its (missing) end.
    REQUIRE(::symlink("/dev/zero", dir.file("zero.steps").c_str()) == 0);
    auto zero = last_records(dir.file("zero.steps"));
    REQUIRE_FALSE(zero);
    CHECK(zero.error().text().find("not a regular file") != std::string::npos);
}
