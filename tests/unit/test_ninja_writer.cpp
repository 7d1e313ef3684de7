// Writing: escaping, rendering new statements, edits, and parse -> write -> parse.
#include "ninja/writer.h"
#include "test_ninja_util.h"

using namespace phc;
using namespace phc::ninja;
using phc::ninja::test::eval;
using phc::ninja::test::parse;
using phc::ninja::test::parse_ok;

TEST_CASE("ninja writer: escape_path and escape_value") {
    CHECK(escape_path("a b:c$d") == "a$ b$:c$$d");
    CHECK(escape_value("  a $b: c|d ") == "$ $ a $$b: c|d ");
    CHECK(path_error("a|b") != "");
    CHECK(path_error("a\nb") != "");
    CHECK(path_error("") == "empty path");
    CHECK(path_error("a b") == "");
    CHECK(value_error("x\ny") != "");
    CHECK(value_error("x y") == "");
}

TEST_CASE("ninja writer: literal values and paths evaluate back to themselves") {
    const std::string odd = "  $x ${y} a:b | c$ ";
    const std::string odd_path = "dir with space/$weird:name#1";
    BuildStatement b;
    b.outputs = {odd_path};
    b.rule = "r";
    b.inputs = {"in put", "x$y"};
    b.bindings = {Binding{"V", odd, true}};
    std::string text = "rule r\n  command = [$V] $in $out\n" + render(b).value();
    auto m = parse_ok(text);
    CHECK(m.edge(0).binding("V")->value == odd);
    CHECK(m.edge(0).outputs()[0] == odd_path);
    CHECK(eval(m, odd_path, "command") ==
          "[" + odd + "] 'in put' 'x$y' 'dir with space/$weird:name#1'");
}

TEST_CASE("ninja writer: every statement kind renders in ninja's layout") {
    RuleStatement r{"cc", {{"command", "cc $in -o $out"}, {"deps", "gcc"}}};
    BuildStatement b{{"o"}, {"o.d"}, "cc", {"i"}, {"h"}, {"oo"}, {"v"}, {{"FLAGS", "-O2"}}};
    CHECK(render(r).value() == "rule cc\n  command = cc $in -o $out\n  deps = gcc\n");
    CHECK(render(b).value() == "build o | o.d: cc i | h || oo |@ v\n  FLAGS = -O2\n");
    CHECK(render(PoolStatement{"p", 2}).value() == "pool p\n  depth = 2\n");
    CHECK(render(DefaultStatement{{"a", "b c"}}).value() == "default a b$ c\n");
    CHECK(render(IncludeStatement{"r.ninja", false}).value() == "include r.ninja\n");
    CHECK(render(IncludeStatement{"s.ninja", true}).value() == "subninja s.ninja\n");
    CHECK(render(Binding{"x", "$y"}).value() == "x = $y\n");
    CHECK(render(RawStatement{"# c\n\n"}).value() == "# c\n\n");
}

TEST_CASE("ninja writer: bad statements are errors naming the field") {
    CHECK(render(Binding{"build", "x"}).error().message ==
          "'build' cannot be a top-level variable name");
    CHECK(render(Binding{"a b", "x"}).error().message == "invalid variable name 'a b'");
    CHECK(render(Binding{"v", "x\ny"}).error().message ==
          "binding 'v': value 'x\ny' contains an unescaped line break");
    CHECK(render(Binding{"v", "$!"}).error().message ==
          "binding 'v': value '$!' is not valid ninja text");
    CHECK(render(BuildStatement{{}, {}, "r", {}, {}, {}, {}, {}}).error().message ==
          "build statement has no outputs");
    CHECK(render(BuildStatement{{"a|b"}, {}, "r", {}, {}, {}, {}, {}}).error().message ==
          "path 'a|b' contains '|', which ninja cannot express in a path");
    CHECK(render(RawStatement{"# no newline"}).error().message ==
          "raw statement text must end in a newline");
}

