#include "compile/shell.h"
#include "edges/policy.h"
#include "elf_builder.h"
#include "fake_probe.h"
#include "ninja/writer.h"
#include "probe/objcopy.h"
#include "scratch.h"
#include "split/distribute.h"
#include "split/plan.h"
#include "util/file.h"

#include <algorithm>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc;
using namespace phc::split;
using phc::test::fake_probe;

namespace {

Plan make(const std::string& cmd, PlanOptions o) {
    compile::Analysis a = compile::analyze_string(cmd, {});
    REQUIRE_MESSAGE(a.decision.split(), a.decision.text);
    probe::ProbeResult p = fake_probe({"gfx906", "gfx90a:xnack+"});
    probe::apply_probe(a, p);
    REQUIRE(a.decision.split());
    o.tool = "/opt/phc-ninja";
    return make_plan(std::move(a), p, o);
}

bool has(const std::vector<std::string>& v, const std::string& w) {
    return std::find(v.begin(), v.end(), w) != v.end();
}

/// The words of `v` after the first "--" (the command device-ii runs).
std::vector<std::string> after_dashes(const std::vector<std::string>& v) {
    auto at = std::find(v.begin(), v.end(), "--");
    REQUIRE(at != v.end());
    return {at + 1, v.end()};
}

const std::string kCmd = "clang++-15 -x hip -O2 -DX=1 -Iinc -include pre.h "
                         "--offload-arch=gfx90a:xnack+ --offload-arch=gfx906 "
                         "-MD -MT k.o -MF k.o.d -c k.hip -o k.o";

const std::string kSection = "// __CLANG_OFFLOAD_BUNDLE____START__ hip-amdgcn-amd-amdhsa-gfx906\n"
                             "__global__ void k() {}\n"
                             "// __CLANG_OFFLOAD_BUNDLE____END__ hip-amdgcn-amd-amdhsa-gfx906\n";

int run_device_ii(std::vector<std::string> words) {
    words.insert(words.begin(), {"phc-ninja", "device-ii"});
    std::vector<char*> argv;
    for (auto& w : words)
        argv.push_back(w.data());
    return device_ii_main(static_cast<int>(argv.size() - 1), argv.data() + 1);
}

} // namespace

TEST_CASE("distribute: engines by name and by the compile's launcher") {
    CHECK(engine_from_name("icecc") == Engine::Icecc);
    CHECK(engine_from_name("distcc") == Engine::Distcc);
    CHECK(engine_from_name("none") == Engine::None);
    CHECK(!engine_from_name("ccache"));
    auto r = compile::recognise("/usr/bin/icecc clang++-15 -c a.hip");
    REQUIRE(r.command);
    CHECK(engine_of(*r.command) == Engine::Icecc);
    r = compile::recognise("ccache clang++-15 -c a.hip");
    REQUIRE(r.command);
    CHECK(engine_of(*r.command) == Engine::None);
}

TEST_CASE("distribute: the bundle markers") {
    CHECK(has_device_section(kSection, "gfx906"));
    CHECK(!has_device_section(kSection, "gfx90a"));
    CHECK(!has_device_section("__global__ void k() {}\n", "gfx906")); // the trap: unbundled
    // A section cut short (no END line) is no section.
    CHECK(!has_device_section(kSection.substr(0, kSection.rfind("// __CLANG")), "gfx906"));
    CHECK(has_device_section(
        "// __CLANG_OFFLOAD_BUNDLE____START__ hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+\n"
        "// __CLANG_OFFLOAD_BUNDLE____END__ hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+\n",
        "gfx90a:xnack+"));
    CHECK(!has_host_section(kSection));
    const std::string stub = host_stub("x86_64-pc-linux-gnu");
    CHECK(stub == "\n// __CLANG_OFFLOAD_BUNDLE____START__ host-x86_64-pc-linux-gnu\n\n"
                  "// __CLANG_OFFLOAD_BUNDLE____END__ host-x86_64-pc-linux-gnu\n");
    CHECK(has_host_section(kSection + stub));
}

