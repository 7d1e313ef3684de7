// A split RDC link as ninja edges: what each edge reads, what the host link
// takes over from the original edge, the device pool.
#include "fake_link_jobs.h"
#include "regen/edges.h"

#include <doctest/doctest.h>

using namespace phc;

namespace {

split::LinkPlan plan_of_app() {
    auto a = compile::analyze_link_string("clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 "
                                          "--offload-arch=gfx90a a.o b.o -o bin/app",
                                          {});
    static const split::SplitObject a_split{"a.o.phc", {"gfx906", "gfx90a"}};
    return split::make_link_plan(std::move(a), test::clang15_link_jobs(), [](const std::string& p) {
        return p == "a.o" ? &a_split : nullptr;
    });
}

edges::Policy pooled() {
    edges::Policy p;
    p.device_pool = true;
    return p;
}

regen::Carry link_carry() {
    regen::Carry c;
    c.outputs = {"bin/app"};
    c.inputs = {"a.o", "b.o"};
    c.implicit = {"libx.so"};
    c.order_only = {"dep_target"};
    c.restat = "1";
    c.pool = "link_pool";
    return c;
}

} // namespace

TEST_CASE("regen link edges: device links per architecture, the host link stands for the edge") {
    split::LinkPlan p = plan_of_app();
    REQUIRE(p.split());
    regen::Rendered r = regen::render_link(p, link_carry(), pooled());
    REQUIRE_FALSE(r.error);
    CHECK(r.d.split);
    CHECK(r.d.link);
    CHECK(r.d.archs == std::vector<std::string>{"gfx906", "gfx90a"});
    const std::string& t = r.text;
    // Each device link reads its architecture's bitcode (a.o's from its split
    // compile) and goes to the device pool.
    CHECK(t.find("build bin/app.phc/gfx906.out: PHC_HIP_STEP a.o.phc/gfx906.o | "
                 "bin/app.phc/u1-1.o || dep_target\n") != std::string::npos);
    CHECK(t.find("  pool = phc_hip_device\n") != std::string::npos);
    // The host link: the original outputs, its objects and libraries as implicit
    // inputs, its pool and restat.
    CHECK(t.find("build bin/app: PHC_HIP_STEP a.o.phc/host.o | bin/app.phc/u1-0.o "
                 "bin/app.phc/fatbin.o a.o b.o libx.so || dep_target\n") != std::string::npos);
    CHECK(t.find("  pool = link_pool\n") != std::string::npos);
    CHECK(t.find("  PHC_RESTAT = 1\n") != std::string::npos);
}

TEST_CASE("regen link edges: a link left alone renders nothing and keeps its reason") {
    auto a = compile::analyze_link_string("clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 "
                                          "a.o -o app",
                                          {});
    split::LinkPlan p;
    p.analysis = std::move(a);
    regen::Rendered r = regen::render_link(p, link_carry(), edges::Policy{});
    CHECK_FALSE(r.d.split);
    CHECK(r.d.code == "single-arch");
    CHECK(r.text.empty());
}
