#include "compile/command.h"
#include "compile/shell.h"

#include <doctest/doctest.h>

using namespace phc::compile;

namespace {

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> w;
    std::string err = split_words(s, w);
    REQUIRE_MESSAGE(err.empty(), err);
    return w;
}

std::string unsupported(std::string_view s) {
    return split_shell(s).unsupported;
}

} // namespace

TEST_CASE("split_words follows sh quoting") {
    CHECK(words("a b\tc\n d") == std::vector<std::string>{"a", "b", "c", "d"});
    CHECK(words("'a b' \"c d\" e\\ f") == std::vector<std::string>{"a b", "c d", "e f"});
    CHECK(words("'it'\\''s'") == std::vector<std::string>{"it's"});
    CHECK(words("\"a\\\"b\\\\c\\d\"") == std::vector<std::string>{"a\"b\\c\\d"});
    CHECK(words("-I'../inc dir' x''y ''") == std::vector<std::string>{"-I../inc dir", "xy", ""});
    CHECK(words("a\\\nb") == std::vector<std::string>{"ab"});
    CHECK(words("a#b c") == std::vector<std::string>{"a#b", "c"});
    CHECK(words("  ").empty());
}

TEST_CASE("split_shell reports what it cannot resolve") {
    CHECK(unsupported("cc $CFLAGS x.c") != "");
    CHECK(unsupported("cc \"$X\"") != "");
    CHECK(unsupported("cc `pwd`") != "");
    CHECK(unsupported("cc *.c") != "");
    CHECK(unsupported("cc x.c # comment") != "");
    CHECK(unsupported("cc ~/x.c") != "");
    CHECK(unsupported("A=~/x cc") != "");
    CHECK(unsupported("cc 'open") != "");
    CHECK(unsupported("cc \"open") != "");
    CHECK(unsupported("cc '$X' '*' a~b") == "");
}

TEST_CASE("split_shell finds operators and assignments") {
    ShellSplit s = split_shell("cd b&&A=1 'B=2' C=\"3 4\" cc>x");
    REQUIRE(s.unsupported.empty());
    REQUIRE(s.tokens.size() == 9);
    CHECK(s.tokens[2].kind == ShellToken::Kind::Operator);
    CHECK(s.tokens[2].text == "&&");
    CHECK(s.tokens[3].assignment);
    CHECK_FALSE(s.tokens[4].assignment);
    CHECK(s.tokens[5].assignment); // C="3 4": only the value is quoted
    CHECK(s.tokens[5].text == "C=3 4");
    CHECK_FALSE(split_shell("C\"=3\" x").tokens[0].assignment); // a quoted = is no assignment
    CHECK(s.tokens[6].text == "cc");
    CHECK(s.tokens[7].text == ">");
    CHECK(s.tokens[8].text == "x");
    std::vector<std::string> w;
    CHECK(split_words("a | b", w) != "");
}

TEST_CASE("quoting is minimal and round-trips") {
    CHECK(quote_word("abc-1.2/x+y:z,w@v%=") == "abc-1.2/x+y:z,w@v%=");
    CHECK(quote_word("") == "''");
    CHECK(quote_word("a b") == "'a b'");
    CHECK(quote_word("it's") == "'it'\\''s'");
    CHECK(quote_word("-###") == "'-###'");
    CHECK(join_command({"A=b", "c"}) == "'A=b' c");
    CHECK(join_command({"if", "x"}) == "'if' x");
    CHECK(quote_assignment("X=a b") == "X='a b'");
    const std::vector<std::vector<std::string>> cases = {
        {"cc", "-DX=\"q\"", "a b", "", "$HOME", "`x`", "*", "~", "#", "it's", "\\", "\n", "a;b"},
        {"A=1", "{", "!", "-I../inc dir", "tab\there", "\"'\"'"},
    };
    for (const auto& argv : cases) {
        std::vector<std::string> back;
        CHECK(split_words(join_command(argv), back) == "");
        CHECK(back == argv);
    }
}