TEST_CASE("distribute: a preprocess step and a compile of only its output per architecture") {
    PlanOptions o;
    o.distribute = Engine::Distcc;
    o.device_depfiles = true;
    Plan p = make(kCmd, o);
    CHECK(p.engine == Engine::Distcc);
    CHECK(p.local_reason.empty());
    REQUIRE(p.steps.size() == 6); // 2 x (preprocess, device), bundle, host
    for (size_t k = 0; k < 2; ++k) {
        const Step& pre = p.steps[2 * k];
        const Step& dev = p.steps[2 * k + 1];
        const std::string safe = safe_arch(pre.arch);
        CHECK(pre.kind == StepKind::Preprocess);
        CHECK(dev.kind == StepKind::Device);
        CHECK(pre.inputs == std::vector<std::string>{"k.hip"});
        CHECK(pre.outputs == std::vector<std::string>{"cpp.phc/k.o.phc/" + safe + ".ii"});
        CHECK(pre.depfile == "cpp.phc/k.o.phc/" + safe + ".d");
        // By construction: the compile reads nothing but the preprocess step's output.
        CHECK(dev.inputs == pre.outputs);
        CHECK(dev.depfile.empty());
        CHECK(dev.outputs == std::vector<std::string>{"k.o.phc/" + safe + ".o"});
        const auto pc = after_dashes(pre.argv);
        CHECK(pre.argv[0] == "/opt/phc-ninja");
        CHECK(pre.argv[1] == "device-ii");
        CHECK(has(pre.argv, "--output"));
        CHECK(pc[0] == "clang++-15");
        CHECK(has(pc, "-E"));
        CHECK(has(pc, "-dD")); // for device-ii's screen
        CHECK(has(pc, "--gpu-bundle-output"));
        CHECK(has(pc, "--offload-device-only"));
        CHECK(!has(pc, "-c"));
        CHECK(has(pc, "-cuid=" + p.cuid));
        CHECK(has(pc, "--offload-arch=" + pre.arch));
        CHECK(has(pc, "-MT"));
        CHECK(has(pc, pre.outputs[0])); // the depfile names the edge's output
        const auto dc = after_dashes(dev.argv);
        CHECK(has(dev.argv, "--input"));
        CHECK(dc[0] == "distcc");
        CHECK(dc[1] == "clang++-15");
        // The joined language directly before the input, which starts with 'c'.
        REQUIRE(dc.size() > 3);
        CHECK(dc[dc.size() - 3] == "-c");
        CHECK(dc[dc.size() - 2] == "-xhip-cpp-output");
        CHECK(dc.back() == pre.outputs[0]);
        CHECK(std::count(dc.begin(), dc.end(), "-c") == 1);
        for (const char* w : {"-x", "hip", "k.hip", "-DX=1", "-Iinc", "-include", "pre.h", "-MD",
                              "-MF", "-E", "--gpu-bundle-output"})
            CHECK_MESSAGE(!has(dc, w), w);
        CHECK(has(dc, "-Xclang"));
        CHECK(has(dc, "-cuid=" + p.cuid));
        CHECK(has(dc, "--no-gpu-bundle-output"));
        CHECK(has(dc, "-O2"));
        // What runs instead when the screen refuses the file: the local
        // device compile of the source, no engine, no depfile.
        auto local = std::find(dev.argv.begin(), dev.argv.end(), "--local");
        REQUIRE(local + 1 < dev.argv.end());
        std::vector<std::string> lc;
        CHECK(compile::split_words(*(local + 1), lc).empty());
        REQUIRE(!lc.empty());
        CHECK(lc[0] == "clang++-15");
        for (const char* w : {"k.hip", "-DX=1", "-Iinc", "-include", "pre.h", "-c",
                              "--no-gpu-bundle-output", "--offload-device-only"})
            CHECK_MESSAGE(has(lc, w), w);
        for (const char* w : {"-MD", "-MF", "-E", "distcc"})
            CHECK_MESSAGE(!has(lc, w), w);
        CHECK(has(lc, "-cuid=" + p.cuid));
        CHECK(has(lc, "--offload-arch=" + pre.arch));
        CHECK(has(lc, dev.outputs[0]));
    }
    // The bundler and the host compile are never wrapped.
    CHECK(p.steps[4].kind == StepKind::Bundle);
    CHECK(!has(p.steps[4].argv, "distcc"));
    CHECK(!has(p.steps[5].argv, "distcc"));
}

