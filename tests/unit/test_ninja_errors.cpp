// Error texts: ninja's messages at ninja's positions, in our
// "file:line:col: error:" format with the source line and a caret.
#include "test_ninja_util.h"

using phc::ninja::test::parse_error;

TEST_CASE("ninja error: expected '=', got eof") {
    CHECK(parse_error("rule r\n  command = x\nfoo") ==
          "build.ninja:3:4: error: expected '=', got eof\nfoo\n   ^ near here");
}

TEST_CASE("ninja error: unknown build rule") {
    CHECK(parse_error("build a: nope b\n") ==
          "build.ninja:1:10: error: unknown build rule 'nope'\nbuild a: nope b\n"
          "         ^ near here");
}

TEST_CASE("ninja error: duplicate rule, pool, unknown pool, multiple rules generate") {
    CHECK(parse_error("rule r\n  command = x\nrule r\n  command = y\n") ==
          "build.ninja:3:7: error: duplicate rule 'r'\nrule r\n      ^ near here");
    CHECK(parse_error("rule phony\n  command = x\n") ==
          "build.ninja:1:11: error: duplicate rule 'phony'\nrule phony\n          ^ near here");
    CHECK(parse_error("pool p\n  depth = 1\npool p\n  depth = 2\n") ==
          "build.ninja:3:7: error: duplicate pool 'p'\npool p\n      ^ near here");
    CHECK(parse_error("rule r\n  command = x\n  pool = nope\nbuild a: r\n") ==
          "build.ninja:5:1: error: unknown pool name 'nope'");
    CHECK(parse_error("rule r\n  command = x\nbuild a: r\nbuild a: r\n") ==
          "build.ninja:5:1: error: multiple rules generate a");
}

TEST_CASE("ninja error: rule bindings") {
    CHECK(parse_error("rule r\n  command = x\n  foo = y\n") ==
          "build.ninja:3:10: error: unexpected variable 'foo'\n  foo = y\n         ^ near here");
    CHECK(parse_error("rule r\n  description = x\n") ==
          "build.ninja:3:1: error: expected 'command =' line");
    CHECK(parse_error("rule r\n  command = x\n  rspfile = f\n") ==
          "build.ninja:4:1: error: rspfile and rspfile_content need to be both specified");
}

TEST_CASE("ninja error: pools") {
    CHECK(parse_error("pool p\n  depth = -1\n") ==
          "build.ninja:2:13: error: invalid pool depth\n  depth = -1\n            ^ near here");
    CHECK(parse_error("pool p\n") == "build.ninja:2:1: error: expected 'depth =' line");
    CHECK(parse_error("pool p\n  size = 1\n") ==
          "build.ninja:2:11: error: unexpected variable 'size'\n  size = 1\n          ^ near here");
}

TEST_CASE("ninja error: lexing") {
    CHECK(parse_error("x = $!\n") ==
          "build.ninja:1:5: error: bad $-escape (literal $ must be written as $$)\nx = $!\n"
          "    ^ near here");
    CHECK(parse_error("x = ${a\n") ==
          "build.ninja:1:5: error: bad $-escape (literal $ must be written as $$)\nx = ${a\n"
          "    ^ near here");
    CHECK(parse_error("\tx = 1\n") == "build.ninja:1:1: error: tabs are not allowed, use spaces");
    CHECK(parse_error("x = 1") ==
          "build.ninja:1:6: error: unexpected EOF\nx = 1\n     ^ near here");
    CHECK(parse_error("  x = 1\n") == "build.ninja:1:1: error: unexpected indent");
    CHECK(parse_error("rule r\n  command = x\nbuild a b\n") ==
          "build.ninja:3:10: error: expected ':', got newline ($ also escapes ':')\nbuild a b\n"
          "         ^ near here");
    CHECK(parse_error("build: r\n") ==
          "build.ninja:1:6: error: expected path\nbuild: r\n     ^ near here");
}

TEST_CASE("ninja error: paths, defaults, dyndep") {
    CHECK(parse_error("rule r\n  command = x\nbuild $e: r\n") ==
          "build.ninja:4:1: error: empty path");
    CHECK(parse_error("rule r\n  command = x\nbuild a: r\ndefault b\n") ==
          "build.ninja:4:10: error: unknown target 'b'\ndefault b\n         ^ near here");
    CHECK(parse_error("default\n") ==
          "build.ninja:1:8: error: expected target name\ndefault\n       ^ near here");
    CHECK(parse_error("rule r\n  command = x\n  dyndep = dd\nbuild a: r\n") ==
          "build.ninja:5:1: error: dyndep 'dd' is not an input");
}

TEST_CASE("ninja error: missing include names the including file and line") {
    CHECK(parse_error("x = 1\ninclude sub/rules.ninja\n") ==
          "build.ninja:2:24: error: loading 'sub/rules.ninja': No such file or directory\n"
          "include sub/rules.ninja\n"
          "                       ^ near here");
    CHECK(parse_error("subninja s.ninja\n", {{"s.ninja", "\nbuild x: nope\n"}}) ==
          "s.ninja:2:10: error: unknown build rule 'nope'\nbuild x: nope\n         ^ near here");
}
