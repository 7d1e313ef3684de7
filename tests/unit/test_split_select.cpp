#include "split/select.h"

#include <doctest/doctest.h>

using phc::split::Selection;

TEST_CASE("select: --only and --skip match anywhere in the object path (RE2)") {
    CHECK(Selection().why_not("a.o").empty()); // no patterns: every object

    auto only = Selection::make("kernels/.*\\.o$", "");
    REQUIRE(only.ok());
    CHECK(only->why_not("obj/kernels/big.hip.o").empty());
    CHECK(only->why_not("obj/small.hip.o") ==
          "--only 'kernels/.*\\.o$' does not match obj/small.hip.o");

    auto skip = Selection::make("", "small");
    REQUIRE(skip.ok());
    CHECK(skip->why_not("obj/big.o").empty());
    CHECK(skip->why_not("obj/small.o") == "--skip 'small' matches obj/small.o");

    auto both = Selection::make("kernels", "tiny");
    REQUIRE(both.ok());
    CHECK(both->why_not("kernels/a.o").empty());
    CHECK_FALSE(both->why_not("kernels/tiny.o").empty());
    CHECK_FALSE(both->why_not("other/a.o").empty());
    CHECK(both->only() == "kernels");
    CHECK(both->skip() == "tiny");
}

TEST_CASE("select: a bad pattern is an error naming its option") {
    auto bad = Selection::make("(", "");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().message.starts_with("--only: '(' is not a regular expression ("));
    CHECK(bad.error().message.find('\n') == std::string::npos);
    auto bad_skip = Selection::make("ok", "a[");
    REQUIRE_FALSE(bad_skip.ok());
    CHECK(bad_skip.error().message.starts_with("--skip: 'a[' is not a regular expression ("));
}
