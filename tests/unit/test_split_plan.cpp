#include "compile/shell.h"
#include "fake_probe.h"
#include "probe/objcopy.h"
#include "split/plan.h"

#include <algorithm>
#include <doctest/doctest.h>

using namespace phc;
using namespace phc::compile;
using namespace phc::split;
using namespace phc::probe;
using phc::test::fake_probe;

namespace {

Plan make(const std::string& cmd, std::vector<std::string> archs, PlanOptions o = {}) {
    Analysis a = analyze_string(cmd, {});
    REQUIRE_MESSAGE(a.decision.split(), a.decision.text);
    ProbeResult p = fake_probe(std::move(archs));
    apply_probe(a, p);
    REQUIRE(a.decision.split());
    return make_plan(std::move(a), p, o);
}

bool has(const std::vector<std::string>& v, const std::string& w) {
    return std::find(v.begin(), v.end(), w) != v.end();
}

const std::string kCmd = "cd b && ccache /usr/bin/clang++-15 -x hip -O2 -DX=1 -Iinc "
                         "--offload-arch=gfx90a:xnack+ --offload-arch=gfx906 --offload-compress "
                         "-MD -MT k.o -MF k.o.d -c ../k.hip -o k.o";

} // namespace

TEST_CASE("plan: device steps, bundle, host") {
    Plan p = make(kCmd, {"gfx906", "gfx90a:xnack+"});
    REQUIRE(p.steps.size() == 4);
    CHECK(p.private_dir == "k.o.phc");
    CHECK(p.bundle == "k.o.phc/bundle.hipfb");
    const Step& d = p.steps[1];
    CHECK(d.kind == StepKind::Device);
    CHECK(d.arch == "gfx90a:xnack+");
    CHECK(d.cwd == "b");
    CHECK(d.outputs == std::vector<std::string>{"k.o.phc/gfx90a-xnack+.o"});
    CHECK(d.depfile == "k.o.phc/gfx90a-xnack+.d");
    CHECK(d.argv == std::vector<std::string>{"ccache",
                                             "/usr/bin/clang++-15",
                                             "-x",
                                             "hip",
                                             "-O2",
                                             "-DX=1",
                                             "-Iinc",
                                             "--offload-arch=gfx90a:xnack+",
                                             "-MD",
                                             "-MT",
                                             "k.o.phc/gfx90a-xnack+.o",
                                             "-MF",
                                             "k.o.phc/gfx90a-xnack+.d",
                                             "-c",
                                             "../k.hip",
                                             "-o",
                                             "k.o.phc/gfx90a-xnack+.o",
                                             "--offload-device-only",
                                             "--no-gpu-bundle-output",
                                             "-cuid=" + p.cuid});
    const Step& b = p.steps[2];
    CHECK(b.kind == StepKind::Bundle);
    CHECK(b.inputs == std::vector<std::string>{"k.o.phc/gfx906.o", "k.o.phc/gfx90a-xnack+.o"});
    CHECK(b.argv[0] == "/usr/lib/llvm-15/bin/clang-offload-bundler");
    CHECK(b.argv[5] == "-input=k.o.phc/gfx906.o");
    CHECK(b.argv.back() == "-output=k.o.phc/bundle.hipfb");
    const Step& h = p.steps[3];
    CHECK(h.kind == StepKind::Host);
    CHECK(h.outputs == std::vector<std::string>{"k.o"});
    CHECK(h.depfile == "k.o.d");
    CHECK(h.inputs == std::vector<std::string>{"../k.hip", "k.o.phc/bundle.hipfb"});
    CHECK(h.env == std::vector<std::string>{"CCACHE_EXTRAFILES=k.o.phc/bundle.hipfb"});
    CHECK(h.argv == std::vector<std::string>{"ccache",
                                             "/usr/bin/clang++-15",
                                             "-x",
                                             "hip",
                                             "-O2",
                                             "-DX=1",
                                             "-Iinc",
                                             "-MD",
                                             "-MT",
                                             "k.o",
                                             "-MF",
                                             "k.o.d",
                                             "-c",
                                             "../k.hip",
                                             "-o",
                                             "k.o",
                                             "--offload-host-only",
                                             "-Xclang",
                                             "-fcuda-include-gpubinary",
                                             "-Xclang",
                                             "k.o.phc/bundle.hipfb",
                                             "-Xclang",
                                             "-cuid=" + p.cuid});
    CHECK(h.shell() == "cd b && CCACHE_EXTRAFILES=k.o.phc/bundle.hipfb " + join_command(h.argv));
}