TEST_CASE("distribute: the launcher's engine, kept words; none keeps today's device steps") {
    const std::string cmd = "/usr/bin/icecc " + kCmd;
    Plan p = make(cmd, {});
    CHECK(p.engine == Engine::Icecc);
    CHECK(after_dashes(p.steps[1].argv)[0] == "/usr/bin/icecc");
    PlanOptions never;
    never.distribute = Engine::None;
    Plan q = make(cmd, never);
    CHECK(q.engine == Engine::None);
    CHECK(q.local_reason.empty());
    CHECK(q.steps[0].kind == StepKind::Device);
    CHECK(q.steps.size() == 4);
}

TEST_CASE("distribute: where the shape cannot be used, the reason") {
    PlanOptions o;
    o.distribute = Engine::Distcc;
    o.private_dir = "/tmp/phc-launch-1-abcdef";
    Plan p = make(kCmd, o);
    CHECK(p.engine == Engine::None);
    CHECK(p.local_reason.find("starts with 'c'") != std::string::npos);
    CHECK(p.steps[0].kind == StepKind::Device);
    o.distribute = Engine::Icecc; // icecc reads any path
    CHECK(make(kCmd, o).engine == Engine::Icecc);
    o.private_dir.clear();
    Plan h = make("hipcc --offload-arch=gfx906 --offload-arch=gfx90a:xnack+ -c k.hip -o k.o", o);
    CHECK(h.engine == Engine::None);
    CHECK(h.local_reason.find("hipcc drops --offload-arch=") != std::string::npos);
    o.distribute = Engine::Distcc;
    CHECK(make("hipcc --offload-arch=gfx906 --offload-arch=gfx90a:xnack+ -c k.hip -o k.o", o)
              .engine == Engine::None);
}

TEST_CASE("distribute: the edges (local preprocess, remote pool, bundle as ever)") {
    PlanOptions o;
    o.distribute = Engine::Icecc;
    o.device_depfiles = true;
    Plan p = make(kCmd, o);
    edges::Carry c;
    c.outputs = {"k.o"};
    c.inputs = {"k.hip"};
    c.order_only = {"gen.h"};
    c.deps = "gcc";
    c.depfile = "k.o.d";
    edges::Policy policy;
    policy.remote_pool = true;
    auto e = edges::compile_edges(p, c, policy);
    REQUIRE(e);
    const std::string& t = e->text;
    CAPTURE(t);
    CHECK(t.find("rule PHC_HIP_DEVICE_PP_") != std::string::npos);
    CHECK(t.find("description = HIP icecc $PHC_ARCH k.o\n  pool = phc_hip_remote\n") !=
          std::string::npos);
    CHECK(t.find("depfile = cpp.phc/k.o.phc/$PHC_SAFE.d") != std::string::npos);
    // The preprocess edges read the source and the original's order-only inputs.
    CHECK(t.find("build cpp.phc/k.o.phc/gfx906.ii: PHC_HIP_DEVICE_PP_") != std::string::npos);
    CHECK(t.find(" k.hip || gen.h\n") != std::string::npos);
    CHECK(t.find("build k.o.phc/gfx906.o: PHC_HIP_DEVICE_") != std::string::npos);
    CHECK(t.find(": PHC_HIP_DEVICE_PP_") < t.find("build k.o.phc/gfx906.o"));
    // The remote compile's only input is the preprocessed file.
    CHECK(t.find(" cpp.phc/k.o.phc/gfx906.ii\n  PHC_ARCH = gfx906\n") != std::string::npos);
    CHECK(t.find("icecc /usr/lib/llvm-15/bin/clang-offload-bundler") == std::string::npos);
    std::string rules;
    for (const auto& st : edges::split_rules(edges::Policy{}, 0, 7))
        if (auto ok = ninja::render_to(rules, st); !ok) FAIL(ok.error().message);
    CHECK(rules.find("pool phc_hip_remote\n  depth = 7\n") != std::string::npos);
    // Under the step runner the farm's compiles are of kind "remote" (their
    // records tell the report that their work ran elsewhere), the local
    // preprocess steps of kind "device".
    CHECK(budget_kind(p.steps[0], p) == "device");
    CHECK(budget_kind(p.steps[1], p) == "remote");
    policy.step = "/opt/phc-ninja step";
    auto stepped = edges::compile_edges(p, c, policy);
    REQUIRE(stepped);
    CHECK(stepped->text.find("step --kind remote") != std::string::npos);
    CHECK(stepped->text.find("step --kind device") != std::string::npos);
}

