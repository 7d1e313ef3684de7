// Parsing every statement kind and keeping each statement's source text.
#include "test_ninja_util.h"

#include <cstdio>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace phc;
using namespace phc::ninja;
using phc::ninja::test::eval;
using phc::ninja::test::parse_ok;

TEST_CASE("ninja: rules keep every reserved binding unevaluated") {
    auto m = parse_ok("rule cc\n"
                      "  command = cc $in -o $out\n"
                      "  depfile = $out.d\n"
                      "  deps = gcc\n"
                      "  dyndep = dd\n"
                      "  description = CC $out\n"
                      "  generator = 1\n"
                      "  restat = 1\n"
                      "  rspfile = $out.rsp\n"
                      "  rspfile_content = $in\n"
                      "  pool = console\n"
                      "  msvc_deps_prefix = Note:\n");
    const Rule* r = m.find_rule("cc");
    REQUIRE(r != nullptr);
    CHECK(r->bindings.size() == 11);
    REQUIRE(r->binding("depfile") != nullptr);
    CHECK(r->binding("depfile")->parts.size() == 2);
    CHECK(r->binding("depfile")->parts[0].variable);
    CHECK(r->binding("depfile")->parts[0].text == "out");
    CHECK(m.find_rule("phony") != nullptr);
    CHECK(m.find_rule("nope") == nullptr);
}

TEST_CASE("ninja: build edges sort paths into explicit, implicit, order-only and validations") {
    auto m = parse_ok("rule r\n  command = x\n"
                      "build o1 o2 | io1 io2: r i1 i2 | ii1 || oo1 oo2 |@ v1\n"
                      "build i1: r\n");
    REQUIRE(m.edge_count() == 2);
    EdgeRef e = m.edge(0);
    using V = std::vector<std::string_view>;
    CHECK(e.outputs() == V{"o1", "o2"});
    CHECK(e.implicit_outputs() == V{"io1", "io2"});
    CHECK(e.inputs() == V{"i1", "i2"});
    CHECK(e.implicit_inputs() == V{"ii1"});
    CHECK(e.order_only() == V{"oo1", "oo2"});
    CHECK(e.validations() == V{"v1"});
    CHECK(e.rule().name == "r");
    auto i1 = m.find_node("i1");
    REQUIRE(i1);
    CHECK(m.producer(*i1) == 1);
    CHECK(m.producer(*m.find_node("i2")) == -1);
}

TEST_CASE("ninja: pools, console and defaults") {
    auto m = parse_ok("pool link\n  depth = 3\n"
                      "rule r\n  command = x\n  pool = link\n"
                      "build a: r\nbuild b: r\n  pool = console\nbuild c: r\n  pool =\n"
                      "default a b\ndefault ./c\n");
    REQUIRE(m.find_pool("link"));
    CHECK(m.find_pool("link")->depth == 3);
    CHECK(m.find_pool("console")->depth == 1);
    CHECK(m.pools()[static_cast<size_t>(m.edge(0).data().pool)].name == "link");
    CHECK(m.pools()[static_cast<size_t>(m.edge(1).data().pool)].name == "console");
    CHECK(m.edge(2).data().pool == -1); // an empty edge binding overrides the rule's
    CHECK(m.defaults() == std::vector<std::string_view>{"a", "b", "c"});
}

TEST_CASE("ninja: statements keep their exact text, trivia included") {
    std::string text = "# leading comment\n\n"
                       "x = 1 $\n    continued\n"
                       "rule r\n  # inside\n  command = x\n\n# between\n"
                       "build a: r\n  y = 2\n"
                       "   \n"
                       "default a\n";
    auto m = parse_ok(text);
    const auto& st = m.files()[0].statements;
    std::vector<StatementKind> kinds;
    for (const auto& s : st)
        kinds.push_back(s.kind);
    using K = StatementKind;
    CHECK(kinds == std::vector<K>{K::Trivia, K::Variable, K::Rule, K::Trivia, K::Build, K::Trivia,
                                  K::Default});
    CHECK(st[1].text == "x = 1 $\n    continued\n");
    CHECK(st[1].line == 3);
    CHECK(st[1].name == "x");
    CHECK(st[2].text == "rule r\n  # inside\n  command = x\n");
    CHECK(st[3].text == "\n# between\n");
    CHECK(st[4].text == "build a: r\n  y = 2\n");
    CHECK(st[4].target == 0);
    CHECK(st[4].line == 10);
    CHECK(m.edge(0).statement() == StatementRef{0, 4});
    CHECK(m.write_file(0) == text);
    CHECK(*m.variable("x") == "1 continued");
}

