#include "launch/trace.h"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace phc::launch;

TEST_CASE("trace: ninja log v5 lines, header once, the hash column the command's") {
    std::string line = trace_line(1000, 2500, "obj/k.o::gfx90a", "clang -o a");
    CHECK(line.starts_with("1000\t2500\t2500\tobj/k.o::gfx90a\t"));
    CHECK(line.size() == std::string("1000\t2500\t2500\tobj/k.o::gfx90a\t").size() + 16 + 1);
    CHECK(line != trace_line(1000, 2500, "obj/k.o::gfx906", "clang -o b"));
    // The fourth column is .ninja_log's command hash: of the command, not the name.
    auto hash = [](const std::string& l) { return l.substr(l.rfind('\t') + 1); };
    CHECK(hash(trace_line(1, 2, "x", "clang -o a")) == hash(trace_line(1, 2, "y", "clang -o a")));
    CHECK(hash(trace_line(1, 2, "x", "clang -o a")) != hash(trace_line(1, 2, "x", "clang -o b")));

    std::string path = "/tmp/phc-unit-trace-" + std::to_string(::getpid()) + ".log";
    ::unlink(path.c_str());
    REQUIRE(append_trace(path, trace_line(1, 2, "a", "ca")).ok());
    REQUIRE(append_trace(path, trace_line(2, 3, "b", "cb")).ok());
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    CHECK(ss.str() ==
          "# ninja log v5\n" + trace_line(1, 2, "a", "ca") + trace_line(2, 3, "b", "cb"));
    ::unlink(path.c_str());
    auto bad = append_trace("/nonexistent/dir/t.log", "x");
    REQUIRE_FALSE(bad.ok());
    CHECK(bad.error().text().starts_with("/nonexistent/dir/t.log: cannot open trace log: "));
}