TEST_CASE("recognise: cd, assignments, env and launchers") {
    Recognised r = recognise("cd 'b 1' && X=1 ccache /usr/bin/clang++-15 -c a.hip");
    REQUIRE(r.command);
    CHECK(r.command->cwd == "b 1");
    CHECK(r.command->env == std::vector<std::string>{"X=1"});
    CHECK(r.command->launcher == std::vector<std::string>{"ccache"});
    CHECK(r.command->launcher_kind == LauncherKind::Ccache);
    CHECK(r.command->argv[0] == "/usr/bin/clang++-15");
    CHECK(r.command->compiler == CompilerKind::Clang);

    r = recognise("env A=1 B=2 sccache hipcc -c a.hip");
    REQUIRE(r.command);
    CHECK(r.command->env == std::vector<std::string>{"A=1", "B=2"});
    CHECK(r.command->launcher_kind == LauncherKind::Sccache);
    CHECK(r.command->compiler == CompilerKind::Hipcc);

    r = recognise("/usr/bin/cmake -E env CCACHE_X=1 /usr/bin/ccache clang++ -c a.hip");
    REQUIRE(r.command);
    CHECK(r.command->env == std::vector<std::string>{"CCACHE_X=1"});
    CHECK(r.command->launcher == std::vector<std::string>{"/usr/bin/ccache"});

    r = recognise("distcc g++ -c a.cpp");
    REQUIRE(r.command);
    CHECK(r.command->launcher_kind == LauncherKind::Distcc);
    CHECK(r.command->compiler == CompilerKind::Unknown);
}

TEST_CASE("recognise leaves structure alone with a reason") {
    for (const char* c :
         {"clang++ -c a.hip && touch x", "clang++ -c a.hip; true", "clang++ -c a.hip | cat",
          "clang++ -c a.hip > log", "(clang++ -c a.hip)", "cd a && cd b && clang++ -c a.hip",
          "clang++ -c $SRC", "env -i clang++ -c a", "ccache sccache clang++ -c a.hip", "ccache",
          "A=1"}) {
        Recognised r = recognise(c);
        CHECK_MESSAGE(!r.command, c);
        CHECK_MESSAGE(!r.reason.empty(), c);
    }
}

TEST_CASE("compiler and launcher names") {
    CHECK(compiler_kind("clang++-15") == CompilerKind::Clang);
    CHECK(compiler_kind("/usr/lib/llvm-19/bin/clang++") == CompilerKind::Clang);
    CHECK(compiler_kind("clang-19.1") == CompilerKind::Clang);
    CHECK(compiler_kind("/opt/rocm/bin/hipcc") == CompilerKind::Hipcc);
    CHECK(compiler_kind("g++") == CompilerKind::Unknown);
    CHECK(compiler_kind("clang-tidy") == CompilerKind::Unknown);
    CHECK(launcher_kind("/usr/bin/ccache") == LauncherKind::Ccache);
    CHECK(launcher_kind("clang") == LauncherKind::None);
}

TEST_CASE("quoting round-trips random words; the lexer never crashes on random input") {
    const std::string chars = "aZ09_-./=:+,@% \t\n'\"\\$`*?[]~#&|;<>(){}!";
    unsigned state = 12345;
    auto next = [&] { return state = state * 1103515245u + 12345u, (state >> 16) & 0x7fff; };
    for (int round = 0; round < 2000; ++round) {
        std::vector<std::string> argv(1 + next() % 5);
        for (auto& w : argv)
            for (unsigned n = next() % 8; n > 0; --n)
                w += chars[next() % chars.size()];
        std::vector<std::string> back;
        std::string line = join_command(argv);
        REQUIRE_MESSAGE(split_words(line, back) == "", line);
        REQUIRE_MESSAGE(back == argv, line);
        ShellSplit s = split_shell(argv[0] + argv.back()); // arbitrary text: any outcome, no crash
        CHECK((s.unsupported.empty() || s.tokens.size() < 1000));
    }
}