TEST_CASE("ninja: CRLF line ends and bytes after a NUL are kept") {
    std::string text = "rule r\r\n  command = a b\r\nbuild o: r\r\n";
    auto m = parse_ok(text);
    CHECK(eval(m, "o", "command") == "a b");
    CHECK(m.write_file(0) == text);
    std::string with_nul = std::string("rule r\n  command = x\n") + '\0' + "garbage";
    auto n = parse_ok(with_nul);
    CHECK(n.write_file(0) == with_nul);
}

TEST_CASE("ninja: include shares the scope, subninja opens a child scope") {
    std::map<std::string, std::string> files = {
        {"rules.ninja", "v = inc\nrule r\n  command = echo $v $w\n"},
        {"sub.ninja", "v = sub\nw = subw\nbuild s: r\nrule local\n  command = l\n"
                      "build t: local\n"}};
    auto m = parse_ok("w = top\ninclude rules.ninja\nbuild a: r\nsubninja sub.ninja\n"
                      "build b: r\n",
                      files);
    REQUIRE(m.files().size() == 3);
    CHECK(m.files()[1].path == "rules.ninja");
    CHECK(m.files()[1].parent == 0);
    CHECK(m.files()[1].scope == 0);
    CHECK(m.files()[2].scope == 1);
    CHECK(m.scopes()[1].parent == 0);
    CHECK(m.files()[0].statements[1].kind == StatementKind::Include);
    CHECK(m.files()[0].statements[1].target == 1);
    CHECK(m.files()[0].statements[3].kind == StatementKind::Subninja);
    CHECK(eval(m, "a", "command") == "echo inc top");
    CHECK(eval(m, "b", "command") == "echo inc top");
    CHECK(eval(m, "s", "command") == "echo sub subw"); // the sub file's scope comes first
    CHECK(*m.variable("v", 1) == "sub");
    CHECK(*m.variable("v", 0) == "inc");
    CHECK(m.find_rule("local", 1) != nullptr);
    CHECK(m.find_rule("local", 0) == nullptr);
}

TEST_CASE("ninja: keywords are only keywords as whole identifiers") {
    auto m = parse_ok("builder = 1\nrule_x = 2\nrule r\n  command = $builder $rule_x\n"
                      "build a: r\n");
    CHECK(eval(m, "a", "command") == "1 2");
}

TEST_CASE("ninja: required version") {
    parse_ok("ninja_required_version = 1.11\n");
    parse_ok("ninja_required_version = 1.13.1\n");
    CHECK(test::parse_error("ninja_required_version = 1.14\n") ==
          "build.ninja:1:30: error: ninja version (1.13) incompatible with build file "
          "ninja_required_version version (1.14)\n"
          "ninja_required_version = 1.14\n"
          "                             ^ near here");
}

TEST_CASE("ninja: a value's literal text is one part, whatever its ' ', ':' and '|'") {
    auto m = parse_ok("rule r\n  command = a b:c|d\n  description = x $out y\n");
    const Rule* r = m.find_rule("r");
    REQUIRE(r != nullptr);
    REQUIRE(r->binding("command")->single_literal() != nullptr);
    CHECK(*r->binding("command")->single_literal() == "a b:c|d");
    const auto& parts = r->binding("description")->parts;
    REQUIRE(parts.size() == 3);
    CHECK(parts[0].text == "x ");
    CHECK(parts[2].text == " y");
}

