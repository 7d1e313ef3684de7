#include "launch/makeflags.h"

#include <doctest/doctest.h>

using namespace phc::launch;
using Kind = JobserverAuth::Kind;

TEST_CASE("makeflags: make 4.3 pipe form with -jN") {
    auto m = parse_makeflags(" -j2 --jobserver-auth=3,4");
    CHECK(m.auth.kind == Kind::Pipe);
    CHECK(m.auth.read_fd == 3);
    CHECK(m.auth.write_fd == 4);
    CHECK(m.auth.text == "--jobserver-auth=3,4");
    REQUIRE(m.jobs);
    CHECK(*m.jobs == 2);
}

TEST_CASE("makeflags: fifo form, old --jobserver-fds form, flag cluster word") {
    auto f = parse_makeflags("k -j8 --jobserver-auth=fifo:/tmp/GMfifo1234");
    CHECK(f.auth.kind == Kind::Fifo);
    CHECK(f.auth.path == "/tmp/GMfifo1234");
    CHECK(*f.jobs == 8);
    auto o = parse_makeflags("-j3 --jobserver-fds=5,6");
    CHECK(o.auth.kind == Kind::Pipe);
    CHECK(o.auth.read_fd == 5);
    CHECK(o.auth.write_fd == 6);
}

TEST_CASE("makeflags: the last jobserver option wins") {
    auto m = parse_makeflags("--jobserver-auth=fifo:/a --jobserver-fds=3,4 --jobserver-auth=7,8");
    CHECK(m.auth.kind == Kind::Pipe);
    CHECK(m.auth.read_fd == 7);
    auto n = parse_makeflags("--jobserver-auth=3,4 --jobserver-auth=fifo:/b");
    CHECK(n.auth.kind == Kind::Fifo);
    CHECK(n.auth.path == "/b");
}

TEST_CASE("makeflags: -j forms and no -j") {
    CHECK(*parse_makeflags(" -j1").jobs == 1);
    CHECK(*parse_makeflags(" -j").jobs == 0); // unlimited
    CHECK(*parse_makeflags("-j 5").jobs == 5);
    CHECK(*parse_makeflags("--jobs=6").jobs == 6);
    CHECK_FALSE(parse_makeflags("").jobs);
    CHECK_FALSE(parse_makeflags("k").jobs);
    CHECK(parse_makeflags("").auth.kind == Kind::None);
}

TEST_CASE("makeflags: malformed auth is Invalid, variables after -- are ignored") {
    CHECK(parse_makeflags("--jobserver-auth=gmake_semaphore_1").auth.kind == Kind::Invalid);
    CHECK(parse_makeflags("--jobserver-auth=3,x").auth.kind == Kind::Invalid);
    CHECK(parse_makeflags("--jobserver-auth=fifo:").auth.kind == Kind::Invalid);
    auto m = parse_makeflags("-j2 -- CFLAGS=--jobserver-auth=9,9");
    CHECK(m.auth.kind == Kind::None);
    CHECK(*m.jobs == 2);
}

TEST_CASE("makeflags: backslash-escaped blanks stay in the word") {
    auto words = split_makeflags("a\\ b  --jobserver-auth=fifo:/tmp/x\\ y");
    REQUIRE(words.size() == 2);
    CHECK(words[0] == "a b");
    CHECK(parse_makeflags("--jobserver-auth=fifo:/tmp/x\\ y").auth.path == "/tmp/x y");
}

TEST_CASE("makeflags: CARGO_MAKEFLAGS is used when MAKEFLAGS has no jobserver") {
    auto c = makeflags_from_env(nullptr, "-j4 --jobserver-auth=fifo:/c");
    CHECK(c.auth.kind == Kind::Fifo);
    CHECK(c.auth.path == "/c");
    auto both = makeflags_from_env("--jobserver-auth=3,4", "--jobserver-auth=fifo:/c");
    CHECK(both.auth.kind == Kind::Pipe);
    auto make_j = makeflags_from_env(" -j3", "k");
    CHECK(make_j.auth.kind == Kind::None);
    CHECK(*make_j.jobs == 3);
    CHECK(makeflags_from_env(nullptr, nullptr).auth.kind == Kind::None);
    CHECK_FALSE(makeflags_from_env(nullptr, nullptr).jobs);
}
