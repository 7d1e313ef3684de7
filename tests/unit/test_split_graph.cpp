// The plan as a graph: which step feeds which, what stands for the original edge.
#include "compile/analysis.h"
#include "fake_probe.h"
#include "scratch.h"
#include "split/graph.h"
#include "util/file.h"

#include <doctest/doctest.h>
#include <unistd.h>

using namespace phc;
using namespace phc::split;
using Strings = std::vector<std::string>;

TEST_CASE("graph: device edges read the source, the bundle reads them, the host reads both") {
    Plan plan = test::fake_plan("cd b && clang++-15 -x hip --offload-arch=gfx906 "
                                "--offload-arch=gfx90a -c ../k.hip -o o/k.o",
                                {"gfx906", "gfx90a"});
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

namespace {

Step step(StepKind kind, Strings inputs, std::string output) {
    Step s;
    s.kind = kind;
    s.inputs = std::move(inputs);
    s.outputs = {std::move(output)};
    return s;
}

Strings outputs_in_order(const std::vector<Step>& steps, const Durations& last) {
    auto spell = [](const Step&, const std::string& p) { return p; };
    Strings out;
    for (const GraphEdge& e : step_edges(steps, "", "k.o", spell, &last))
        out.push_back(e.outputs.at(0));
    return out;
}

} // namespace

TEST_CASE("graph: edges are listed by the longest chain they start (critical path first)") {
    // clang 22's new driver: bitcode per architecture, code generation per
    // architecture, bundle, host; times of a real run (bench-newdriver, -j2).
    std::vector<Step> steps;
    const Strings archs{"gfx900", "gfx906", "gfx908", "gfx90a"};
    for (const auto& a : archs)
        steps.push_back(step(StepKind::Device, {"k.hip"}, a + ".bc"));
    Strings imgs;
    for (const auto& a : archs) {
        steps.push_back(step(StepKind::DeviceLink, {a + ".bc"}, a + ".img"));
        imgs.push_back(a + ".img");
    }
    steps.push_back(step(StepKind::Bundle, imgs, "bundle"));
    steps.push_back(step(StepKind::Host, {"k.hip", "bundle"}, "k.o"));
    const Durations last{{"gfx900.bc", 712},   {"gfx906.bc", 708},   {"gfx908.bc", 770},
                         {"gfx90a.bc", 784},   {"gfx900.img", 3406}, {"gfx906.img", 3536},
                         {"gfx908.img", 4035}, {"gfx90a.img", 5818}, {"bundle", 21},
                         {"k.o", 394}};
    // gfx90a's chain (bitcode and code generation) is the longest: both its
    // edges come before the other bitcode compiles, so that its code generation
    // starts as soon as its bitcode is there; on two cores ninja then finishes
    // at about 10.4 s instead of the 11.05 s of "each kind longest first".
    CHECK(outputs_in_order(steps, last) == Strings{"gfx90a.bc", "gfx90a.img", "gfx908.bc",
                                                   "gfx906.bc", "gfx900.bc", "gfx908.img",
                                                   "gfx906.img", "gfx900.img", "bundle", "k.o"});
    // An edge without a time counts as long: a new architecture starts first.
    Durations partial = last;
    partial.erase("gfx900.bc");
    partial.erase("gfx900.img");
    CHECK(outputs_in_order(steps, partial).at(0) == "gfx900.bc");
    CHECK(outputs_in_order(steps, partial).at(1) == "gfx900.img");
}

TEST_CASE("graph: an overlapped host compile longer than the device code is listed first") {
    std::vector<Step> steps;
    for (const char* a : {"gfx906", "gfx90a"})
        steps.push_back(step(StepKind::Device, {"k.hip"}, std::string(a) + ".o"));
    steps.push_back(step(StepKind::Bundle, {"gfx906.o", "gfx90a.o"}, "bundle"));
    steps.push_back(step(StepKind::Host, {"k.hip"}, "host.o"));
    steps.push_back(step(StepKind::Embed, {"host.o", "bundle"}, "k.o"));
    const Durations heavy_host{
        {"gfx906.o", 2300}, {"gfx90a.o", 3900}, {"bundle", 20}, {"host.o", 10200}, {"k.o", 45}};
    CHECK(outputs_in_order(steps, heavy_host) ==
          Strings{"host.o", "gfx90a.o", "gfx906.o", "bundle", "k.o"});
    // A light host compile waits behind the device code, as before.
    Durations light_host = heavy_host;
    light_host["host.o"] = 900;
    CHECK(outputs_in_order(steps, light_host) ==
          Strings{"gfx90a.o", "gfx906.o", "host.o", "bundle", "k.o"});
}

TEST_CASE("graph: without durations, a guess from the source's size (guess_durations)") {
    test::ScratchDir dir;
    REQUIRE(util::write_file_atomic(dir.file("k.hip"), std::string(5000, 'x')).ok());
    Plan plan = test::fake_plan("cd " + dir.path() +
                                    " && clang++-15 -x hip --offload-arch=gfx906 "
                                    "--offload-arch=gfx90a -c k.hip -o k.o",
                                {"gfx906", "gfx90a"});
    auto spell = [](const Step&, const std::string& p) { return p; };
    const Durations guess = guess_durations(plan, spell);
    CHECK(guess.at("k.o.phc/gfx906.o") == 5000); // each compile: the source's bytes
    CHECK(guess.at("k.o.phc/gfx90a.o") == 5000);
    CHECK(guess.at("k.o.phc/bundle.hipfb") == 1);
    CHECK(guess.at("k.o") == 5000);
    // Its chains: device 5000 + bundle 1 + host 5000; the order stays the plan's.
    auto edges = plan_edges(plan, spell, &guess);
    REQUIRE(edges.size() == 4);
    CHECK(edges[0].chain_ms == 10001);
    CHECK(edges[3].outputs == Strings{"k.o"});
    CHECK(edges[3].chain_ms == 5000);
    // A larger source: a longer chain, so its object is placed first.
    REQUIRE(util::write_file_atomic(dir.file("k.hip"), std::string(9000, 'x')).ok());
    const Durations larger = guess_durations(plan, spell);
    CHECK(plan_edges(plan, spell, &larger)[0].chain_ms == 18001);
    // A source that is not there (generated later) counts as long.
    REQUIRE(::unlink(dir.file("k.hip").c_str()) == 0);
    CHECK(guess_durations(plan, spell).at("k.o.phc/gfx906.o") == kUnknownMs);
}