TEST_CASE("ninja: every stop character at every offset of a 16-byte block") {
    // The lexer scans literal runs a block at a time: put each character that
    // ends a run at each position of a line (and of the file) and compare the
    // value and the written text with what they must be.
    const std::string stops[] = {"$$", "$ ", "$:", "$v", "${v}", " ", ":", "|", "$\n  ", "\r\n"};
    const std::string meaning[] = {"$", " ", ":", "V", "V", " ", ":", "|", "", ""};
    for (size_t k = 0; k < std::size(stops); ++k) {
        for (size_t pad = 1; pad < 40; ++pad) { // (blanks right after "=" are dropped)
            std::string head = "v = V\nx = " + std::string(pad, 'a');
            std::string text = head + stops[k] + "/b\n";
            std::string want = std::string(pad, 'a') + meaning[k] + "/b";
            if (stops[k] == "\r\n") want = std::string(pad, 'a'); // the value ends there
            for (size_t lead = 0; lead < 16; ++lead) {
                std::string t = std::string(lead, '\n') + text;
                if (stops[k] == "\r\n") t = std::string(lead, '\n') + head + "\r\n";
                auto m = parse_ok(t);
                CAPTURE(t);
                CHECK(*m.variable("x") == want);
                CHECK(m.write_file(0) == t);
            }
        }
    }
    auto p = parse_ok("rule r\n  command = [$in] [$out]\n"
                      "build " +
                      std::string(13, 'o') + "$ o:  r " + std::string(17, 'i') + "$:i " +
                      std::string(31, 'j') + "|" + std::string(15, 'k') + "\n");
    CHECK(eval(p, std::string(13, 'o') + " o", "command") == "['" + std::string(17, 'i') + ":i' " +
                                                                 std::string(31, 'j') + "] ['" +
                                                                 std::string(13, 'o') + " o']");
}

namespace {

/// `text` padded with a comment line to exactly `size` bytes.
std::string sized(std::string text, size_t size) {
    REQUIRE(size >= text.size() + 2);
    return text + "#" + std::string(size - text.size() - 2, 'x') + "\n";
}

void write(const std::string& path, const std::string& text) {
    FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f != nullptr);
    CHECK(std::fwrite(text.data(), 1, text.size(), f) == text.size());
    std::fclose(f);
}

} // namespace

TEST_CASE("ninja: load_manifest reads the top file and includes from disk, any size") {
    // Files are mapped unless their last page has no room for the kTextPadding
    // NULs after the text (a whole number of pages, or fewer than 16 bytes
    // left): both ways must give the same manifest.
    char dir[] = "/tmp/phc-ninja-load-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string d = dir;
    REQUIRE(::mkdir((d + "/sub.d").c_str(), 0700) == 0);
    for (size_t size : {4080, 4081, 4095, 4096, 4097, 8192}) {
        CAPTURE(size);
        write(d + "/rules.ninja", sized("rule r\n  command = echo $in > $out\n", size));
        std::string top = sized("include " + d + "/rules.ninja\nbuild o: r i\n", size);
        write(d + "/build.ninja", top);
        auto m = load_manifest(d + "/build.ninja");
        REQUIRE_MESSAGE(m.ok(), m.error().text());
        CHECK(eval(*m, "o", "command") == "echo i > o");
        CHECK(m->write_file(0) == top);
        CHECK(m->write_file(1).size() == size);
        // No newline at the end: the text must still end in a NUL for the lexer.
        write(d + "/build.ninja", sized("rule r\n  command = x\n", size - 12) + "build p: r j");
        const Error e = load_manifest(d + "/build.ninja").error();
        CHECK(e.where + ": error: " + e.message == d + "/build.ninja:4:13: error: unexpected EOF");
    }
    write(d + "/build.ninja", "rule r\n  command = x\nbuild p: r j\n");
    CHECK(load_manifest(d + "/build.ninja").ok());
    CHECK(format_error("", load_manifest(d + "/none.ninja").error()) ==
          d + "/none.ninja: error: loading '" + d + "/none.ninja': No such file or directory");
    write(d + "/build.ninja", "include " + d + "/sub.d\n");
    const Error bad = load_manifest(d + "/build.ninja").error();
    CHECK(bad.where + ": error: " + bad.message ==
          d + "/build.ninja:1:" + std::to_string(d.size() + 15) + ": error: loading '" + d +
              "/sub.d': Is a directory");
    std::filesystem::remove_all(d);
}