TEST_CASE("device-ii: an unbundled file is never compiled, and never left behind") {
    test::ScratchDir dir;
    const std::string bad = dir.file("bad.ii"), good = dir.file("good.ii");
    REQUIRE(util::write_file_atomic(bad, "__global__ void k() {}\n"));
    // The compile step refuses before it runs anything (`false` would fail too:
    // `true` would exec and end this test binary, so the refusal must come first).
    CHECK(run_device_ii({"--arch", "gfx906", "--input", bad, "--", "true"}) == 1);
    // The preprocess step: a compiler that writes an unbundled file fails, its output removed.
    CHECK(run_device_ii({"--arch", "gfx906", "--output", bad, "--host-triple",
                         "x86_64-pc-linux-gnu", "--", "sh", "-c", "printf 'int x;\\n' > " + bad}) ==
          1);
    CHECK(!std::filesystem::exists(bad));
    // One with another architecture's section fails too.
    CHECK(
        run_device_ii({"--arch", "gfx90a", "--output", good, "--host-triple", "x86_64-pc-linux-gnu",
                       "--", "sh", "-c", "cat > " + good + " <<'E'\n" + kSection + "E"}) == 1);
    CHECK(!std::filesystem::exists(good));
    // The right one gets the host section clang-15 needs.
    CHECK(
        run_device_ii({"--arch", "gfx906", "--output", good, "--host-triple", "x86_64-pc-linux-gnu",
                       "--", "sh", "-c", "cat > " + good + " <<'E'\n" + kSection + "E"}) == 0);
    auto text = util::read_file(good);
    REQUIRE(text);
    CHECK(*text == kSection + host_stub("x86_64-pc-linux-gnu"));
    // The compiler's own failure is the step's.
    CHECK(run_device_ii({"--arch", "gfx906", "--output", good, "--", "sh", "-c", "exit 3"}) == 3);
    CHECK(run_device_ii({"--arch", "gfx906", "--", "true"}) == 2); // neither --input nor --output
}

