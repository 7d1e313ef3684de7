// ninja's deps log (ninja/deps_log.h): read and appended as ninja 1.11 does.
#include "ninja/deps_log.h"
#include "util/file.h"

#include <cstring>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace phc;
using namespace phc::ninja;

namespace {

/// An empty version 4 log, as ninja starts one.
std::string empty_log(int32_t version = 4) {
    std::string t = "# ninjadeps\n";
    char v[4];
    std::memcpy(v, &version, 4);
    t.append(v, 4);
    return t;
}

} // namespace

TEST_CASE("deps log: records appended are read back, each path recorded once") {
    auto log = parse_deps_log(empty_log());
    REQUIRE(log.ok());
    CHECK(log->paths.empty());
    const DepsRecord a{"o/a.o.phc/gfx906.o", 1764557000123456789, {"phc_s_1", "/i/x.h"}};
    const DepsRecord b{"o/a.o.phc/gfx90a.o", int64_t{1} << 33, {"phc_s_1"}};
    std::string text = empty_log() + deps_log_append(*log, {a, b});
    CHECK(log->size == text.size());
    auto back = parse_deps_log(text);
    REQUIRE_MESSAGE(back.ok(), (back.ok() ? "" : back.error().message));
    // Paths in order of first use; phc_s_1 once.
    CHECK(back->paths == std::vector<std::string>{"o/a.o.phc/gfx906.o", "phc_s_1", "/i/x.h",
                                                  "o/a.o.phc/gfx90a.o"});
    CHECK(back->has_record("o/a.o.phc/gfx906.o"));
    CHECK(back->has_record("o/a.o.phc/gfx90a.o"));
    CHECK_FALSE(back->has_record("phc_s_1")); // a path, not a record
    CHECK_FALSE(back->has_record("o/b.o"));
    // Appending to what was read reuses its ids: only the new path is written.
    const DepsRecord c{"o/b.o", 5, {"/i/x.h"}};
    const std::string more = deps_log_append(*back, {c});
    CHECK(more.size() == (4 + 8 + 4) + (4 + 4 + 8 + 4)); // "o/b.o" padded to 8, one dep
    auto again = parse_deps_log(text + more);
    REQUIRE(again.ok());
    CHECK(again->paths.size() == 5);
    CHECK(again->has_record("o/b.o"));
}

TEST_CASE("deps log: the bytes are ninja's own") {
    // tests/data/ninja-1.11.deps: what ninja 1.11.1 wrote for two edges with
    // deps = gcc (x.o.phc/gfx906.o and x.o, each reading a.h, sub/b.h and a set).
    auto real = util::read_file(std::string(PHC_TEST_DATA) + "/ninja-1.11.deps");
    REQUIRE(real.ok());
    auto log = parse_deps_log(*real);
    REQUIRE_MESSAGE(log.ok(), (log.ok() ? "" : log.error().message));
    CHECK(log->paths == std::vector<std::string>{"x.o.phc/gfx906.o", "a.h", "sub/b.h",
                                                 "phc_s_0123456789abcdef", "x.o"});
    CHECK(log->has_record("x.o.phc/gfx906.o"));
    CHECK(log->has_record("x.o"));
    CHECK_FALSE(log->has_record("a.h"));
    // The same records appended to an empty log give the same bytes.
    auto empty = parse_deps_log(empty_log());
    REQUIRE(empty.ok());
    const std::vector<std::string> deps{"a.h", "sub/b.h", "phc_s_0123456789abcdef"};
    const std::string ours =
        empty_log() + deps_log_append(*empty, {{"x.o.phc/gfx906.o", 1796093711318947478, deps},
                                               {"x.o", 1796093711322947478, deps}});
    CHECK(ours == *real);
}

TEST_CASE("deps log: another version or a damaged log is refused") {
    CHECK_FALSE(parse_deps_log("").ok());
    CHECK_FALSE(parse_deps_log(empty_log(3)).ok());
    CHECK_FALSE(parse_deps_log("# ninjalog\n" + empty_log().substr(12)).ok());
    auto log = parse_deps_log(empty_log());
    REQUIRE(log.ok());
    const std::string whole = empty_log() + deps_log_append(*log, {{"a.o", 7, {"x.h", "y.h"}}});
    REQUIRE(parse_deps_log(whole).ok());
    // Cut between records it is a shorter log (three paths of 12 bytes, no
    // record yet); cut inside one it is damaged.
    const size_t start = empty_log().size();
    for (size_t cut = start + 1; cut < whole.size(); ++cut) {
        auto part = parse_deps_log(whole.substr(0, cut));
        const bool boundary = cut == start + 12 || cut == start + 24 || cut == start + 36;
        CHECK_MESSAGE(part.ok() == boundary, "cut at ", cut);
        if (part.ok()) CHECK_FALSE(part->has_record("a.o"));
    }
    // The same path recorded twice (two writers that both lacked it).
    auto twice = parse_deps_log(whole);
    REQUIRE(twice.ok());
    twice->ids.erase("a.o");
    CHECK_FALSE(parse_deps_log(whole + deps_log_append(*twice, {{"a.o", 8, {}}})).ok());
    // A path whose checksum is not its id (two writers at once).
    std::string bad = whole;
    bad[empty_log().size() + 4 + 4] ^= 1; // first path record's checksum
    CHECK_FALSE(parse_deps_log(bad).ok());
}

TEST_CASE("deps log: record_of reads an output's last record back") {
    auto log = parse_deps_log(empty_log());
    REQUIRE(log.ok());
    std::string text = empty_log() + deps_log_append(*log, {{"a.o", 7, {"x.h"}}});
    text += deps_log_append(*log, {{"b.o", 9, {"y.h"}}, {"a.o", int64_t{1} << 40, {"x.h", "z.h"}}});
    auto back = parse_deps_log(text);
    REQUIRE(back.ok());
    auto a = record_of(text, *back, "a.o");
    REQUIRE(a);
    CHECK(*a == DepsRecord{"a.o", int64_t{1} << 40, {"x.h", "z.h"}});
    CHECK(record_of(text, *back, "b.o")->deps == std::vector<std::string>{"y.h"});
    CHECK_FALSE(record_of(text, *back, "x.h")); // a path, not a record
    CHECK_FALSE(record_of(text, *back, "c.o"));
}