TEST_CASE("ninja writer: edits replace, insert and remove statements") {
    std::string text = "# head\nrule r\n  command = c $in\n\nbuild a: r x\nbuild b: r y\n";
    auto m = parse_ok(text);
    StatementRef a = m.edge(0).statement(), b = m.edge(1).statement();
    REQUIRE(m.replace(a, {BuildStatement{{"a1"}, {}, "r", {"x"}, {}, {}, {}, {}},
                          BuildStatement{{"a2"}, {}, "r", {"a1"}, {}, {}, {}, {}}})
                .ok());
    REQUIRE(m.insert_before(a, {RawStatement{"# split\n"}}).ok());
    REQUIRE(m.insert_after(b, {Binding{"z", "1"}}).ok());
    REQUIRE(m.append(0, {DefaultStatement{{"a2"}}}).ok());
    REQUIRE(m.insert_before({0, 1}, {PoolStatement{"p", 1}}).ok());
    CHECK(m.edited(0));
    CHECK(m.write_file(0) == "# head\npool p\n  depth = 1\nrule r\n  command = c $in\n\n"
                             "# split\nbuild a1: r x\nbuild a2: r a1\nbuild b: r y\nz = 1\n"
                             "default a2\n");
    m.remove(b);
    auto again = reparse(m);
    REQUIRE(again.ok());
    CHECK(again->edge_count() == 2);
    CHECK(eval(*again, "a2", "command") == "c a1");
    CHECK(again->defaults() == std::vector<std::string_view>{"a2"});
    // A failed edit changes nothing.
    std::string before = m.write_file(0);
    CHECK_FALSE(m.append(0, {Binding{"ok", "1"}, Binding{"bad name", "1"}}).ok());
    CHECK(m.write_file(0) == before);
}

TEST_CASE("ninja writer: parse -> write -> parse keeps the graph and the commands") {
    std::string text = "cflags = -O2 $\n  -g\n"
                       "rule cc\n  command = cc $cflags $FLAGS -c $in -o $out\n"
                       "  depfile = $out.d\n  deps = gcc\n"
                       "build a$ b.o | a.d: cc a$ b.c | h.h || gen\n  FLAGS = -DX=\"$$y\"\n"
                       "build gen: phony\n"
                       "default a$ b.o\n";
    auto m = parse_ok(text);
    CHECK(m.write_file(0) == text);
    // Rebuild the same manifest from structured values and compare graphs.
    std::vector<NewStatement> all;
    all.push_back(Binding{"cflags", std::string(*m.variable("cflags")), true});
    for (const Rule& r : m.rules()) {
        if (r.is_phony()) continue;
        RuleStatement rs{std::string(r.name), {}};
        for (const RuleBinding& b : r.bindings) {
            rs.bindings.push_back({std::string(b.name), to_ninja_text(b.value)});
            CHECK(r.source(b.name) == b.source);
        }
        all.push_back(rs);
    }
    auto strs = [](std::vector<std::string_view> v) {
        return std::vector<std::string>(v.begin(), v.end());
    };
    for (size_t i = 0; i < m.edge_count(); ++i) {
        EdgeRef e = m.edge(i);
        BuildStatement b{strs(e.outputs()),          strs(e.implicit_outputs()),
                         std::string(e.rule().name), strs(e.inputs()),
                         strs(e.implicit_inputs()),  strs(e.order_only()),
                         strs(e.validations()),      {}};
        for (const auto& eb : e.bindings())
            b.bindings.push_back({std::string(eb.name), std::string(eb.value), true});
        all.push_back(b);
    }
    for (auto d : m.defaults())
        all.push_back(DefaultStatement{{std::string(d)}});
    auto fresh = parse_manifest("");
    REQUIRE(fresh.ok());
    REQUIRE(fresh->append(0, all).ok());
    auto n = reparse(*fresh);
    REQUIRE(n.ok());
    REQUIRE(n->edge_count() == m.edge_count());
    for (size_t i = 0; i < m.edge_count(); ++i) {
        CHECK(n->edge(i).outputs() == m.edge(i).outputs());
        CHECK(n->edge(i).inputs() == m.edge(i).inputs());
        CHECK(n->edge(i).implicit_inputs() == m.edge(i).implicit_inputs());
        CHECK(n->edge(i).order_only() == m.edge(i).order_only());
        for (const char* var : {"command", "depfile", "deps"})
            CHECK(n->edge(i).evaluate(var).value() == m.edge(i).evaluate(var).value());
    }
    CHECK(eval(*n, "a b.o", "command") == "cc -O2 -g -DX=\"$y\" -c 'a b.c' -o 'a b.o'");
    CHECK(n->defaults() == m.defaults());
}