TEST_CASE("CUID: deterministic, independent of the architecture list") {
    Plan two = make(kCmd, {"gfx906", "gfx90a:xnack+"});
    Plan again = make(kCmd, {"gfx906", "gfx90a:xnack+"});
    CHECK(two.cuid == again.cuid);
    CHECK(two.cuid.size() == 16);
    std::string three_cmd = kCmd;
    three_cmd.replace(three_cmd.find("--offload-compress"), 0, "--offload-arch=gfx1030 ");
    Plan three = make(three_cmd, {"gfx1030", "gfx906", "gfx90a:xnack+"});
    CHECK(three.cuid == two.cuid);
    CHECK(three.steps[1].shell() == two.steps[0].shell()); // gfx906 unchanged
    CHECK(three.steps[2].shell() == two.steps[1].shell()); // gfx90a:xnack+ unchanged
    std::string other_obj = kCmd;
    other_obj.replace(other_obj.rfind("k.o"), 3, "k2.o");
    CHECK(make(other_obj, {"gfx906", "gfx90a:xnack+"}).cuid != two.cuid);
    std::string other_def = kCmd;
    other_def.replace(other_def.find("-DX=1"), 5, "-DX=2");
    CHECK(make(other_def, {"gfx906", "gfx90a:xnack+"}).cuid != two.cuid);
    std::string explicit_cuid = kCmd + " -cuid=feed";
    Plan e = make(explicit_cuid, {"gfx906", "gfx90a:xnack+"});
    CHECK(e.cuid == "feed");
    CHECK(std::count(e.steps[0].argv.begin(), e.steps[0].argv.end(), "-cuid=feed") == 1);
    Plan none = make(kCmd + " -fuse-cuid=none", {"gfx906", "gfx90a:xnack+"});
    CHECK(none.cuid.empty());
    for (const Step& s : none.steps)
        for (const std::string& w : s.argv)
            CHECK(w.rfind("-cuid=", 0) != 0);
}

TEST_CASE("plan: launchers, private dir, depfiles, default output, hipcc") {
    PlanOptions priv;
    priv.private_dir = "/tmp/priv dir";
    priv.device_depfiles = true;
    Plan s =
        make("sccache clang++ -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o",
             {"gfx906", "gfx90a"}, priv);
    CHECK(s.steps[0].argv[0] == "sccache");
    CHECK(s.steps[3].argv[0] == "clang++"); // the host step drops sccache
    CHECK(s.steps[3].env.empty());
    CHECK(s.steps[0].outputs[0] == "/tmp/priv dir/gfx906.o");
    CHECK(s.steps[0].depfile == "/tmp/priv dir/gfx906.d");
    CHECK(has(s.steps[0].argv, "-MD"));
    CHECK(s.steps[3].depfile.empty());
    CHECK(s.bundle == "/tmp/priv dir/bundle.hipfb");

    Plan extra = make("CCACHE_EXTRAFILES=a.h ccache clang++ -x hip --offload-arch=gfx906 "
                      "--offload-arch=gfx90a -MD -c k.hip",
                      {"gfx906", "gfx90a"});
    CHECK(extra.analysis.output == "k.o");
    CHECK(extra.steps[0].depfile == "k.o.phc/gfx906.d");
    CHECK(extra.steps[3].depfile == "k.d");
    CHECK(extra.steps[0].env == std::vector<std::string>{"CCACHE_EXTRAFILES=a.h"});
    CHECK(extra.steps[3].env ==
          std::vector<std::string>{"CCACHE_EXTRAFILES=a.h:k.o.phc/bundle.hipfb"});
    CHECK(has(extra.steps[0].argv, "k.o.phc/gfx906.o"));

    Plan h =
        make("hipcc --offload-arch=gfx906 --offload-arch=gfx90a --offload-jobs=4 -c k.hip -o k.o",
             {"gfx906", "gfx90a"});
    CHECK(has(h.steps[3].argv, "--offload-arch=gfx906")); // hipcc keeps its architectures
    CHECK(!has(h.steps[3].argv, "--offload-jobs=4"));
    CHECK(!has(h.steps[0].argv, "--offload-jobs=4"));
    CHECK(safe_arch("gfx90a:sramecc+:xnack-") == "gfx90a-sramecc+-xnack-");
}