TEST_CASE("device-ii: the screen of a preprocessed file (pragmas naming macros)") {
    const std::string head = "# 1 \"k.hip\"\n#define PK 1\n#define F(x) x\n#undef F\n";
    // A pragma of words that are no macros: the file is compiled, its
    // #define and #undef lines blank (every line keeps its number).
    Screened ok = screen_preprocessed(head + "#pragma unroll\n#pragma GCC visibility "
                                             "push(default)\n# 7 \"k.hip\" 2\nint x;\n",
                                      "k.ii");
    CHECK(ok.unsafe.empty());
    CHECK(ok.text == "# 1 \"k.hip\"\n\n\n\n#pragma unroll\n#pragma GCC visibility "
                     "push(default)\n# 7 \"k.hip\" 2\nint x;\n");
    // clang -E leaves a pragma's macros as written; compiled from the file they
    // would not be expanded (#pragma pack(PK) ignored: another layout).
    Screened pack = screen_preprocessed(head + "struct A;\n  #  pragma pack(PK)\n", "k.ii");
    CHECK(pack.unsafe ==
          "k.ii:6: the pragma '  #  pragma pack(PK)' names the macro PK, which the compile of a "
          "preprocessed file would not expand");
    // A macro undefined before the pragma still counts (the screen is by name).
    CHECK(
        !screen_preprocessed(head + "#pragma clang loop unroll_count(F)\n", "k.ii").unsafe.empty());
    // Words inside literals and numbers are no identifiers.
    CHECK(screen_preprocessed(head + "#pragma clang diagnostic ignored \"PK\"\n#pragma unroll "
                                     "0x1PK\n#pragma message('PK')\n",
                              "k.ii")
              .unsafe.empty());
    // A literal that does not end on its line, or another directive: refused.
    CHECK(!screen_preprocessed("#pragma message(R\"(\")\" PK)\n", "k.ii").unsafe.empty());
    CHECK(screen_preprocessed("#ident \"x\"\n", "k.ii").unsafe ==
          "k.ii:1: '#ident \"x\"' is a directive that the compile of a preprocessed file "
          "would read again");
    // A macro from the command line (-dD prints it under "<command line>").
    CHECK(!screen_preprocessed("# 1 \"<command line>\"\n#define N 4\n# 1 \"k.hip\"\n#pragma "
                               "unroll N\n",
                               "k.ii")
               .unsafe.empty());
}

TEST_CASE("device-ii: a refused file compiles the source locally, never the file") {
    test::ScratchDir dir;
    const std::string pp = dir.file("k.ii"), out = dir.file("out");
    const std::string unsafe = "#define PK 1\n#pragma pack(PK)\n";
    REQUIRE(run_device_ii({"--arch", "gfx906", "--output", pp, "--host-triple",
                           "x86_64-pc-linux-gnu", "--", "sh", "-c",
                           "cat > " + pp + " <<'E'\n" + unsafe + kSection + "E"}) == 0);
    auto text = util::read_file(pp);
    REQUIRE(text);
    // Kept whole, #defines too, under the line that tells the compile step.
    CHECK(text->starts_with(std::string(kCompileLocally) + pp + ":2: the pragma"));
    CHECK(text->find("\n" + unsafe + kSection) != std::string::npos);
    // Without --local the compile step refuses (before it runs anything).
    CHECK(run_device_ii({"--arch", "gfx906", "--input", pp, "--", "true"}) == 1);
    // With it, the local command runs and the engine's does not. In a child:
    // the compile step execs; what ran writes its name to `out`.
    auto run_compile = [&]() -> std::string {
        pid_t pid = ::fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            run_device_ii({"--arch", "gfx906", "--input", pp, "--local",
                           "sh -c 'echo local > " + out + "'", "--", "sh", "-c",
                           "echo engine > " + out});
            std::_Exit(99);
        }
        int status = 0;
        REQUIRE(::waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        auto ran = util::read_file(out);
        REQUIRE(ran);
        return *ran;
    };
    CHECK(run_compile() == "local\n");
    // A safe file keeps running the engine's command.
    REQUIRE(
        run_device_ii({"--arch", "gfx906", "--output", pp, "--host-triple", "x86_64-pc-linux-gnu",
                       "--", "sh", "-c", "cat > " + pp + " <<'E'\n" + kSection + "E"}) == 0);
    CHECK(run_compile() == "engine\n");
}

