// ninja/build_log.h: reading .ninja_log (v5 of ninja 1.11, v6 of 1.12, v7 of 1.13).
#include "ninja/build_log.h"

#include <doctest/doctest.h>
#include <string>

using namespace phc::ninja;

namespace {

/// The entries of the last build as "output start end" lines.
std::string shown(const BuildLog& log) {
    std::string out;
    for (const auto& e : log.entries)
        out += e.output + " " + std::to_string(e.start) + " " + std::to_string(e.end) + "\n";
    return out;
}

} // namespace

TEST_CASE("build log: v5 (ninja 1.11), one build") {
    auto log = parse_log("# ninja log v5\n"
                         "0\t120\t1700000000123456789\ta.o\tdeadbeefdeadbeef\n"
                         "3\t250\t1700000000223456789\tdir/b c.o\t1234\n"
                         "121\t300\t0\tapp\tabc\n",
                         "b/.ninja_log");
    REQUIRE(log);
    CHECK(log->version == 5);
    CHECK(log->runs == 1);
    CHECK(shown(*log) == "a.o 0 120\ndir/b c.o 3 250\napp 121 300\n");
}

TEST_CASE("build log: v6 (ninja 1.12) and v7 (ninja 1.13, rapidhash) read alike") {
    for (std::string header : {"# ninja log v6\n", "# ninja log v7\n"}) {
        auto log = parse_log(header + "5\t10\t1712345678000000000\tx.o\t9a8b7c6d5e4f3a2b\n"
                                      "10\t40\t1712345679000000000\ty.o\tffffffffffffffff\n",
                             ".ninja_log");
        REQUIRE(log);
        CHECK(log->version == header[13] - '0');
        CHECK(shown(*log) == "x.o 5 10\ny.o 10 40\n");
    }
}

TEST_CASE("build log: several builds, the last one is kept (end times drop at each start)") {
    auto log = parse_log("# ninja log v5\n"
                         "0\t100\t1\ta.o\th\n"
                         "0\t900\t1\tb.o\th\n"
                         "1000\t1500\t1\tapp\th\n" // build 1
                         "0\t50\t2\ta.o\th\n"
                         "50\t400\t2\tapp\th\n" // build 2
                         "0\t70\t3\tb.o\th\n"
                         "70\t90\t3\tapp\th\n", // build 3
                         ".ninja_log");
    REQUIRE(log);
    CHECK(log->runs == 3);
    CHECK(shown(*log) == "b.o 0 70\napp 70 90\n");
}

TEST_CASE("build log: restat entries (an unchanged output logged again, mtime 0) stay steps") {
    // A restat edge whose output did not change is still logged with its run
    // times; an output logged twice in one build keeps its place, last times.
    auto log = parse_log("# ninja log v5\n"
                         "0\t10\t0\tgen.h\th1\n"
                         "10\t10\t0\tstamp\th2\n"
                         "10\t30\t55\tgen.h\th3\n",
                         ".ninja_log");
    REQUIRE(log);
    CHECK(log->runs == 1);
    CHECK(shown(*log) == "gen.h 10 30\nstamp 10 10\n");
}

TEST_CASE("build log: every output of a multi-output edge has its line") {
    auto log = parse_log("# ninja log v5\n"
                         "0\t80\t1\tk.o\th\n"
                         "0\t80\t1\tk.o.d\th\n"
                         "0\t80\t1\tk.o.phc/gfx906.o\th\n",
                         ".ninja_log");
    REQUIRE(log);
    CHECK(log->entries.size() == 3);
}

TEST_CASE("build log: short and empty lines are skipped; an empty log has no build") {
    auto log = parse_log("# ninja log v5\n\n0\t5\n1\t9\t2\tz.o\n", ".ninja_log");
    REQUIRE(log);
    CHECK(shown(*log) == "z.o 1 9\n");
    auto empty = parse_log("# ninja log v7\n", ".ninja_log");
    REQUIRE(empty);
    CHECK(empty->runs == 0);
    CHECK(empty->entries.empty());
}

TEST_CASE("build log: foreign, unsupported and damaged logs are one-line errors naming the file") {
    auto foreign = parse_log("{\"traceEvents\": []}\n", "b/.ninja_log");
    REQUIRE_FALSE(foreign);
    CHECK(format_error("", foreign.error()) ==
          "b/.ninja_log: error: not a ninja log (its first line is '{\"traceEvents\": []}', not "
          "'# ninja log vN')");
    auto future = parse_log("# ninja log v8\n", "b/.ninja_log");
    REQUIRE_FALSE(future);
    CHECK(format_error("", future.error()) ==
          "b/.ninja_log: error: ninja log version 8 is not supported (versions 4 to 7 are)");
    auto missing = read_log("/nonexistent-phc/.ninja_log", "build/.ninja_log");
    REQUIRE_FALSE(missing);
    CHECK(format_error("", missing.error()) ==
          "build/.ninja_log: error: cannot read the ninja log: No such file or directory");
}

TEST_CASE("build log: damaged lines are skipped as ninja skips them, never negative times") {
    // Not numbers, negative, an end before the start, beyond ninja's clock
    // (9223372036854775807 - -9223372036854775808 overflowed), between good lines.
    auto log = parse_log("# ninja log v5\n"
                         "0\t10\t2\ta.o\th\n"
                         "x\t1\t2\tb.o\th\n"
                         "-5\t3\t2\tc.o\th\n"
                         "12\t11\t2\td.o\th\n"
                         "-9223372036854775808\t9223372036854775807\t2\te.o\th\n"
                         "0\t9223372036854775807\t2\tf.o\th\n"
                         "3\t4294967297\t2\tg.o\th\n"
                         "20\t40\t2\th.o\th\n",
                         "b/.ninja_log");
    REQUIRE(log);
    CHECK(log->runs == 1);
    CHECK(shown(*log) == "a.o 0 10\nh.o 20 40\n");
    auto d = last_durations("# ninja log v5\n-9223372036854775808\t9223372036854775807\t0\te.o\t1\n"
                            "0\t4294967296\t0\tlong.o\t1\n");
    CHECK(d.size() == 1);
    CHECK(d.at("long.o") == 4294967296);
}

TEST_CASE("last_durations: each output's most recent time, over every build of the log") {
    const std::string text = "# ninja log v5\n"
                             "0\t100\t0\ta.o\t1\n"
                             "0\t500\t0\tb.o\t2\n"
                             "0\t70\t0\ta.o\t3\n" // a later build: a.o again
                             "garbage line\n"
                             "5\tx\t0\tc.o\t4\n";
    auto d = last_durations(text);
    CHECK(d.size() == 2);
    CHECK(d.at("a.o") == 70);
    CHECK(d.at("b.o") == 500);
    CHECK(last_durations("not a log\n0\t1\t0\ta.o\t1\n").empty());
    CHECK(last_durations("").empty());
}
