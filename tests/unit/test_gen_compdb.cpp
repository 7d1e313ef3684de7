// The compilation database reader: both entry forms, path resolution, and the
// whole text of every error it reports.
#include "gen/compdb.h"

#include <doctest/doctest.h>
#include <string>

using phc::gen::parse_compdb;
using phc::gen::read_compdb;

namespace {

/// The first line of what gen prints for `e` (the source line and caret follow).
std::string shown(const phc::Error& e) {
    std::string text = format_error("", e);
    return text.substr(0, text.find('\n'));
}

/// The error message of parsing `text` as "cc.json" (fails the test if it parses).
std::string error_of(const std::string& text) {
    auto db = parse_compdb(text, "cc.json", "/base");
    REQUIRE_FALSE(db.ok());
    return shown(db.error());
}

} // namespace

TEST_CASE("gen compdb: command strings are split, arguments arrays are taken as they are") {
    auto db = parse_compdb(R"([
      {"directory": "/w", "command": "hipcc -O2 'a b.hip' -c -o \"obj/x y.o\"", "file": "a b.hip"},
      {"directory": "/w", "arguments": ["g++", "-c", "m.cpp", "-o", "m.o"], "file": "m.cpp"}
    ])",
                           "cc.json", "/base");
    REQUIRE(db.ok());
    REQUIRE(db->entries.size() == 2);
    const auto& a = db->entries[0];
    CHECK(a.index == 0);
    CHECK(a.argv == std::vector<std::string>{"hipcc", "-O2", "a b.hip", "-c", "-o", "obj/x y.o"});
    CHECK(a.directory == "/w");
    CHECK(a.file == "/w/a b.hip");
    CHECK(a.output == "/w/obj/x y.o");
    const auto& m = db->entries[1];
    CHECK(m.index == 1);
    CHECK(m.argv == std::vector<std::string>{"g++", "-c", "m.cpp", "-o", "m.o"});
    CHECK(m.output == "/w/m.o");
}

TEST_CASE("gen compdb: \"arguments\" wins over \"command\" when both are present") {
    auto db = parse_compdb(
        R"([{"directory": "/w", "command": "cc -c x.c -o y.o", "arguments": ["cc", "-c", "x.c", "-o", "z.o"], "file": "x.c"}])",
        "cc.json", "/base");
    REQUIRE(db.ok());
    CHECK(db->entries[0].output == "/w/z.o");
}

TEST_CASE("gen compdb: paths resolve against the entry directory, which resolves against the "
          "database's") {
    auto db = parse_compdb(
        R"([{"directory": "build/./x/..", "arguments": ["cc", "-c", "../s/a.c", "-o", "o/../a.o"], "file": "../s/a.c"}])",
        "cc.json", "/base");
    REQUIRE(db.ok());
    const auto& e = db->entries[0];
    CHECK(e.directory == "/base/build");
    CHECK(e.file == "/base/s/a.c");
    CHECK(e.output == "/base/build/a.o");
}

TEST_CASE("gen compdb: \"output\" wins over -o; -oFILE is understood") {
    auto db = parse_compdb(R"([
      {"directory": "/w", "arguments": ["cc", "-c", "a.c", "-o", "a.o"], "file": "a.c", "output": "/elsewhere/a.o"},
      {"directory": "/w", "arguments": ["cc", "-c", "b.c", "-ob.o"], "file": "b.c"}
    ])",
                           "cc.json", "/base");
    REQUIRE(db.ok());
    CHECK(db->entries[0].output == "/elsewhere/a.o");
    CHECK(db->entries[1].output == "/w/b.o");
}

TEST_CASE("gen compdb: an empty array is an empty database") {
    auto db = parse_compdb("[]\n", "cc.json", "/base");
    REQUIRE(db.ok());
    CHECK(db->entries.empty());
}

TEST_CASE("gen compdb: JSON syntax errors give file:line:col and the line with a caret") {
    auto db = parse_compdb("[\n  {\"directory\": \"/w\",}\n]\n", "cc.json", "/base");
    REQUIRE_FALSE(db.ok());
    CHECK(shown(db.error()) ==
          "cc.json:2:22: error: syntax error while parsing object key - unexpected '}'; "
          "expected string literal");
    CHECK(db.error().detail == "  {\"directory\": \"/w\",}\n                     ^");
}

TEST_CASE("gen compdb: truncated and empty files are syntax errors at their end") {
    CHECK(error_of("[\n") == "cc.json:2:1: error: syntax error while parsing value - unexpected "
                             "end of input; expected '[', '{', or a literal");
    CHECK(error_of("") == "cc.json:1:1: error: syntax error while parsing value - unexpected end "
                          "of input; expected '[', '{', or a literal");
    CHECK(error_of("[]\n[]") == "cc.json:2:1: error: syntax error while parsing value - "
                                "unexpected '['; expected end of input");
}

TEST_CASE("gen compdb: the document must be an array of objects") {
    CHECK(error_of("{}") == "cc.json: error: expected a JSON array of entries");
    CHECK(error_of("[1]") == "cc.json: error: entry 0: not an object");
}