TEST_CASE("ninja writer: edits in an included file, seen through reparse") {
    std::map<std::string, std::string> files = {{"rules.ninja", "rule cc\n  command = cc $in\n"}};
    auto m = parse_ok("include rules.ninja\nbuild a.o: cc a.c\n  FLAGS = -O2 $$x\n", files);
    const uint32_t rules = 1; // files in the order they were loaded
    REQUIRE(m.files().size() == 2);
    CHECK(m.files()[rules].path == "rules.ninja");
    REQUIRE(m.append(rules, {RuleStatement{"link", {{"command", "ld $in -o $out"}}}}).ok());
    EdgeRef a = m.edge(0);
    BuildStatement copy{{"a2.o"}, {}, "cc", {"a.c"}, {}, {}, {}, {}};
    for (const auto& b : a.bindings())
        copy.bindings.push_back({std::string(b.name), std::string(b.source)});
    REQUIRE(
        m.insert_after(a.statement(),
                       {copy, BuildStatement{{"app"}, {}, "link", {"a.o", "a2.o"}, {}, {}, {}, {}}})
            .ok());
    CHECK(m.edited(0));
    CHECK(m.edited(1));
    CHECK(m.write_file(1) ==
          "rule cc\n  command = cc $in\nrule link\n  command = ld $in -o $out\n");
    auto n = reparse(m);
    REQUIRE(n.ok());
    REQUIRE(n->edge_count() == 3);
    CHECK(eval(*n, "app", "command") == "ld a.o a2.o -o app");
    CHECK(n->edge(1).binding("FLAGS")->value == "-O2 $x");
}

TEST_CASE("ninja writer: to_ninja_text parses back to the same string") {
    auto m = parse_ok("rule r\n  command = $ $ lead a$$b ${x}y$z.w c$:d  $\n  e\n");
    const Rule* r = m.find_rule("r");
    REQUIRE(r);
    CHECK(*r->source("command") == "$ $ lead a$$b ${x}y$z.w c$:d  $\n  e");
    std::string text = to_ninja_text(*r->binding("command"));
    CHECK(text == "$ $ lead a$$b ${x}y${z}.w c:d  e");
    auto n = parse_ok("rule r\n  command = " + text + "\nbuild o: r\n  x = X\n  z = Z\n");
    auto o = parse_ok("rule r\n  command = " + std::string(*r->source("command")) +
                      "\nbuild o: r\n  x = X\n  z = Z\n");
    CHECK(eval(n, "o", "command") == "  lead a$b XyZ.w c:d  e");
    CHECK(eval(n, "o", "command") == eval(o, "o", "command"));
}

TEST_CASE("ninja writer: raw values are accepted exactly when ninja parses them") {
    // Each value is rendered as a binding and, when accepted, must parse back
    // with the same text: the quick check and the lexer agree.
    for (std::string v : {"",       "a",      "$$",   "$ x",   "$:",   "$a",
                          "${a}",   "${a.b}", "$a.b", "$-x",   "$a$b", "x ${PHC_ARCH}.o",
                          "$",      "a$",     "${",   "${a",   "${}",  "${a b}",
                          "$.",     "$!",     "$\n",  "a$\nb", "x\ry", "x\r\ny",
                          "$\r\nz", "$$$"}) {
        auto r = render(Binding{"v", v});
        auto m = parse(r.ok() ? *r : "v = " + v + "\n");
        CHECK_MESSAGE(r.ok() == m.ok(), "value '", v, "'");
    }
    CHECK(render(Binding{"v", "a$\nb"}).ok()); // a continuation inside the value
    CHECK_FALSE(render(Binding{"v", "${a"}).ok());
    CHECK_FALSE(render(Binding{"v", "$"}).ok());
}

TEST_CASE("render_to appends, and leaves the buffer alone on an error") {
    std::string out = "# head\n";
    REQUIRE(render_to(out, Binding{"x", "1"}).ok());
    CHECK(out == "# head\nx = 1\n");
    CHECK_FALSE(render_to(out, BuildStatement{{"o"}, {}, "r", {"a|b"}, {}, {}, {}, {}}).ok());
    CHECK(out == "# head\nx = 1\n");
}