TEST_CASE("distribute: --overlap-host's host compile on icecc, or why it stays local") {
    PlanOptions o;
    o.overlap_host = true;
    o.distribute = Engine::Icecc;
    compile::Analysis a = compile::analyze_string(kCmd, {});
    REQUIRE(a.decision.split());
    probe::ProbeResult p = fake_probe({"gfx906", "gfx90a:xnack+"});
    probe::apply_probe(a, p);
    o.tool = "/opt/phc-ninja";
    if (probe::objcopy().empty()) return; // no objcopy: no --overlap-host at all
    // Without a device library to embed as the placeholder: local, and why.
    Plan none = make_plan(a, p, o);
    CHECK(!none.host_remote);
    CHECK(none.host_local_reason.find("no ROCm device library") != std::string::npos);
    p.device_libraries = {"/lib/bc/ocml.bc", "/lib/bc/oclc_isa_version_906.bc"};
    Plan plan = make_plan(a, p, o);
    CHECK(plan.host_remote);
    CHECK(plan.host_local_reason.empty());
    REQUIRE(plan.steps.size() == 8); // 2 x (preprocess, device), bundle, 2 host, embed
    const Step& pre = plan.steps[5];
    const Step& host = plan.steps[6];
    const Step& embed = plan.steps[7];
    CHECK(pre.kind == StepKind::Host);
    CHECK(pre.inputs == std::vector<std::string>{"k.hip"});
    CHECK(pre.outputs == std::vector<std::string>{"cpp.phc/k.o.phc/host.ii"});
    CHECK(pre.depfile == "k.o.d"); // the original depfile, written by the local edge
    const auto pc = after_dashes(pre.argv);
    CHECK(pre.argv[1] == "device-ii");
    CHECK(has(pre.argv, "--host"));
    for (const char* w : {"-E", "-dD", "--offload-host-only", "-DX=1", "-MD", "k.hip"})
        CHECK_MESSAGE(has(pc, w), w);
    CHECK(!has(pc, "-c"));
    // The compile reads only the preprocessed file, through icecc, as a source
    // without includes or macros, naming the source as the driver does.
    CHECK(host.kind == StepKind::RemoteHost);
    CHECK(host.inputs == pre.outputs);
    CHECK(host.depfile.empty());
    CHECK(host.outputs == std::vector<std::string>{"k.o.phc/host.o"});
    const auto hc = after_dashes(host.argv);
    CHECK(hc[0] == "icecc");
    REQUIRE(hc.size() > 3);
    CHECK(hc[hc.size() - 2] == "-xhip");
    CHECK(hc.back() == pre.outputs[0]);
    for (const char* w :
         {"-nogpuinc", "-undef", "-main-file-name", "/lib/bc/oclc_isa_version_906.bc"})
        CHECK_MESSAGE(has(hc, w), w);
    // (k.hip only as -main-file-name's value)
    CHECK(std::count(hc.begin(), hc.end(), "k.hip") == 1);
    for (const char* w : {"-DX=1", "-Iinc", "-MD", "-MF", "-E"})
        CHECK_MESSAGE(!has(hc, w), std::string(w));
    auto at = std::find(host.argv.begin(), host.argv.end(), "--file-symbol");
    REQUIRE(at + 1 < host.argv.end());
    CHECK(*(at + 1) == "k.hip");
    // The local compile embeds the same placeholder, and writes no depfile.
    at = std::find(host.argv.begin(), host.argv.end(), "--local");
    REQUIRE(at + 1 < host.argv.end());
    std::vector<std::string> lc;
    CHECK(compile::split_words(*(at + 1), lc).empty());
    CHECK(has(lc, "k.hip"));
    CHECK(has(lc, "/lib/bc/oclc_isa_version_906.bc"));
    CHECK(!has(lc, "-MD"));
    CHECK(!has(lc, "icecc"));
    CHECK(embed.kind == StepKind::Embed);
    CHECK(has(embed.argv, "/lib/bc/oclc_isa_version_906.bc"));
    // distcc: local, and why.
    o.distribute = Engine::Distcc;
    Plan d = make_plan(a, p, o);
    CHECK(!d.host_remote);
    CHECK(d.host_local_reason.find("FILE symbol") != std::string::npos);
    // -g: local, and why.
    o.distribute = Engine::Icecc;
    compile::Analysis g = compile::analyze_string(kCmd + " -g", {});
    probe::apply_probe(g, p);
    Plan gp = make_plan(g, p, o);
    CHECK(!gp.host_remote);
    CHECK(gp.host_local_reason.find("with -g") != std::string::npos);
}

