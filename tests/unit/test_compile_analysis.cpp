#include "compile/analysis.h"
#include "probe/probe.h"

#include <algorithm>
#include <doctest/doctest.h>

using namespace phc::compile;
using namespace phc::probe;

namespace {

const std::string kHip = "clang++-15 -x hip ";

Analysis an(const std::string& cmd) {
    return analyze_string(cmd, {});
}

std::string code(const std::string& cmd) {
    return std::string(reason_code(an(cmd).decision.reason));
}

} // namespace

TEST_CASE("multi-arch HIP object compiles are split candidates") {
    Analysis a = an("cd b && ccache clang++-15 -x hip --offload-arch=gfx90a --offload-arch=gfx906 "
                    "--offload-arch=gfx90a -MD -MF k.o.d -c ../k.hip -o k.o");
    CHECK(a.decision.split());
    CHECK(a.archs == std::vector<std::string>{"gfx90a", "gfx906"});
    CHECK(a.source == "../k.hip");
    CHECK(a.output == "k.o");
    CHECK(a.writes_depfile);
    CHECK(a.work_dir() == "b");
    CHECK(code("clang++ --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip") == "split");
    CHECK(an("clang++ --offload-arch=gfx906 --offload-arch=gfx90a -c dir/k.hip").output == "k.o");
    CHECK(code("hipcc --offload-arch=gfx906 --offload-arch=gfx90a -c k.cpp -o k.o") == "split");
    CHECK(code(kHip + "--offload-arch=gfx90a,gfx906 -c k.hip") == "split");
    CHECK(code(kHip + "--offload-arch=gfx90a --offload-arch=gfx90a:xnack+ -c k.hip") == "split");
    CHECK(code(kHip + "-fgpu-rdc -fno-gpu-rdc --offload-arch=gfx90a,gfx906 -c k.hip") == "split");
    CHECK(code(kHip + "--offload-new-driver --no-offload-new-driver --offload-arch=gfx90a,gfx906 "
                      "-c k.hip") == "split");
    CHECK(code(kHip + "--cuda-gpu-arch=gfx90a --offload-arch=gfx906 -c k.hip") == "split");
}

TEST_CASE("every left-alone reason, from the command line") {
    const std::string two = "--offload-arch=gfx906 --offload-arch=gfx90a ";
    CHECK(code("clang++-15 -c k.hip | tee log") == "not-simple");
    CHECK(code("g++ -c k.cpp") == "unknown-compiler");
    CHECK(code(kHip + two + "k.hip -o k") == "no-compile");
    CHECK(code(kHip + two + "-E -c k.hip") == "preprocess-only");
    CHECK(code(kHip + two + "-fsyntax-only -c k.hip") == "syntax-only");
    CHECK(code(kHip + two + "-M -c k.hip") == "deps-only");
    CHECK(code(kHip + two + "-MM -c k.hip") == "deps-only");
    CHECK(code(kHip + two + "-S -c k.hip") == "assembly-only");
    CHECK(code(kHip + two + "-emit-llvm -c k.hip") == "emit-llvm");
    CHECK(code(kHip + two + "-c") == "no-source");
    CHECK(code(kHip + two + "-c a.hip b.hip") == "several-sources");
    CHECK(code("clang++-15 " + two + "-c k.cpp") == "not-hip");
    CHECK(code("clang++-15 " + two + "-c k.cu") == "not-hip");
    CHECK(code(kHip + "-x c++ " + two + "-c k.hip") == "not-hip");
    CHECK(code(kHip + two + "-save-temps -c k.hip") == "save-temps");
    CHECK(code(kHip + two + "-save-temps=obj -c k.hip") == "save-temps");
    CHECK(code(kHip + two + "-ftime-trace -c k.hip") == "time-trace");
    CHECK(code(kHip + two + "-MJ k.json -c k.hip") == "side-output");
    CHECK(code(kHip + two + "-c k.hip -o -") == "side-output");
    CHECK(code(kHip + two + "--offload-device-only -c k.hip") == "device-only");
    CHECK(code(kHip + two + "--cuda-device-only -c k.hip") == "device-only");
    CHECK(code(kHip + two + "--offload-host-only -c k.hip") == "host-only");
    // RDC compiles are split (the probe confirms the bundle's shape).
    CHECK(code(kHip + two + "-fno-gpu-rdc -fgpu-rdc -c k.hip") == "split");
    // The new driver is the probe's call (clang 19 runs old-driver jobs without RDC).
    CHECK(code(kHip + two + "--offload-new-driver -c k.hip") == "split");
    CHECK(code(kHip + two + "-foffload-via-llvm -c k.hip") == "new-driver");
    CHECK(code(kHip + "-c k.hip") == "no-arch");
    CHECK(code("hipcc -c k.hip") == "no-arch");
    CHECK(code(kHip + "--offload-arch=native --offload-arch=gfx906 -c k.hip") == "native-arch");
    CHECK(code(kHip + "--offload-arch=gfx906 -c k.hip") == "single-arch");
    CHECK(code(kHip + "--offload-arch=gfx906 --offload-arch=gfx906 -c k.hip") == "single-arch");
    CHECK(code(kHip + two + "--no-offload-arch=gfx90a -c k.hip") == "single-arch");
    CHECK(code(kHip + two + "--no-offload-arch=all --offload-arch=gfx1030 -c k.hip") ==
          "single-arch");
}

