// The RDC link plan from the driver's jobs, without running a compiler.
#include "fake_link_jobs.h"
#include "split/link.h"

#include <algorithm>
#include <doctest/doctest.h>

using namespace phc;
using namespace phc::split;
using Strings = std::vector<std::string>;

namespace {

compile::LinkAnalysis link(const std::string& extra = "") {
    return compile::analyze_link_string("clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 "
                                        "--offload-arch=gfx90a a.o b.o -o bin/app" +
                                            extra,
                                        {});
}

const Step* find_kind(const LinkPlan& p, StepKind k, size_t nth = 0) {
    for (const Step& s : p.steps)
        if (s.kind == k && nth-- == 0) return &s;
    return nullptr;
}

} // namespace

TEST_CASE("link analysis: RDC HIP links are split, others left alone with a reason") {
    CHECK(link().decision.split());
    CHECK(link().output == "bin/app");
    auto code = [](const std::string& cmd) {
        return std::string(
            compile::reason_code(compile::analyze_link_string(cmd, {}).decision.reason));
    };
    CHECK(code(": && clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 "
               "--offload-arch=gfx90a a.o -o app && :") == "split");
    CHECK(code("clang++-15 --hip-link --offload-arch=gfx906 --offload-arch=gfx90a a.o") ==
          "link-not-rdc");
    CHECK(code("clang++-15 -fgpu-rdc --hip-link --offload-arch=gfx906 a.o") == "single-arch");
    CHECK(code("clang++-15 -fgpu-rdc --hip-link -save-temps --offload-arch=gfx906 "
               "--offload-arch=gfx90a a.o") == "save-temps");
    CHECK(code("clang++-15 -fgpu-rdc --hip-link --offload-new-driver --offload-arch=gfx906 "
               "--offload-arch=gfx90a a.o") == "new-driver");
    CHECK(code("g++ a.o -o app") == "unknown-compiler");
}

TEST_CASE("link plan: unbundles, one device link per architecture, fat binary, host link") {
    LinkPlan p = make_link_plan(link(), phc::test::clang15_link_jobs(), [](const std::string&) {
        return static_cast<const SplitObject*>(nullptr);
    });
    REQUIRE(p.split());
    CHECK(p.private_dir == "bin/app.phc");
    CHECK(p.archs == Strings{"gfx906", "gfx90a"});
    REQUIRE(p.steps.size() == 7);
    const Step* u = find_kind(p, StepKind::Unbundle);
    REQUIRE(u);
    CHECK(u->inputs == Strings{"a.o"});
    CHECK(u->outputs.size() == 3);
    const Step* d = find_kind(p, StepKind::DeviceLink, 1);
    REQUIRE(d);
    CHECK(d->arch == "gfx90a");
    // Each device link reads only its own architecture's parts.
    CHECK(d->inputs == Strings{"bin/app.phc/u0-2.o", "bin/app.phc/u1-2.o"});
    const Step* fo = find_kind(p, StepKind::FatbinObject);
    REQUIRE(fo);
    CHECK(fo->argv[0] == "/bin/sh");
    CHECK(fo->argv[2].find(".incbin \"bin/app.phc/fatbin.hipfb\"") != std::string::npos);
    CHECK(fo->inputs == Strings{"bin/app.phc/fatbin.hipfb"});
    const Step* h = find_kind(p, StepKind::HostLink);
    REQUIRE(h);
    CHECK(h->outputs == Strings{"bin/app"});
    CHECK(h->argv == Strings{"/usr/bin/ld", "-o", "bin/app", "bin/app.phc/u0-0.o",
                             "bin/app.phc/u1-0.o", "bin/app.phc/fatbin.o", "-lamdhip64"});
    for (const Step& s : p.steps)
        for (const std::string& w : s.argv)
            CHECK(w.find("/scratch") == std::string::npos);
}

TEST_CASE("link plan: objects split in RDC mode are read from their compile's files") {
    SplitObject a{"a.o.phc", {"gfx906", "gfx90a"}};
    LinkPlan p =
        make_link_plan(link(), phc::test::clang15_link_jobs(),
                       [&](const std::string& path) { return path == "a.o" ? &a : nullptr; });
    REQUIRE(p.split());
    CHECK(p.steps.size() == 6); // b.o is still unbundled
    const Step* d = find_kind(p, StepKind::DeviceLink, 0);
    REQUIRE(d);
    CHECK(d->inputs == Strings{"a.o.phc/gfx906.o", "bin/app.phc/u1-1.o"});
    const Step* h = find_kind(p, StepKind::HostLink);
    REQUIRE(h);
    CHECK(h->inputs == Strings{"a.o.phc/host.o", "bin/app.phc/u1-0.o", "bin/app.phc/fatbin.o"});
    // An object split for fewer architectures than the link needs is unbundled.
    SplitObject narrow{"a.o.phc", {"gfx906"}};
    LinkPlan q =
        make_link_plan(link(), phc::test::clang15_link_jobs(),
                       [&](const std::string& path) { return path == "a.o" ? &narrow : nullptr; });
    CHECK(q.steps.size() == 7);
}

TEST_CASE("link plan: jobs it cannot reproduce leave the link alone, saying which") {
    auto none = [](const std::string&) { return static_cast<const SplitObject*>(nullptr); };
    probe::DriverJobs extra = phc::test::clang15_link_jobs();
    extra.jobs.insert(extra.jobs.begin() + 4, {"/usr/bin/strange-tool", "/scratch/x"});
    LinkPlan p = make_link_plan(link(), extra, none);
    CHECK_FALSE(p.split());
    CHECK(p.analysis.decision.reason == compile::Reason::LinkUnmodelled);
    CHECK(p.analysis.decision.text.find("strange-tool") != std::string::npos);
    CHECK(p.steps.empty());
    probe::DriverJobs unknown_temp = phc::test::clang15_link_jobs();
    unknown_temp.jobs.back().push_back("/scratch/nobody-wrote-this.o");
    CHECK(make_link_plan(link(), unknown_temp, none).analysis.decision.reason ==
          compile::Reason::LinkUnmodelled);
}