TEST_CASE("distribute: the kernels a preprocessed file defines (no templates, no declarations)") {
    const std::string text =
        "__attribute__((global)) void scale(float* p) { p[0] = 1; }\n"
        "extern \"C\" __attribute__((global)) void\n"
        "  __attribute__((amdgpu_flat_work_group_size(1, 256))) plain(int*) {}\n"
        "__attribute__((global)) void declared(int*);\n"
        "template <typename T>\n__attribute__((global)) void never(T* p) {}\n"
        "namespace { __attribute__((global)) void hidden() { } }\n";
    CHECK(split::defined_kernels(text) == std::vector<std::string>{"hidden", "plain", "scale"});
    CHECK(split::defined_kernels("int x;\n").empty());
}

TEST_CASE("distribute: an object from a farm is checked: AMDGPU, the architecture, the compiler, "
          "the kernels") {
    // An AMDGPU object for gfx906 (EF_AMDGPU_MACH 0x2f) by "clang version 15.0.7",
    // defining the kernel descriptor of scale(float*).
    auto amdgpu = [](uint16_t machine, uint32_t mach, const std::string& comment,
                     const std::string& kd) {
        std::string strtab = std::string(1, '\0') + kd + '\0';
        std::string sym(48, '\0'); // the null symbol, then kd: name 1, shndx 1 (defined)
        test::put(sym, 24, 1, 4);
        test::put(sym, 24 + 4, 1, 1); // STT_OBJECT
        test::put(sym, 24 + 6, 1, 2);
        std::string b = test::object({{".comment", std::string(1, '\0') + comment + '\0'},
                                      {".symtab", sym, 2, 3, 1, 24},
                                      {".strtab", strtab, 3}});
        test::put(b, 18, machine, 2);
        test::put(b, 48, 0x300 | mach, 4);
        return b;
    };
    const split::DeviceObjectWant want{"gfx906:xnack-", "Debian clang version 15.0.7", {"scale"}};
    CHECK(split::device_object_problem(
              amdgpu(224, 0x2f, "Debian clang version 15.0.7", "_Z5scalePf.kd"), want) == "");
    CHECK(split::device_object_problem("", want).starts_with("not an object (0 bytes"));
    CHECK(split::device_object_problem(
              amdgpu(62, 0x2f, "Debian clang version 15.0.7", "_Z5scalePf.kd"), want)
              .starts_with("not an AMDGPU object"));
    CHECK(split::device_object_problem(
              amdgpu(224, 0x3f, "Debian clang version 15.0.7", "_Z5scalePf.kd"), want)
              .starts_with("an object for another architecture than gfx906"));
    CHECK(split::device_object_problem(amdgpu(224, 0x2f, "clang version 19.1.0", "_Z5scalePf.kd"),
                                       want) ==
          "made by another compiler (clang version 19.1.0), not Debian clang version 15.0.7");
    CHECK(split::device_object_problem(
              amdgpu(224, 0x2f, "Debian clang version 15.0.7", "_Z5otherPf.kd"), want) ==
          "no kernel scale in it, which the source defines");
    // Bitcode (RDC, the new driver): the compiler's ident and the kernel names
    // are plain bytes of its metadata and string table blobs.
    const std::string bc = std::string("BC\xC0\xDE", 4) + std::string(8, '\x35') +
                           "Debian clang version 15.0.7" + std::string(3, '\0') + "_Z5scalePf";
    CHECK(split::device_object_problem(bc, want) == "");
    CHECK(split::device_object_problem(std::string("\xDE\xC0\x17\x0B", 4) + bc, want) == "");
    CHECK(split::device_object_problem(bc.substr(0, bc.size() - 10) + "_Z5otherPf", want) ==
          "no kernel scale in it, which the source defines");
    std::string other = bc;
    other.replace(other.find("15.0.7"), 6, "19.1.0");
    CHECK(split::device_object_problem(other, want) ==
          "bitcode made by another compiler (it does not name Debian clang version 15.0.7)");
    CHECK(split::device_object_problem(std::string("BD\xC0\xDE", 4) + "xx", want)
              .starts_with("not an object"));
}