TEST_CASE("response files are expanded: the command is what they say, and steps write their own") {
    AnalyzeInput in{"", "k.rsp", "--offload-arch=gfx906 --offload-arch=gfx90a"};
    Analysis a = analyze_string(kHip + "@k.rsp -c k.hip -o k.o", in);
    CHECK(a.decision.split());
    CHECK(a.rsp);
    CHECK(a.archs == std::vector<std::string>{"gfx906", "gfx90a"});
    CHECK(std::find(a.command.argv.begin(), a.command.argv.end(), "@k.rsp") ==
          a.command.argv.end());
    CHECK_FALSE(
        analyze_string(kHip + "--offload-arch=gfx906 --offload-arch=gfx90a -c k.hip", {}).rsp);
    // A response file naming another: left alone.
    in.rspfile_content = "@other.rsp";
    a = analyze_string(kHip + "@k.rsp -c k.hip -o k.o", in);
    CHECK(a.decision.reason == Reason::ResponseFile);
    CHECK(a.decision.text.find("another response file") != std::string::npos);
    in.rspfile_content = "-DX=1 -Iinc k.hip";
    a = analyze_string(kHip + "--offload-arch=gfx906 --offload-arch=gfx90a -c @k.rsp -o k.o", in);
    CHECK(a.decision.split());
    CHECK(a.source == "k.hip");
    CHECK(a.expanded.size() == 11);
    a = analyze_string(kHip + "@/nonexistent/phc.rsp -c k.hip", {});
    CHECK(a.decision.reason == Reason::ResponseFile);
    // -gsplit-dwarf names each job's .dwo in its object; =single writes none.
    CHECK(analyze_string(
              kHip + "-g -gsplit-dwarf --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip", {})
              .decision.reason == Reason::SideOutput);
    CHECK(
        analyze_string(
            kHip + "-gsplit-dwarf=single --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip", {})
            .decision.split());
    CHECK(analyze_string(kHip + "-gsplit-dwarf -gno-split-dwarf --offload-arch=gfx906 "
                                "--offload-arch=gfx90a -c k.hip",
                         {})
              .decision.split());
    // hipcc does not look into response files: the steps' own would change what it sees.
    in.rspfile_content = "-DX=1 -Iinc";
    a = analyze_string(
        "hipcc -x hip @k.rsp --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip -o k.o", in);
    CHECK(a.decision.reason == Reason::ResponseFile);
    CHECK(a.decision.text == "hipcc does not read response files itself");
    CHECK(analyze_string("hipcc -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c k.hip", in)
              .decision.split());
}

