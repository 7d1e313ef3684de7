// The remaining corners of the language: which paths reach $in/$out,
// continuations, comments, scoped rules, pools and defaults from variables.
#include "test_ninja_util.h"

using namespace phc;
using namespace phc::ninja;
using phc::ninja::test::eval;
using phc::ninja::test::parse_error;
using phc::ninja::test::parse_ok;

TEST_CASE("ninja: $out has only explicit outputs, $in only explicit inputs") {
    auto m = parse_ok("rule r\n  command = [$in] [$out]\n"
                      "build o1 o2 | io: r i1 i2 | ii || oo |@ vv\n");
    CHECK(eval(m, "o1", "command") == "[i1 i2] [o1 o2]");
    CHECK(eval(m, "io", "command") == "[i1 i2] [o1 o2]");
    auto n = parse_ok("rule r\n  command = [$in] [$out]\nbuild | io: r || oo\n");
    CHECK(eval(n, "io", "command") == "[] []");
}

TEST_CASE("ninja: continuations, CRLF continuations and comments") {
    auto m = parse_ok("  # indented comment at top level\n"
                      "rule r\n  command = a $\n      b$\r\n   c\n"
                      "build $\n    o1 $\n    o2: $\n    r $\n    i1\n"
                      "  # comment between bindings\n"
                      "  x = 1\n");
    CHECK(eval(m, "o2", "command") == "a bc");
    CHECK(m.edge(0).inputs() == std::vector<std::string_view>{"i1"});
    CHECK(m.edge(0).binding("x")->value == "1");
}

TEST_CASE("ninja: values keep ':' '|' and inner spaces, drop leading blanks") {
    auto m = parse_ok("v =    a:b | c  \n");
    CHECK(*m.variable("v") == "a:b | c  ");
}

TEST_CASE("ninja: reserved bindings evaluate through the edge") {
    auto m = parse_ok("rule r\n  command = c\n  generator = $g\n  restat = 1\n  deps = msvc\n"
                      "  msvc_deps_prefix = Note: including file:\n"
                      "  dyndep = $in.dd\n"
                      "build o: r x | x.dd\n  g = yes\n");
    CHECK(eval(m, "o", "generator") == "yes");
    CHECK(eval(m, "o", "restat") == "1");
    CHECK(eval(m, "o", "deps") == "msvc");
    CHECK(eval(m, "o", "msvc_deps_prefix") == "Note: including file:");
    CHECK(m.edge(0).evaluate_unescaped("dyndep").value() == "x.dd");
}

TEST_CASE("ninja: pool depth and include path come from variables") {
    auto m = parse_ok("d = 4\nname = r\npool p\n  depth = $d\ninclude $name.ninja\n",
                      {{"r.ninja", "rule r\n  command = x\n"}});
    CHECK(m.find_pool("p")->depth == 4);
    CHECK(m.find_rule("r") != nullptr);
    CHECK(m.files()[1].path == "r.ninja");
}

TEST_CASE("ninja: a subninja may define a rule its parent also has") {
    auto m = parse_ok("rule r\n  command = outer\nbuild a: r\nsubninja s.ninja\n",
                      {{"s.ninja", "rule r\n  command = inner\nbuild b: r\n"}});
    CHECK(eval(m, "a", "command") == "outer");
    CHECK(eval(m, "b", "command") == "inner");
}

TEST_CASE("ninja: default may name any known node, in several statements") {
    auto m = parse_ok("rule r\n  command = x\nbuild o: r i\ndefault i\ndefault o $\n o\n");
    CHECK(m.defaults() == std::vector<std::string_view>{"i", "o", "o"});
}

TEST_CASE("ninja: phony edges have no command; phony needs no rule") {
    auto m = parse_ok("build all: phony a b\n");
    CHECK(m.edge(0).is_phony());
    CHECK(m.edge(0).evaluate("command").value() == "");
}

TEST_CASE("ninja: more error texts") {
    CHECK(parse_error("rule r\n  command = x\nbuild o: r\n  $x = 1\n") ==
          "build.ninja:4:3: error: expected variable name\n  $x = 1\n  ^ near here");
    CHECK(parse_error("x = a$") ==
          "build.ninja:1:6: error: bad $-escape (literal $ must be written as $$)\nx = a$\n"
          "     ^ near here");
    CHECK(parse_error("x = a\rb\n") ==
          "build.ninja:1:6: error: lexing error\nx = a\rb\n     ^ near here");
    CHECK(parse_error("rule\n") ==
          "build.ninja:1:5: error: expected rule name\nrule\n    ^ near here");
    CHECK(parse_error("rule r x\n") ==
          "build.ninja:1:8: error: expected newline, got identifier\nrule r x\n       ^ near here");
    CHECK(parse_error(": x\n") == "build.ninja:1:1: error: unexpected ':'");
    CHECK(parse_error("build o: \n") ==
          "build.ninja:1:10: error: expected build command name\nbuild o: \n         ^ near here");
    CHECK(parse_error("x = 1\n# unterminated comment") == "build.ninja:2:1: error: lexing error");
}

TEST_CASE("ninja: an edge's dyndep may come from the file scope, as it is when parsed") {
    // (`pool` cannot be a top-level variable: it is a keyword there.)
    CHECK(test::parse_error("rule r\n  command = x\ndyndep = dd\nbuild a: r\n") ==
          "build.ninja:5:1: error: dyndep 'dd' is not an input");
    parse_ok("rule r\n  command = x\nbuild a: r\ndyndep = dd\n"); // bound after the edge
    CHECK(test::parse_error("rule r\n  command = x\n  pool = $p\np = nope\nbuild a: r\n") ==
          "build.ninja:6:1: error: unknown pool name 'nope'");
}
