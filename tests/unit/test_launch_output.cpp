#include "launch/output.h"
#include "split/plan.h"

#include <doctest/doctest.h>

using namespace phc::launch;

namespace {
const char* kWarn = "k.hip:3:5: warning: unused variable 'x' [-Wunused-variable]\n"
                    "    int x;\n"
                    "        ^\n";
const char* kOnly90a = "k.hip:7:2: error: gfx90a only\n"
                       "#error gfx90a only\n"
                       " ^\n";
} // namespace

TEST_CASE("output: blocks keep source lines, carets, notes and include stacks") {
    std::string text = std::string("In file included from k.hip:1:\n") +
                       "./h.h:2:1: warning: w [-Wx]\n" + "x\n" + " ^\n" +
                       "./h.h:1:1: note: declared here\n" + kWarn + "1 warning generated.\n";
    auto blocks = split_blocks(text);
    REQUIRE(blocks.size() == 4);
    CHECK(blocks[0].starts_with("In file included from"));
    CHECK(blocks[1] == "x\n ^\n./h.h:1:1: note: declared here\n"); // 'x' is not indented
    CHECK(blocks[2] == kWarn);
    CHECK(blocks[3] == "1 warning generated.\n");
}

TEST_CASE("output: a warning every architecture prints is shown once, plain") {
    std::string w = std::string(kWarn) + "1 warning generated.\n";
    auto merged = merge_outputs({{"gfx906", w}, {"gfx90a", w}, {"gfx1030", w}});
    CHECK(merged == w);
}

TEST_CASE("output: what differs is shown with the architecture named") {
    std::string a = std::string(kWarn) + "1 warning generated.\n";
    std::string b = std::string(kWarn) + kOnly90a + "1 warning and 1 error generated.\n";
    auto merged = merge_outputs({{"gfx906", a}, {"gfx90a", b}});
    CHECK(merged == std::string(kWarn) + "[gfx906] 1 warning generated.\n" +
                        "[gfx90a] k.hip:7:2: error: gfx90a only\n" +
                        "[gfx90a] #error gfx90a only\n" + "[gfx90a]  ^\n" +
                        "[gfx90a] 1 warning and 1 error generated.\n");
}

TEST_CASE("output: incomplete runs and single outputs are all prefixed") {
    std::string w = kWarn;
    CHECK(merge_outputs({{"gfx90a", w}}) == prefix_lines(w, "gfx90a"));
    CHECK(merge_outputs({{"a", w}, {"b", w}}, false) == prefix_lines(w, "a, b"));
    CHECK(merge_outputs({{"a", ""}, {"b", ""}}).empty());
    CHECK(prefix_lines("no newline", "x") == "[x] no newline\n");
}

TEST_CASE("output: repeated blocks are matched one for one") {
    std::string twice = std::string(kWarn) + kWarn;
    auto merged = merge_outputs({{"a", twice}, {"b", kWarn}});
    CHECK(merged == std::string(kWarn) + prefix_lines(kWarn, "a"));
}

TEST_CASE("output: blocks that differ only by the architecture's name are merged") {
    auto merged = merge_outputs({{"gfx906", "1 warning generated when compiling for gfx906.\n"},
                                 {"gfx90a", "1 warning generated when compiling for gfx90a.\n"}});
    CHECK(merged == "1 warning generated when compiling for gfx906, gfx90a.\n");
    // A longer target ID is not mistaken for its prefix.
    auto ids = merge_outputs({{"gfx90a", "for gfx90a:xnack+ and gfx90a\n"},
                              {"gfx90a:xnack+", "for gfx90a:xnack+ and gfx90a\n"}});
    CHECK(ids == "[gfx90a] for gfx90a:xnack+ and gfx90a\n"
                 "[gfx90a:xnack+] for gfx90a:xnack+ and gfx90a\n");
    auto one = merge_outputs({{"gfx906", "x for gfx906\n"}, {"gfx90a", "y for gfx90a\n"}});
    CHECK(one == "[gfx906] x for gfx906\n[gfx90a] y for gfx90a\n");
}

TEST_CASE("output: the host compile's copy of a device diagnostic is shown once with them") {
    auto w = [](const char* label) {
        return std::string(kWarn) + "1 warning generated when compiling for " + label + ".\n";
    };
    CHECK(merge_outputs({{"gfx906", w("gfx906")}, {"gfx90a", w("gfx90a")}, {"host", w("host")}}) ==
          std::string(kWarn) + "1 warning generated when compiling for gfx906, gfx90a, host.\n");
    // What only some printed is shown once, naming them.
    CHECK(merge_outputs({{"gfx906", w("gfx906")}, {"gfx90a", w("gfx90a")}, {"host", ""}}) ==
          prefix_lines(std::string(kWarn) + "1 warning generated when compiling for gfx906, "
                                            "gfx90a.\n",
                       "gfx906, gfx90a"));
    // The host compile's own diagnostics are plain, as the driver prints them.
    CHECK(merge_outputs({{"gfx906", ""}, {"gfx90a", ""}, {"host", w("host")}}) == w("host"));
    // "host" elsewhere is a word like any other: a path naming it still matches.
    const std::string path = "src/host/h.h:1:1: warning: w [-Wx]\n";
    CHECK(merge_outputs({{"gfx906", path}, {"host", path}}) == path);
    CHECK(std::string(phc::split::step_kind_name(phc::split::StepKind::Host)) == kHostLabel);
}