TEST_CASE("apply_probe overturns a split the driver would not do that way") {
    std::string cmd = kHip + "--offload-arch=gfx906 --offload-arch=gfx90a -c k.hip";
    ProbeResult p;
    p.driver = DriverKind::Old;
    p.archs = {"gfx906", "gfx90a"};
    Analysis a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.split());
    p.driver = DriverKind::New;
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::NewDriver);
    p.driver = DriverKind::None;
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::NotHip);
    p.driver = DriverKind::Old;
    p.rdc = true;
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::Rdc);
    p.rdc = false;
    p.archs = {"gfx906"};
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::ArchMismatch);
}

TEST_CASE("apply_probe compares the architectures as sets of target IDs") {
    std::string cmd = kHip + "--offload-arch=gfx906 --offload-arch=gfx90a:xnack+:sramecc- -c k.hip";
    ProbeResult p;
    p.driver = DriverKind::Old;
    // The bundle order and the feature order may differ: still the same set.
    p.archs = {"gfx90a:sramecc-:xnack+", "gfx906"};
    Analysis a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.split());
    // Same count, another architecture (a wrapper appending flags swapped one).
    p.archs = {"gfx906", "gfx1030"};
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::ArchMismatch);
    CHECK(a.decision.text.find("gfx1030") != std::string::npos);
    // Same processor, another feature.
    p.archs = {"gfx906", "gfx90a:xnack-:sramecc-"};
    a = an(cmd);
    apply_probe(a, p);
    CHECK(a.decision.reason == Reason::ArchMismatch);
}

TEST_CASE("depfile_of: the depfile a command writes, as clang decides") {
    using V = std::vector<std::string>;
    CHECK(depfile_of(V{"cc", "-c", "a.c", "-o", "obj/a.o"}) == "");
    CHECK(depfile_of(V{"cc", "-MF", "a.d", "-c", "a.c", "-o", "a.o"}) == "");
    CHECK(depfile_of(V{"cc", "-MD", "-c", "a.c", "-o", "obj/a.o"}) == "obj/a.d");
    CHECK(depfile_of(V{"cc", "-MMD", "-c", "a.c", "-o", "x.dir/a"}) == "x.dir/a.d");
    CHECK(depfile_of(V{"cc", "-MD", "-c", "src/a.c"}) == "a.d");
    CHECK(depfile_of(V{"cc", "-MD", "-MFd/a.dep", "-c", "a.c", "-o", "a.o"}) == "d/a.dep");
    CHECK(depfile_of(V{"cc", "-Wp,-MD,.a.o.d", "-c", "a.c", "-o", "a.o"}) == ".a.o.d");
    CHECK(depfile_of(V{"cc", "-Wp,-MMD,x.d", "-c", "a.c", "-o", "a.o"}) == "x.d");
    CHECK(depfile_of(V{"cc", "-Wp,-MD", "-c", "a.c", "-o", "a.o"}) == "a.d");
    CHECK(depfile_of(V{"cc", "-Wp,-MD,x.d", "-MF", "y.d", "-c", "a.c"}) == "y.d"); // last wins
    CHECK(is_wp_depfile("-Wp,-MMD,f"));
    CHECK_FALSE(is_wp_depfile("-Wp,-MDX,f"));
    CHECK_FALSE(is_wp_depfile("-Wp,-MT,f"));
    Analysis a = an(kHip + "--offload-arch=gfx906 --offload-arch=gfx90a -Wp,-MD,o/.k.d -c k.hip");
    CHECK(a.writes_depfile);
    CHECK(a.depfile() == "o/.k.d");
    CHECK(an(kHip + "--offload-arch=gfx906 --offload-arch=gfx90a -MD -c k.hip").depfile() == "k.d");
}
