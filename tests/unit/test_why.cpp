// phc-ninja why (why/why.h): which inputs make an output dirty, with the
// times and logs given by the test.
#include "ninja/deps_log.h"
#include "ninja/manifest.h"
#include "why/why.h"

#include <cstring>
#include <doctest/doctest.h>
#include <map>
#include <string>
#include <vector>

using namespace phc;

namespace {

/// The files' times for the walk (0: missing).
std::map<std::string, int64_t> g_times;
int64_t fake_mtime(const std::string& path) {
    auto it = g_times.find(path);
    return it == g_times.end() ? 0 : it->second;
}

/// A split object as regen writes it: two device edges recording one header
/// set each, a bundle, a host edge; the sets file's phony edges.
constexpr const char* kManifest = R"(rule cc
  command = cc $in -o $out
  deps = gcc
  depfile = $out.d
rule bundle
  command = bundle $in -o $out
build x.o.phc/gfx906.o: cc x.hip
build x.o.phc/gfx90a.o: cc x.hip
build x.o.phc/bundle.hipfb: bundle x.o.phc/gfx906.o x.o.phc/gfx90a.o
build x.o: cc x.hip | x.o.phc/bundle.hipfb
build phc_c_1: phony inc/a.h inc/dev.h
build phc_c_2: phony inc/a.h
build phc_s_dev: phony phc_c_1
build phc_s_host: phony phc_c_2
build inc/a.h: phony
build inc/dev.h: phony
)";

/// The history of a build at time 100: every output logged, the device edges
/// recording phc_s_dev, the host phc_s_host.
why::History built(int64_t gfx906_recorded = 100) {
    why::History h;
    for (const char* o : {"x.o.phc/gfx906.o", "x.o.phc/gfx90a.o", "x.o.phc/bundle.hipfb", "x.o"})
        h.log[o] = 100;
    std::string text = "# ninjadeps\n";
    int32_t v = 4;
    text.append(reinterpret_cast<const char*>(&v), 4);
    auto log = ninja::parse_deps_log(text);
    REQUIRE(log.ok());
    text += ninja::deps_log_append(*log, {{"x.o.phc/gfx906.o", gfx906_recorded, {"phc_s_dev"}},
                                          {"x.o.phc/gfx90a.o", 100, {"phc_s_dev"}},
                                          {"x.o", 100, {"phc_s_host"}}});
    h.deps_text = text;
    h.deps = *ninja::parse_deps_log(h.deps_text);
    return h;
}

std::vector<std::string> why_of(const why::History& h, const char* output) {
    auto m = ninja::parse_manifest(kManifest);
    REQUIRE(m.ok());
    auto r = why::why_dirty(*m, h, output, fake_mtime);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return *r;
}

using Lines = std::vector<std::string>;

} // namespace

TEST_CASE("why: after a build, nothing; a device-only header names itself, not its set") {
    g_times = {{"x.hip", 50},
               {"inc/a.h", 50},
               {"inc/dev.h", 50},
               {"x.o.phc/gfx906.o", 100},
               {"x.o.phc/gfx90a.o", 100},
               {"x.o.phc/bundle.hipfb", 100},
               {"x.o", 100}};
    const why::History h = built();
    CHECK(why_of(h, "x.o").empty());
    CHECK(why_of(h, "x.o.phc/gfx906.o").empty());
    g_times["inc/dev.h"] = 200;
    CHECK(why_of(h, "x.o.phc/gfx906.o") == Lines{"newer: inc/dev.h (in phc_s_dev)"});
    // The host object's own set does not name it: its bundle will be rebuilt.
    CHECK(why_of(h, "x.o") ==
          Lines{"x.o.phc/bundle.hipfb will be rebuilt:", "  x.o.phc/gfx906.o will be rebuilt:",
                "    newer: inc/dev.h (in phc_s_dev)",
                "  x.o.phc/gfx90a.o will be rebuilt:", "    newer: inc/dev.h (in phc_s_dev)"});
}

TEST_CASE("why: the log's mtime counts as ninja's does; missing files, lines and records") {
    g_times = {{"x.hip", 50},
               {"inc/a.h", 50},
               {"inc/dev.h", 50},
               {"x.o.phc/gfx906.o", 300},
               {"x.o.phc/gfx90a.o", 100},
               {"x.o.phc/bundle.hipfb", 100},
               {"x.o", 100}};
    why::History h = built(300);
    // The output is newer on disk than the header, but its log line is older
    // (the header changed while it compiled): ninja rebuilds it.
    g_times["inc/a.h"] = 200;
    CHECK(why_of(h, "x.o.phc/gfx906.o") == Lines{"newer: inc/a.h (in phc_s_dev)"});
    g_times["inc/a.h"] = 50;
    // A deps record older than the output: its headers are not known.
    h = built();
    CHECK(why_of(h, "x.o.phc/gfx906.o") ==
          Lines{"its record in .ninja_deps is older than x.o.phc/gfx906.o"});
    // A deleted header: missing.
    g_times.erase("inc/dev.h");
    CHECK(why_of(h, "x.o.phc/gfx90a.o") == Lines{"missing: inc/dev.h (in phc_s_dev)"});
    g_times["inc/dev.h"] = 50;
    // An output without a log line, a deps record, or a file.
    h.log.erase("x.o.phc/gfx90a.o");
    CHECK(why_of(h, "x.o.phc/gfx90a.o") ==
          Lines{"x.o.phc/gfx90a.o has no line in .ninja_log (not built here yet)"});
    g_times.erase("x.o");
    CHECK(why_of(h, "x.o").at(0) == "x.o does not exist");
    h = built();
    g_times["x.o"] = 100;
    g_times["x.o.phc/gfx906.o"] = 100;
    h.deps_text.clear();
    h.deps = {};
    CHECK(why_of(h, "x.o.phc/gfx906.o") ==
          Lines{"x.o.phc/gfx906.o has no record in .ninja_deps (its headers are not known)"});
    auto m = ninja::parse_manifest(kManifest);
    REQUIRE(m.ok());
    CHECK_FALSE(why::why_dirty(*m, h, "nope.o", fake_mtime).ok());
    CHECK(why::why_dirty(*m, h, "x.hip", fake_mtime).error().message ==
          "'x.hip' is a source file: no edge writes it");
}