TEST_CASE("gen compdb: each missing or mistyped member is named with its entry") {
    const std::string ok =
        R"({"directory": "/w", "arguments": ["cc", "-c", "a.c", "-o", "a.o"], "file": "a.c"},)";
    CHECK(error_of("[" + ok + R"({"arguments": ["cc"], "file": "b.c"}])") ==
          "cc.json: error: entry 1: missing \"directory\"");
    const std::string ok2 =
        R"({"directory": "/w", "arguments": ["cc", "-c", "b.c", "-o", "b.o"], "file": "b.c"},)";
    CHECK(error_of("[" + ok + ok2 + R"({"directory": "/w", "arguments": ["cc"]}])") ==
          "cc.json: error: entry 2: missing \"file\"");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c"}])") ==
          "cc.json: error: entry 0: missing \"command\" or \"arguments\"");
    CHECK(error_of(R"([{"directory": 7, "file": "a.c", "command": "cc"}])") ==
          "cc.json: error: entry 0: \"directory\" is not a string");
    CHECK(error_of(R"([{"directory": "", "file": "a.c", "command": "cc"}])") ==
          "cc.json: error: entry 0: \"directory\" is empty");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "arguments": "cc -c a.c"}])") ==
          "cc.json: error: entry 0: \"arguments\" is not an array of strings");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "arguments": ["cc", 1]}])") ==
          "cc.json: error: entry 0: \"arguments\" is not an array of strings");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "arguments": []}])") ==
          "cc.json: error: entry 0: \"arguments\" is empty");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "command": ["cc"]}])") ==
          "cc.json: error: entry 0: \"command\" is not a string");
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "command": "  "}])") ==
          "cc.json: error: entry 0: \"command\" is empty");
    CHECK(
        error_of(
            R"([{"directory": "/w", "file": "a.c", "command": "cc -c a.c -o a.o", "output": 3}])") ==
        "cc.json: error: entry 0: \"output\" is not a string");
}

TEST_CASE("gen compdb: an entry without output is an error") {
    CHECK(error_of(R"([{"directory": "/w", "file": "a.c", "command": "cc -c a.c"}])") ==
          "cc.json: error: entry 0: no \"output\" and no -o in the command");
}

TEST_CASE("gen compdb: a command the shell would expand or cannot split is refused") {
    auto msg = error_of(R"([{"directory": "/w", "file": "a.c", "command": "cc -c 'a.c -o a.o"}])");
    CHECK(msg.rfind("cc.json: error: entry 0: cannot split \"command\": ", 0) == 0);
}

TEST_CASE("gen compdb: shell operators: `cd DIR &&` is understood, anything else runs as written") {
    // As `ninja -t compdb` writes a rule that changes directory, beside a pipe.
    auto db = parse_compdb(R"([
      {"directory": "/w", "command": "cd sub && FOO=1 ccache hipcc -c ../k.hip -o k.o", "file": "k.hip"},
      {"directory": "/w", "command": "cd /abs && cc -c a.c -o a.o", "file": "a.c", "output": "o/a.o"},
      {"directory": "/w", "command": "gen.sh | cc -x c -c - -o p.o", "file": "p.c"}
    ])",
                           "cc.json", "/base");
    REQUIRE(db.ok());
    REQUIRE(db->entries.size() == 3);
    const auto& k = db->entries[0];
    CHECK(k.shell.empty());
    CHECK(k.directory == "/w/sub");
    CHECK(k.argv == std::vector<std::string>{"env", "FOO=1", "ccache", "hipcc", "-c", "../k.hip",
                                             "-o", "k.o"});
    CHECK(k.file == "/w/k.hip"); // "file" and "output" are relative to "directory"
    CHECK(k.output == "/w/sub/k.o");
    const auto& a = db->entries[1];
    CHECK(a.directory == "/abs");
    CHECK(a.output == "/w/o/a.o");
    const auto& p = db->entries[2];
    CHECK(p.shell == "gen.sh | cc -x c -c - -o p.o");
    CHECK(p.shell_reason == "the command is not a simple command (operator '|')");
    CHECK(p.directory == "/w");
    CHECK(p.output == "/w/p.o");
}

TEST_CASE("gen compdb: two entries writing one output name both entries") {
    CHECK(error_of(R"([
      {"directory": "/w", "arguments": ["cc", "-c", "a.c", "-o", "x.o"], "file": "a.c"},
      {"directory": "/w", "arguments": ["cc", "-c", "b.c", "-o", "y.o"], "file": "b.c"},
      {"directory": "/w/sub", "arguments": ["cc", "-c", "c.c", "-o", "../x.o"], "file": "c.c"}
    ])") == "cc.json: error: entries 0 and 2 both write /w/x.o");
}

TEST_CASE("gen compdb: read_compdb reads a file and resolves against its directory") {
    std::string path = std::string(PHC_TEST_DATA) + "/gen/two_forms.json";
    auto db = read_compdb(path);
    REQUIRE(db.ok());
    REQUIRE(db->entries.size() == 2);
    CHECK(db->path == path);
    CHECK(db->entries[0].directory == std::string(PHC_TEST_DATA) + "/gen/build");
    CHECK(db->entries[0].file == std::string(PHC_TEST_DATA) + "/gen/src/a.hip");
    CHECK(db->entries[0].output == std::string(PHC_TEST_DATA) + "/gen/build/obj/a.o");
    CHECK(db->entries[1].output == "/abs/dir/obj/b.o");
}

TEST_CASE("gen compdb: a missing file is an error naming it") {
    auto db = read_compdb("/nonexistent/compile_commands.json");
    REQUIRE_FALSE(db.ok());
    CHECK(db.error().where == "/nonexistent/compile_commands.json");
}

TEST_CASE("gen compdb: a number too large for JSON's types is an error, not a crash") {
    // Found by fuzz_compdb: nlohmann throws out_of_range (not parse_error) for it.
    std::string e = error_of("\n7777e77000000084344804");
    CHECK(e.find("cc.json: error: not a compilation database") == 0);
    CHECK(e.find('\n') == std::string::npos);
}
