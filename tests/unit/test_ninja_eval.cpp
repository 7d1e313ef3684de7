// Evaluation: escapes, scoping, $in/$out, and ninja's evaluation order.
#include "test_ninja_util.h"

using namespace phc;
using namespace phc::ninja;
using phc::ninja::test::eval;
using phc::ninja::test::parse_ok;

TEST_CASE("ninja: every escape") {
    auto m = parse_ok("v = a$$b$ c$:d $\n    e${v2}f$v2.g\n"
                      "rule r\n  command = [$v]\n"
                      "build o: r\n");
    CHECK(*m.variable("v") == "a$b c:d ef.g");
    CHECK(eval(m, "o", "command") == "[a$b c:d ef.g]");
}

TEST_CASE("ninja: $name stops at '.', ${name} may contain it") {
    auto m = parse_ok("a = A\na.b = AB\nv = $a.b ${a.b}\n");
    CHECK(*m.variable("v") == "A.b AB");
}

TEST_CASE("ninja: paths with escapes, and $in/$out quoting") {
    auto m = parse_ok("rule r\n  command = c $in > $out\n"
                      "build out$ 1 out2 | imp: r in$:1 ./dir/../in$$2 q'x | dep || ord\n");
    CHECK(eval(m, "out 1", "command") == "c 'in:1' 'in$2' 'q'\\''x' > 'out 1' out2");
    CHECK(m.edge(0).evaluate_unescaped("in").value() == "in:1 in$2 q'x");
}

TEST_CASE("ninja: $in_newline") {
    auto m = parse_ok("rule r\n  command = x\n  rspfile = $out.rsp\n"
                      "  rspfile_content = $in_newline\nbuild o: r a b c\n");
    CHECK(eval(m, "o", "rspfile_content") == "a\nb\nc");
    CHECK(eval(m, "o", "rspfile") == "o.rsp");
}

TEST_CASE("ninja: top-level variables are evaluated where they are defined") {
    auto m = parse_ok("x = 1\ny = $x\nx = 2\nz = $z$x\n");
    CHECK(*m.variable("y") == "1");
    CHECK(*m.variable("z") == "2");
}

TEST_CASE("ninja: edge bindings are evaluated at parse time in the file scope") {
    auto m = parse_ok("x = 1\n"
                      "rule r\n  command = $y [$z] $x\n"
                      "build a: r b\n  y = $x$in\n  z = $y\n"
                      "x = 2\n");
    // y sees x=1 and no $in; z does not see the edge's own y; the rule sees the final x.
    CHECK(eval(m, "a", "command") == "1 [] 2");
    CHECK(m.edge(0).binding("y")->value == "1");
    CHECK(m.edge(0).binding("y")->source == "$x$in");
}

TEST_CASE("ninja: lookup order: edge, rule, then file scopes; the no-binding quirk") {
    auto m = parse_ok("description = top\n"
                      "rule r\n  command = $description\n  description = rule\n"
                      "build a: r\n"
                      "build b: r\n  unrelated = 1\n"
                      "build c: r\n  description = edge\n");
    CHECK(eval(m, "a", "command") == "top"); // edge without bindings: file scope first
    CHECK(eval(m, "b", "command") == "rule");
    CHECK(eval(m, "c", "command") == "edge");
}

TEST_CASE("ninja: rule bindings evaluate in the edge's scope") {
    auto m = parse_ok("rule cc\n  command = cc $FLAGS -c $in -o $out\n"
                      "  description = CC $out\n  depfile = $DEP_FILE\n"
                      "build x.o: cc x.c\n  FLAGS = -O2\n  DEP_FILE = x.o.d\n");
    CHECK(eval(m, "x.o", "command") == "cc -O2 -c x.c -o x.o");
    CHECK(eval(m, "x.o", "depfile") == "x.o.d");
    CHECK(eval(m, "x.o", "description") == "CC x.o");
    CHECK(eval(m, "x.o", "nothing") == "");
}

TEST_CASE("ninja: paths evaluate with the edge's bindings and are canonicalised") {
    auto m = parse_ok("d = dir\nrule r\n  command = $in $out\n"
                      "build $d/$n//x/./y: r ../a/b/../c\n  n = sub\n");
    CHECK(eval(m, "dir/sub/x/y", "command") == "../a/c dir/sub/x/y");
}

TEST_CASE("ninja: a cycle in rule variables is an error, not a hang") {
    auto m = parse_ok("rule r\n  command = $description\n  description = $depfile\n"
                      "  depfile = $description\nbuild a: r\n");
    auto r = m.edge(0).evaluate("command");
    REQUIRE_FALSE(r.ok());
    CHECK(format_error("", r.error()) ==
          "build.ninja:5: error: cycle in rule variables: description -> depfile -> description");
    // A variable used twice is no cycle (ninja 1.11 said it was; 1.12 fixed that).
    auto ok = parse_ok("rule r\n  command = x $description $depfile\n  description = d\n"
                       "  depfile = $description\nbuild a: r\n");
    CHECK(eval(ok, "a", "command") == "x d d");
    auto self = parse_ok("rule r\n  command = x $command\nbuild a: r\n");
    CHECK(format_error("", self.edge(0).evaluate("command").error()) ==
          "build.ninja:3: error: cycle in rule variables: command -> command");
}

TEST_CASE("ninja: canonical paths as ninja 1.11 computes them") {
    auto m = parse_ok("rule r\n  command = $out\n"
                      "build a/..: r\nbuild ./b/: r\nbuild ../../c: r\nbuild /abs//d/.: r\n");
    CHECK(m.edge(0).outputs()[0] == ".");
    CHECK(m.edge(1).outputs()[0] == "b");
    CHECK(m.edge(2).outputs()[0] == "../../c");
    CHECK(m.edge(3).outputs()[0] == "/abs/d");
}

TEST_CASE("ninja: an edge binding ends a chain of rule variables that would be a cycle") {
    const std::string rule = "rule r\n  command = [$description]\n  description = <$depfile>\n"
                             "  depfile = $description\n";
    auto m = parse_ok(rule + "build a: r\n  depfile = edge\nbuild b: r\n  x = 1\n");
    CHECK(eval(m, "a", "command") == "[<edge>]");
    CHECK(format_error("", m.edge(1).evaluate("command").error()) ==
          "build.ninja:7: error: cycle in rule variables: description -> depfile -> description");
    // No bindings: the file scope's variables (final values) come before the rule's.
    auto f = parse_ok(rule + "build c: r\ndepfile = file\n");
    CHECK(eval(f, "c", "command") == "[<file>]");
}
