// The plan as a graph: which step feeds which, what stands for the original edge.
#include "compile/analysis.h"
#include "fake_probe.h"
#include "split/graph.h"

#include <doctest/doctest.h>

using namespace phc;
using namespace phc::split;
using Strings = std::vector<std::string>;

TEST_CASE("graph: device edges read the source, the bundle reads them, the host reads both") {
    auto a = compile::analyze_string("cd b && clang++-15 -x hip --offload-arch=gfx906 "
                                     "--offload-arch=gfx90a -c ../k.hip -o o/k.o",
                                     {});
    REQUIRE(a.decision.split());
    auto probe = test::fake_probe({"gfx906", "gfx90a"});
    probe::apply_probe(a, probe);
    Plan plan = make_plan(std::move(a), probe,
                          {.private_dir = {}, .device_depfiles = true, .cuid_root = {}});
    auto spell = [](const Step& s, const std::string& p) { return "[" + s.cwd + "]" + p; };
    auto edges = plan_edges(plan, spell);
    REQUIRE(edges.size() == 4);
    for (int k : {0, 1}) {
        CHECK(edges[k].external);
        CHECK_FALSE(edges[k].final);
        CHECK(edges[k].inputs == Strings{"[b]../k.hip"});
        CHECK(edges[k].implicit.empty());
    }
    CHECK(edges[0].outputs == Strings{"[b]o/k.o.phc/gfx906.o"});
    CHECK(edges[0].depfile == "[b]o/k.o.phc/gfx906.d");
    // The bundle reads only other steps' outputs: they are its explicit inputs.
    CHECK_FALSE(edges[2].external);
    CHECK_FALSE(edges[2].final);
    CHECK(edges[2].inputs == Strings{"[b]o/k.o.phc/gfx906.o", "[b]o/k.o.phc/gfx90a.o"});
    // The host reads the source and the bundle; it writes the object.
    CHECK(edges[3].external);
    CHECK(edges[3].final);
    CHECK(edges[3].inputs == Strings{"[b]../k.hip"});
    CHECK(edges[3].implicit == Strings{"[b]o/k.o.phc/bundle.hipfb"});
    CHECK(edges[3].outputs == Strings{"[b]o/k.o"});
}

TEST_CASE("graph: with last durations, the longest device edges are listed first") {
    auto a =
        compile::analyze_string("clang++-15 -x hip --offload-arch=gfx906 --offload-arch=gfx90a "
                                "--offload-arch=gfx1030 --offload-arch=gfx908 -c k.hip -o k.o",
                                {});
    REQUIRE(a.decision.split());
    auto probe = test::fake_probe({"gfx1030", "gfx906", "gfx908", "gfx90a"});
    probe::apply_probe(a, probe);
    Plan plan = make_plan(std::move(a), probe, {});
    auto spell = [](const Step&, const std::string& p) { return p; };
    auto order = [&](const Durations* last) {
        Strings out;
        for (const GraphEdge& e : plan_edges(plan, spell, last))
            out.push_back(e.outputs.at(0));
        return out;
    };
    const Strings plain{"k.o.phc/gfx1030.o", "k.o.phc/gfx906.o",     "k.o.phc/gfx908.o",
                        "k.o.phc/gfx90a.o",  "k.o.phc/bundle.hipfb", "k.o"};
    CHECK(order(nullptr) == plain);
    const Durations none;
    CHECK(order(&none) == plain);
    // gfx908 took longest, then gfx906; gfx90a is new (unknown: it may be long) and
    // goes first; the bundle and the host stay where they are (they wait anyway).
    const Durations last{{"k.o.phc/gfx1030.o", 900},
                         {"k.o.phc/gfx906.o", 4000},
                         {"k.o.phc/gfx908.o", 7000},
                         {"k.o", 99999}};
    CHECK(order(&last) == Strings{"k.o.phc/gfx90a.o", "k.o.phc/gfx908.o", "k.o.phc/gfx906.o",
                                  "k.o.phc/gfx1030.o", "k.o.phc/bundle.hipfb", "k.o"});
}