TEST_CASE("plan: -Wp,-MD,FILE gets one depfile per device step, the host keeps FILE") {
    Plan p = make("clang++ -x hip --offload-arch=gfx906 --offload-arch=gfx90a "
                  "-Wp,-MMD,obj/.k.o.d -c k.hip -o obj/k.o",
                  {"gfx906", "gfx90a"});
    CHECK(p.analysis.writes_depfile);
    CHECK(p.steps[0].depfile == "obj/k.o.phc/gfx906.d");
    CHECK(has(p.steps[0].argv, "-Wp,-MMD,obj/k.o.phc/gfx906.d"));
    CHECK(has(p.steps[1].argv, "-Wp,-MMD,obj/k.o.phc/gfx90a.d"));
    CHECK(!has(p.steps[0].argv, "-Wp,-MMD,obj/.k.o.d"));
    CHECK(p.steps[3].depfile == "obj/.k.o.d");
    CHECK(has(p.steps[3].argv, "-Wp,-MMD,obj/.k.o.d"));
}

TEST_CASE("plan: --overlap-host runs the host compile beside the device compiles") {
    PlanOptions o;
    o.overlap_host = true;
    o.tool = "/opt/phc-ninja";
    Plan p = make(kCmd, {"gfx906", "gfx90a:xnack+"}, o);
    if (probe::objcopy().empty()) { // no objcopy on this machine: the plan as without it
        CHECK(p.steps.back().kind == StepKind::Host);
        return;
    }
    REQUIRE(p.steps.size() == 5);
    const Step& host = p.steps[3];
    CHECK(host.kind == StepKind::Host);
    CHECK(host.inputs == std::vector<std::string>{"../k.hip"}); // not the bundle
    CHECK(host.outputs == std::vector<std::string>{"k.o.phc/host.o"});
    CHECK(host.depfile == "k.o.d"); // the original depfile, naming the object (-MT k.o)
    CHECK(has(host.argv, "-MT"));
    CHECK(has(host.argv, "k.o"));
    // The placeholder is the source: no literal of the program equals it (an
    // empty /dev/null became the constant of every "" under clang 15).
    CHECK(has(host.argv, "-fcuda-include-gpubinary"));
    CHECK(has(host.argv, "../k.hip"));
    CHECK_FALSE(has(host.argv, "/dev/null"));
    CHECK(has(host.argv, "--offload-host-only"));
    CHECK_FALSE(has(host.argv, "k.o.phc/bundle.hipfb"));
    const Step& embed = p.steps[4];
    CHECK(embed.kind == StepKind::Embed);
    CHECK(embed.inputs == std::vector<std::string>{"k.o.phc/bundle.hipfb", "k.o.phc/host.o"});
    CHECK(embed.outputs == std::vector<std::string>{"k.o"});
    CHECK(embed.cwd == "b");
    CHECK(embed.argv == std::vector<std::string>{"/opt/phc-ninja", "embed", "--objcopy",
                                                 probe::objcopy(), "--placeholder", "../k.hip",
                                                 "--bundle", "k.o.phc/bundle.hipfb", "--host",
                                                 "k.o.phc/host.o", "-o", "k.o"});

    SUBCASE("never for -fgpu-rdc, whose host compile needs no device code anyway") {
        ProbeResult rdc = fake_probe({"gfx906", "gfx90a"});
        Analysis a = analyze_string("clang++-15 -x hip -fgpu-rdc --offload-arch=gfx906 "
                                    "--offload-arch=gfx90a -c k.hip -o k.o",
                                    {});
        rdc.rdc = true;
        rdc.bundler_args.push_back("-input=" + std::string(ProbeResult::kHostToken));
        apply_probe(a, rdc);
        REQUIRE(a.decision.split());
        Plan r = make_plan(std::move(a), rdc, o);
        for (const Step& s : r.steps)
            CHECK(s.kind != StepKind::Embed);
    }
}
