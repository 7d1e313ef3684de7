// Canonical paths and shell quoting of $in/$out (ninja/paths.h).
#include "ninja/paths.h"

#include <doctest/doctest.h>
#include <string>

using namespace phc::ninja;

namespace {

/// ninja's GetShellEscapedString, written the plain way.
std::string quoted(std::string_view s) {
    bool safe = true;
    for (char c : s)
        safe =
            safe && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                     c == '_' || c == '+' || c == '-' || c == '.' || c == '/');
    if (safe) return std::string(s);
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

} // namespace

TEST_CASE("ninja paths: shell quoting for every byte at every position and alignment") {
    // Quoting checks whole 16-byte blocks: put each byte value at each position
    // of paths of several lengths and alignments, with quotable bytes around.
    std::string buffer(96, '#');
    for (size_t align = 0; align < 16; ++align) {
        for (size_t len : {1, 2, 15, 16, 17, 33}) {
            for (size_t pos = 0; pos < len; ++pos) {
                for (int c = 1; c < 256; ++c) {
                    std::string_view s(buffer.data() + 16 + align, len);
                    buffer.replace(16 + align, len, len, 'a');
                    buffer[16 + align + pos] = static_cast<char>(c);
                    std::string out = "x";
                    append_shell_escaped(out, s);
                    if (out != "x" + quoted(s)) FAIL_CHECK("wrong quoting of '" << s << "'");
                }
            }
        }
    }
    std::string out;
    append_shell_escaped(out, "");
    CHECK(out.empty());
    append_shell_escaped(out, "it's");
    CHECK(out == "'it'\\''s'");
}

TEST_CASE("ninja paths: a path said to need no canonicalisation is canonical") {
    // Every path over {a . /} up to 7 characters: needs_canonicalization() may
    // only say no when canonicalize_path() leaves the path as it is.
    size_t kept = 0, total = 0;
    for (size_t len = 1; len <= 7; ++len) {
        size_t count = 1;
        for (size_t i = 0; i < len; ++i)
            count *= 3;
        for (size_t n = 0; n < count; ++n) {
            std::string p;
            for (size_t i = 0, k = n; i < len; ++i, k /= 3)
                p += "a./"[k % 3];
            ++total;
            if (needs_canonicalization(p)) continue;
            ++kept;
            if (canonicalize_path(p) != p) FAIL_CHECK("'" << p << "' is not canonical");
        }
    }
    CHECK(kept > total / 10); // and it does say no often
    CHECK_FALSE(needs_canonicalization("CMakeFiles/lib0.dir/src/k0.hip.o"));
    CHECK_FALSE(needs_canonicalization("/abs/.hidden/..x/x.."));
    for (const char* p : {"a//b", "a/", "./a", "a/./b", "a/../b", "a/.", "a/..", ".", ".."})
        CHECK_MESSAGE(needs_canonicalization(p), p);
}

TEST_CASE("shell escaping finds one unsafe byte at any place of any length") {
    for (size_t n = 1; n <= 40; ++n) {
        std::string safe(n, 'a');
        std::string out;
        append_shell_escaped(out, safe);
        CHECK(out == safe);
        for (size_t at = 0; at < n; ++at) {
            std::string s = safe;
            s[at] = ' ';
            out.clear();
            append_shell_escaped(out, s);
            CAPTURE(n);
            CAPTURE(at);
            CHECK(out == "'" + s + "'");
        }
    }
}

TEST_CASE("ninja paths: \"/\" and what folds to it become \"\", as in ninja 1.11") {
    // ninja 1.11.1's CanonicalizePath (src/util.cc) steps over a leading '/',
    // then ends with len = dst - start - 1: with nothing kept after the '/' the
    // length is 0 (`ninja -t query` lists such inputs as empty names). ninja
    // 1.12 keeps "/".
    for (const char* p : {"/", "//", "/.", "/./", "/a/..", "/a/../", "//a/b/../.."})
        CHECK_MESSAGE(canonicalize_path(p).empty(), p);
    CHECK(canonicalize_path("/..") == "/..");
    CHECK(canonicalize_path("/a/../b") == "/b");
    CHECK(canonicalize_path("//a") == "/a");
    CHECK(canonicalize_path("a/..") == ".");
    CHECK(canonicalize_path("").empty());
}
