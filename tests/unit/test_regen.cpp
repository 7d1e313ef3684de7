#include "compile/analysis.h"
#include "compile/shell.h"
#include "fake_probe.h"
#include "ninja/manifest.h"
#include "ninja/writer.h"
#include "probe/objcopy.h"
#include "regen/edges.h"
#include "regen/original.h"
#include "regen/regen.h"
#include "scratch.h"
#include "util/file.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <variant>

using namespace phc;

namespace {

/// A device step as the planner makes it, for arch `a` of object `obj`.
split::Step device(const std::string& a, const std::string& obj, const std::string& extra = "") {
    split::Step s;
    s.kind = split::StepKind::Device;
    s.arch = a;
    std::string safe = split::safe_arch(a);
    s.argv = {"clang++-15",
              "--offload-arch=" + a,
              "-c",
              "k.hip",
              "-o",
              obj + ".phc/" + safe + ".o",
              "-MD",
              "-MF",
              obj + ".phc/" + safe + ".d",
              "--offload-device-only"};
    if (!extra.empty()) s.argv.push_back(extra);
    s.outputs = {obj + ".phc/" + safe + ".o"};
    s.inputs = {"k.hip"};
    s.depfile = obj + ".phc/" + safe + ".d";
    return s;
}

split::Plan plan_for(std::vector<split::Step> devices, const std::string& obj) {
    split::Plan p;
    p.private_dir = obj + ".phc";
    p.bundle = obj + ".phc/bundle.hipfb";
    p.analysis.output = obj;
    p.steps = std::move(devices);
    split::Step b;
    b.kind = split::StepKind::Bundle;
    b.argv = {"clang-offload-bundler", "-output=" + p.bundle};
    b.outputs = {p.bundle};
    for (const split::Step& d : p.steps)
        b.inputs.push_back(d.outputs[0]);
    p.steps.push_back(b);
    split::Step h;
    h.kind = split::StepKind::Host;
    h.argv = {"clang++-15", "--offload-host-only", "-c", "k.hip", "-o", obj};
    h.outputs = {obj};
    h.inputs = {"k.hip", p.bundle};
    p.steps.push_back(h);
    return p;
}

std::string text_of(const std::vector<ninja::NewStatement>& v) {
    std::string out;
    for (const auto& s : v) {
        auto r = ninja::render(s);
        REQUIRE(r.ok());
        out += *r;
    }
    return out;
}

regen::Carry carry_for(const std::string& obj) {
    regen::Carry c;
    c.outputs = {obj};
    c.implicit_outputs = {obj + ".extra"};
    c.inputs = {"k.hip"};
    c.implicit = {"gen.h"};
    c.order_only = {"order"};
    c.validations = {"check"};
    c.depfile = obj + ".d";
    c.deps = "gcc";
    c.restat = "1";
    return c;
}

/// The statements of the policy for `plan` (what other objects may share left out).
std::string edges_of(const split::Plan& plan, const regen::Carry& c, bool device_pool) {
    std::vector<ninja::NewStatement> shared;
    edges::Policy policy;
    policy.device_pool = device_pool;
    return text_of(edges::compile_statements(plan, c, policy, shared));
}

} // namespace

TEST_CASE("one device rule per object when the command template fits every architecture") {
    auto plan = plan_for({device("gfx906", "o/k.o"), device("gfx90a:xnack+", "o/k.o")}, "o/k.o");
    std::string t = edges_of(plan, carry_for("o/k.o"), false);
    CHECK(t.find("rule PHC_HIP_DEVICE_") != std::string::npos);
    CHECK(t.find("--offload-arch=$PHC_ARCH") != std::string::npos);
    CHECK(t.find("-o o/k.o.phc/$PHC_SAFE.o") != std::string::npos);
    CHECK(t.find("  depfile = o/k.o.phc/$PHC_SAFE.d\n") != std::string::npos);
    CHECK(t.find("build o/k.o.phc/gfx90a-xnack+.o: PHC_HIP_DEVICE_") != std::string::npos);
    CHECK(t.find("  PHC_ARCH = gfx90a:xnack+\n  PHC_SAFE = gfx90a-xnack+\n") != std::string::npos);
    CHECK(t.find("PHC_COMMAND = clang++-15 --offload-arch") == std::string::npos);
}

TEST_CASE("per-edge commands when no template reproduces every device command") {
    // An argument that differs per architecture in a way the template cannot express.
    auto plan =
        plan_for({device("gfx906", "o/k.o", "-DX=1"), device("gfx90a", "o/k.o", "-DX=2")}, "o/k.o");
    std::string t = edges_of(plan, carry_for("o/k.o"), true);
    CHECK(t.find("rule PHC_HIP_DEVICE_") == std::string::npos);
    CHECK(t.find("build o/k.o.phc/gfx906.o: PHC_HIP_DEVICE k.hip | gen.h || order\n") !=
          std::string::npos);
    CHECK(t.find("--offload-arch=gfx906 -c k.hip -o o/k.o.phc/gfx906.o") != std::string::npos);
    CHECK(t.find("-DX=2") != std::string::npos);
    CHECK(t.find("  pool = phc_hip_device\n") != std::string::npos);
    // An architecture name inside a path must not be templated either.
    auto named =
        plan_for({device("gfx906", "gfx906/k.o"), device("gfx90a", "gfx906/k.o")}, "gfx906/k.o");
    std::string u = edges_of(named, carry_for("gfx906/k.o"), false);
    CHECK(u.find("rule PHC_HIP_DEVICE_") == std::string::npos);
    CHECK(u.find("-o gfx906/k.o.phc/gfx90a.o") != std::string::npos);
}

TEST_CASE("the host edge keeps the original outputs, inputs, depfile, deps and restat") {
    auto plan = plan_for({device("gfx906", "o/k.o"), device("gfx90a", "o/k.o")}, "o/k.o");
    std::string t = edges_of(plan, carry_for("o/k.o"), false);
    CHECK(t.find("build o/k.o.phc/bundle.hipfb: PHC_HIP_BUNDLE_") != std::string::npos);
    CHECK(t.find(" o/k.o.phc/gfx906.o o/k.o.phc/gfx90a.o\n") != std::string::npos);
    CHECK(t.find("build o/k.o | o/k.o.extra: PHC_HIP_HOST k.hip | gen.h o/k.o.phc/bundle.hipfb || "
                 "order |@ check\n") != std::string::npos);
    CHECK(t.find("  PHC_DEPFILE = o/k.o.d\n  PHC_DEPS = gcc\n  PHC_RESTAT = 1\n") !=
          std::string::npos);
}

TEST_CASE("rules regen adds: names avoid clashes; the pool only with --device-jobs") {
    auto m = ninja::parse_manifest(
        "rule PHC_HIP_HOST\n  command = x\npool phc_hip_device\n  depth = 1\n");
    REQUIRE(m.ok());
    regen::Names n = regen::unique_names(*m);
    CHECK(n.host == "PHC_HIP_HOST_2");
    CHECK(n.device == "PHC_HIP_DEVICE");
    CHECK(n.pool == "phc_hip_device_2");
    edges::Policy policy;
    policy.names = n;
    CHECK(edges::split_rules(policy, 0).size() == 4); // device, bundle, host, link step
    auto with_pool = edges::split_rules(policy, 3);
    REQUIRE(with_pool.size() == 5);
    CHECK(std::get<ninja::PoolStatement>(with_pool[0]).depth == 3);
}

TEST_CASE("the original: a fresh manifest is saved, a rewritten one is read from its copy") {
    char dir[] = "/tmp/phc-regen-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string manifest = std::string(dir) + "/build.ninja";
    REQUIRE(util::write_file_atomic(manifest, "rule a\n  command = a\n").ok());
    auto fresh = regen::locate_original(manifest);
    REQUIRE(fresh.ok());
    CHECK(fresh->needs_save);
    CHECK(fresh->path == manifest);
    // A file shorter than the marker is a fresh one too.
    REQUIRE(util::write_file_atomic(manifest, "# p").ok());
    auto tiny = regen::locate_original(manifest);
    REQUIRE(tiny.ok());
    CHECK(tiny->needs_save);

    REQUIRE(util::write_file_atomic(manifest, std::string(regen::kMarker) + "x\n").ok());
    auto missing = regen::locate_original(manifest);
    REQUIRE_FALSE(missing.ok());
    CHECK(format_error("", missing.error()) ==
          manifest + ": error: rewritten by phc-ninja, but its original " + manifest +
              ".cmake is missing; re-run cmake");
    REQUIRE(util::write_file_atomic(manifest + ".cmake", "rule a\n  command = a\n").ok());
    auto kept = regen::locate_original(manifest);
    REQUIRE(kept.ok());
    CHECK_FALSE(kept->needs_save);
    CHECK(kept->path == manifest + ".cmake");
    ::unlink((manifest + ".cmake").c_str());
    ::unlink(manifest.c_str());
    ::rmdir(dir);
}

TEST_CASE("summary line") {
    regen::Summary s;
    s.objects_split = 3;
    s.device_edges = 9;
    s.other_edges = 4;
    s.left = {{"single-arch", 2}, {"rdc", 1}};
    s.probes_run = 1;
    s.written = {"build.ninja"};
    CHECK(regen::summary_line(s, false) ==
          "phc-ninja regen: split 3 objects into 9 device edges; left alone 3 HIP edges (rdc: 1, "
          "single-arch: 2); 4 other edges; 1 compiler probe; wrote build.ninja");
    s.written.clear();
    CHECK(regen::summary_line(s, true).ends_with("1 compiler probe; up to date"));
}

TEST_CASE("summary line: a build without a multi-architecture HIP compile says so") {
    regen::Summary s;
    s.other_edges = 5;
    s.written = {"build.ninja"};
    CHECK(regen::summary_line(s, false) ==
          "phc-ninja regen: no multi-architecture HIP compiles among 5 edges; 0 compiler probes; "
          "wrote build.ninja");
    s.left = {{"single-arch", 2}, {"not-hip", 1}};
    s.probes_run = 1;
    CHECK(regen::summary_line(s, true) ==
          "phc-ninja regen: no multi-architecture HIP compiles among 8 edges (not-hip: 1, "
          "single-arch: 2); 1 compiler probe; would write build.ninja");
    // A multi-architecture compile left alone is not "no multi-architecture compile".
    s.left["save-temps"] = 1;
    CHECK(regen::summary_line(s, false).starts_with(
        "phc-ninja regen: split 0 objects into 0 device edges; left alone 4 HIP edges"));
    s.left.erase("save-temps");
    s.links_split = 1;
    s.device_links = 2;
    CHECK(regen::summary_line(s, false).starts_with(
        "phc-ninja regen: split 0 objects into 0 device edges; split 1 RDC link into 2"));
}

TEST_CASE("regen on several threads writes exactly what one thread writes") {
    test::InScratch in("phc-regen");
    const std::string& dir = in.dir();
    // 120 edges: split ones (two architectures), single-architecture ones left
    // alone, and plain C++ ones, interleaved; probed once with the real clang-15.
    std::string text = "rule CXX\n  command = $LAUNCHER /usr/bin/clang++-15 $FLAGS -c $in -o $out\n"
                       "  depfile = $out.d\n  deps = gcc\n";
    const std::string hip = "-x hip --rocm-path=/usr "
                            "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode -MD "
                            "-MF $out.d";
    for (int i = 0; i < 120; ++i) {
        std::string n = std::to_string(i);
        std::string flags = i % 3 == 2   ? "-O2"
                            : i % 3 == 1 ? hip + " --offload-arch=gfx906"
                                         : hip + " --offload-arch=gfx906 --offload-arch=gfx90a";
        text += "build obj/k" + n + ".o: CXX src/k" + n + (i % 3 == 2 ? ".cpp" : ".hip") +
                "\n  FLAGS = " + flags + " -DN=" + n + "\n";
    }
    REQUIRE(util::write_file_atomic(dir + "/build.ninja", text).ok());
    std::string out[2];
    for (int threads : {1, 3}) {
        regen::Options o;
        o.prober = test::fake_prober();
        o.output = threads == 1 ? "one.ninja" : "many.ninja";
        o.threads = threads;
        auto r = regen::run(o);
        REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
        CHECK(r->objects_split == 40);
        CHECK(r->left.at("single-arch") == 40);
        CHECK(r->other_edges == 40);
        REQUIRE(r->decisions.size() == 80);
        for (size_t k = 0; k < r->decisions.size(); ++k)
            CHECK(r->decisions[k].object ==
                  "obj/k" + std::to_string(k / 2 * 3 + k % 2) + ".o"); // manifest order
        auto t = util::read_file(o.output);
        REQUIRE(t.ok());
        out[threads == 1 ? 0 : 1] = *t;
    }
    CHECK(out[0].size() > text.size());
    CHECK(out[0] == out[1]);
}

TEST_CASE("the planner's own steps are templated, with paths in the build directory") {
    split::Plan plan = test::fake_plan(
        "cd b && ccache /usr/bin/clang++-15 -x hip -O2 --offload-arch=gfx90a:xnack+ "
        "--offload-arch=gfx906 -MD -MT k.o -MF k.o.d -c ../k.hip -o k.o",
        {"gfx906", "gfx90a:xnack+"});
    regen::Carry c = carry_for("b/k.o");
    std::string t = edges_of(plan, c, false);
    CHECK(t.find("rule PHC_HIP_DEVICE_") != std::string::npos);
    CHECK(t.find("  command = cd b && ccache /usr/bin/clang++-15 ") != std::string::npos);
    CHECK(t.find("--offload-arch=$PHC_ARCH") != std::string::npos);
    CHECK(t.find("build b/k.o.phc/gfx90a-xnack+.o: PHC_HIP_DEVICE_") != std::string::npos);
    CHECK(t.find("build b/k.o.phc/bundle.hipfb: PHC_HIP_BUNDLE") != std::string::npos);
    CHECK(t.find(" b/k.o.phc/gfx906.o b/k.o.phc/gfx90a-xnack+.o\n") != std::string::npos);
    CHECK(t.find("PHC_HIP_HOST k.hip | gen.h b/k.o.phc/bundle.hipfb") != std::string::npos);
}

namespace {

/// The plan of a compact compile (a long shared start, a bundle rule to
/// share) for gfx906 and `arch2`.
split::Plan compact_plan(const std::string& arch2) {
    return test::fake_plan("/usr/bin/clang++-15 -x hip -O2 '-DA=$x' "
                           "-I/some/long/include/path/to/make/the/shared/start/long "
                           "--offload-arch=" +
                               arch2 +
                               " --offload-arch=gfx906 -MD -MT k.o -MF k.o.d -c ../k.hip -o k.o",
                           {"gfx906", arch2});
}

/// The statements of `plan` under `policy`, with the split rules and what
/// they share first (into `shared` too, when not null).
std::string compact_text(const split::Plan& plan, const edges::Policy& policy,
                         std::vector<ninja::NewStatement>* shared_out = nullptr) {
    std::vector<ninja::NewStatement> shared;
    std::vector<ninja::NewStatement> edges =
        edges::compile_statements(plan, carry_for("k.o"), policy, shared);
    std::vector<ninja::NewStatement> all(edges::split_rules(policy, 0));
    all.insert(all.end(), shared.begin(), shared.end());
    all.insert(all.end(), edges.begin(), edges.end());
    if (shared_out) *shared_out = shared;
    return text_of(all);
}

/// What ninja runs for each edge of `text`, in order, and each edge's outputs.
std::vector<std::string> evaluated(const std::string& text,
                                   std::vector<std::vector<std::string>>* outputs = nullptr) {
    auto m = ninja::parse_manifest(text);
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
    std::vector<std::string> commands;
    for (size_t i = 0; i < m->edge_count(); ++i) {
        auto cmd = m->edge(i).evaluate("command");
        REQUIRE(cmd.ok());
        commands.push_back(*cmd);
        if (!outputs) continue;
        std::vector<std::string> outs;
        for (std::string_view out : m->edge(i).outputs())
            outs.emplace_back(out);
        outputs->push_back(std::move(outs));
    }
    return commands;
}

} // namespace

TEST_CASE("compact edges (shared bundle rule, shared command start) evaluate to the steps") {
    split::Plan plan = compact_plan("gfx90a:xnack+");
    std::vector<ninja::NewStatement> shared;
    const std::string text = compact_text(plan, edges::Policy{}, &shared);
    REQUIRE(shared.size() == 2); // the command start, the bundle rule
    REQUIRE(std::holds_alternative<ninja::Binding>(shared[0]));
    REQUIRE(std::holds_alternative<ninja::RuleStatement>(shared[1]));
    const std::string bundle_rule = std::get<ninja::RuleStatement>(shared[1]).name;
    CHECK(text.find("PHC_ARGS_") != std::string::npos);
    CHECK(text.find("build k.o.phc/bundle.hipfb: " + bundle_rule + " ") != std::string::npos);
    CHECK(text.find("-output=${PHC_OBJECT}.phc/bundle.hipfb") != std::string::npos);
    // What ninja runs for each edge is exactly the step's command.
    const std::vector<std::string> commands = evaluated(text);
    REQUIRE(commands.size() == plan.steps.size());
    for (size_t k = 0; k < plan.steps.size(); ++k)
        CHECK(commands[k] == plan.steps[k].shell());
}

TEST_CASE("under the step runner every edge runs its step's argv, named by kind and output") {
    edges::Policy policy;
    policy.step = "phc step --records /r";
    policy.sets = "s.ninja";
    for (const bool templated : {true, false}) {
        CAPTURE(templated);
        split::Plan plan = compact_plan("gfx90a");
        if (!templated)
            // Each device step differs beyond its architecture: no template.
            for (split::Step& st : plan.steps)
                if (st.kind == split::StepKind::Device) st.argv.push_back("-D" + st.arch);
        std::vector<std::vector<std::string>> outputs;
        const std::vector<std::string> commands = evaluated(compact_text(plan, policy), &outputs);
        REQUIRE(commands.size() == plan.steps.size());
        for (size_t k = 0; k < plan.steps.size(); ++k) {
            const split::Step& st = plan.steps[k];
            CAPTURE(commands[k]);
            std::vector<std::string> words;
            REQUIRE(compile::split_words(commands[k], words).empty());
            auto dashes = std::find(words.begin(), words.end(), "--");
            REQUIRE(dashes != words.end());
            // After "--": exactly the step's program and arguments.
            CHECK(std::vector<std::string>(dashes + 1, words.end()) == st.argv);
            const std::vector<std::string> head(words.begin(), dashes);
            REQUIRE(head.size() >= 6);
            CHECK(std::vector<std::string>(head.begin(), head.begin() + 6) ==
                  std::vector<std::string>{"phc", "step", "--records", "/r", "--kind",
                                           std::string(split::budget_kind(st.kind))});
            // The words before "--" end with the edge's outputs.
            REQUIRE(head.size() >= 6 + outputs[k].size());
            CHECK(std::vector<std::string>(head.end() - static_cast<long>(outputs[k].size()),
                                           head.end()) == outputs[k]);
            // Device and host compiles make their depfile a header set.
            const std::string opts = fmt::format(" {} ", fmt::join(head, " "));
            const bool sets =
                st.kind == split::StepKind::Device || st.kind == split::StepKind::Host;
            CHECK((opts.find(" --sets s.ninja --depfile ") != std::string::npos) == sets);
            if (st.kind == split::StepKind::Device)
                CHECK(opts.find(" --depfile " + st.depfile + " --input k.hip ") !=
                      std::string::npos);
            if (st.kind == split::StepKind::Host)
                CHECK(opts.find(" --depfile k.o.d --input k.hip ") != std::string::npos);
        }
    }
}

TEST_CASE("under the step runner a step's folder and environment are the runner's options") {
    split::Step st;
    st.kind = split::StepKind::DeviceLink;
    st.cwd = "sub dir";
    st.env = {"LIBRARY_PATH=/x y"};
    st.argv = {"lld", "-o", "a.out"};
    st.outputs = {"a.out"};
    st.description = "link";
    split::LinkPlan plan;
    plan.steps = {st};
    plan.analysis.output = "a.out";
    regen::Carry c;
    c.outputs = {"a.out"};
    edges::Policy policy;
    policy.step = "phc step --records /r";
    policy.sets = "s.ninja";
    auto e = edges::link_edges(plan, c, policy);
    REQUIRE(e.ok());
    std::vector<ninja::NewStatement> all(edges::split_rules(policy, 0));
    std::string text = text_of(all) + e->text;
    auto m = ninja::parse_manifest(text);
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
    REQUIRE(m->edge_count() == 1);
    auto cmd = m->edge(0).evaluate("command");
    REQUIRE(cmd.ok());
    std::vector<std::string> words;
    REQUIRE(compile::split_words(*cmd, words).empty());
    CAPTURE(*cmd);
    CHECK(words == std::vector<std::string>{"phc", "step", "--records", "/r", "--kind", "devlink",
                                            "--cd", "sub dir", "--env", "LIBRARY_PATH=/x y",
                                            "sub dir/a.out", "--", "lld", "-o", "a.out"});
}

namespace {

/// A HIP compile rule for two architectures with clang-15 ($CC), extra $FLAGS.
constexpr const char* kHipRule =
    "CC = clang++-15\nrule HIP\n  command = $CC -x hip --rocm-path=/usr "
    "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode --offload-arch=gfx906 "
    "--offload-arch=gfx90a $FLAGS -c $in -o $out\n";

std::string read(const std::string& path) {
    auto t = util::read_file(path);
    REQUIRE_MESSAGE(t.ok(), path);
    return *t;
}

void write(const std::string& path, const std::string& text) {
    REQUIRE(util::write_file_atomic(path, text).ok());
}

/// regen in place with a re-run hook (as if run as `self`), on one thread.
Result<regen::Summary> regen_in_place(const std::string& manifest = "build.ninja",
                                      bool strict = false) {
    regen::Options o;
    o.prober = test::fake_prober();
    o.manifest = manifest;
    o.threads = 1;
    o.strict = strict;
    o.self = "/opt/phc/phc-ninja";
    char cwd[4096];
    REQUIRE(::getcwd(cwd, sizeof cwd) != nullptr);
    o.build_dir = cwd;
    return regen::run(o);
}

/// ./clang++, a stand-in for clang-15 (no compiler runs): it prints clang-15's
/// recorded `-###` jobs, and rejects -fno-such-flag... options as clang does.
void write_fake_clang() {
    // Its arguments may come in a response file (a long probe's, probe.h).
    write("clang++", "#!/bin/sh\nfor a; do case $a in @*) ! grep -q -- -fno-such-flag "
                     "\"${a#@}\" || { echo \"clang: error: unknown argument\" >&2; exit 1; };; "
                     "-fno-such-flag*) "
                     "echo \"clang: error: unknown argument: '$a'\" >&2; exit 1;; esac; done\n"
                     "cat '" PHC_TEST_DATA "/split/c15.txt' >&2\n");
    REQUIRE(::chmod("clang++", 0755) == 0);
}

/// kHipRule with ./clang++ (write_fake_clang) as the compiler: probed for real.
std::string fake_clang_rule() {
    std::string rule = kHipRule;
    rule.replace(rule.find("clang++-15"), 10, "./clang++");
    return rule;
}

size_t count(const std::string& text, std::string_view what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("a CMake build directory of another generator: the error says how to go on") {
    test::InScratch in;
    write("CMakeCache.txt", "CMAKE_BUILD_TYPE:STRING=\nCMAKE_GENERATOR:INTERNAL=Unix Makefiles\n");
    write("Makefile", "all:\n");
    auto r = regen_in_place();
    REQUIRE_FALSE(r.ok());
    CHECK(format_error("phc-ninja regen", r.error()) ==
          "build.ninja: error: not found: CMake configured this directory with the \"Unix "
          "Makefiles\" generator; re-configure it with -G Ninja, or use phc-launch "
          "(-DCMAKE_HIP_COMPILER_LAUNCHER=phc-launch) or phc-ninja gen "
          "(-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)");
    // A Ninja build without its manifest is only that.
    write("CMakeCache.txt", "CMAKE_GENERATOR:INTERNAL=Ninja\n");
    auto ninja = regen_in_place();
    REQUIRE_FALSE(ninja.ok());
    CHECK(ninja.error().message.find("generator") == std::string::npos);
}

TEST_CASE("a compiler that cannot be probed leaves its edges alone; --strict fails") {
    test::InScratch in;
    write_fake_clang();
    write("build.ninja", fake_clang_rule() +
                             "build a.o: HIP a.hip\n"
                             "build b.o: HIP b.hip\n  CC = /nonexistent/clang++\n"
                             "build c.o: HIP c.hip\n  FLAGS = -DC=1\n"
                             "build d.o: HIP d.hip\n  FLAGS = -fno-such-flag-for-phc\n");
    {
        regen::Options o;
        o.output = "out.ninja";
        o.threads = 1;
        o.prober = probe::Prober{}; // the fake clang's jobs are canned: no guard
        auto r = regen::run(o);
        REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
        CHECK(r->objects_split == 2);
        CHECK(r->left.at("probe-failed") == 2);
        REQUIRE(r->decisions.size() == 4);
        CHECK(r->decisions[1].object == "b.o");
        CHECK(r->decisions[1].code == "probe-failed");
        CHECK(r->decisions[1].text == "compiler '/nonexistent/clang++' not found");
        const std::string& flag = r->decisions[3].text;
        CHECK(r->decisions[3].code == "probe-failed");
        // The command as written, not the probe's scratch copy; the compiler's first error line.
        CHECK(flag.starts_with("compiler probe `./clang++ -x hip "));
        CHECK(flag.find(
                  "failed (exit 1): clang: error: unknown argument: '-fno-such-flag-for-phc'") !=
              std::string::npos);
        CHECK(flag.find("TMPDIR") == std::string::npos);
        CHECK(flag.find("phc-probe-") == std::string::npos);
        const std::string out = read("out.ninja");
        CHECK(out.find("build b.o: HIP b.hip\n") != std::string::npos); // as it was
        CHECK(out.find("build a.o.phc/gfx906.o: ") != std::string::npos);
        CHECK(out.find("build c.o.phc/gfx906.o: ") != std::string::npos);
        CHECK(regen::summary_line(*r, false).find("left alone 2 HIP edges (probe-failed: 2)") !=
              std::string::npos);
    }
    regen::Options o;
    o.output = "strict.ninja";
    o.strict = true;
    o.prober = probe::Prober{};
    auto r = regen::run(o);
    REQUIRE_FALSE(r.ok());
    CHECK(format_error("", r.error()) ==
          "build.ninja:5: error: compiler '/nonexistent/clang++' not found");
    CHECK_FALSE(util::file_exists("strict.ninja"));
}

TEST_CASE("probe errors quote the command cut short, never the whole argv") {
    test::InScratch in;
    write_fake_clang();
    std::string defines;
    for (int i = 0; i < 20000; ++i)
        defines += " -DPHC_LONG_DEFINE_" + std::to_string(i);
    write("build.ninja",
          fake_clang_rule() + "build a.o: HIP a.hip\n  FLAGS = -fno-such-flag" + defines + "\n");
    regen::Options o;
    o.output = "out.ninja";
    auto r = regen::run(o);
    REQUIRE(r.ok());
    REQUIRE(r->decisions.size() == 1);
    const std::string& why = r->decisions[0].text;
    CHECK(r->decisions[0].code == "probe-failed");
    CHECK(why.size() < 500);
    CHECK(why.find(" ... ") != std::string::npos);
    CAPTURE(why);
    CHECK(why.find("-c a.hip -o a.o -###` failed") != std::string::npos); // its end is kept
    CHECK(why.find("PHCSNTL") == std::string::npos); // a shape's sentinels never show
}

TEST_CASE("split files an existing edge already writes or reads: the edge is left alone") {
    test::InScratch in;
    write("build.ninja", std::string(kHipRule) + "rule cp\n  command = cp $in $out\n"
                                                 "build a.o: HIP a.hip\n"
                                                 "build b.o: HIP b.hip\n"
                                                 "build c.o: HIP c.hip\n"
                                                 "build a.o.phc/gfx906.o: cp x.o\n"
                                                 "build y: cp b.o.phc/bundle.hipfb\n");
    regen::Options o;
    o.prober = test::fake_prober();
    o.output = "out.ninja";
    o.threads = 1;
    auto r = regen::run(o);
    REQUIRE(r.ok());
    CHECK(r->objects_split == 1);
    CHECK(r->left.at("output-clash") == 2);
    REQUIRE(r->decisions.size() == 3);
    CHECK(r->decisions[0].code == "output-clash");
    CHECK(r->decisions[0].text == "the split would write a.o.phc/gfx906.o, which the edge at "
                                  "build.ninja:9 already writes");
    CHECK(r->decisions[1].text ==
          "the split would write b.o.phc/bundle.hipfb, which the manifest already reads as an "
          "input");
    CHECK(r->decisions[2].split);
    // ninja accepts the result: no output has two edges.
    auto m = ninja::load_manifest("out.ninja");
    REQUIRE_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));
}

TEST_CASE(
    "links and custom commands that look like HIP are other edges, not HIP edges left alone") {
    test::InScratch in;
    write("build.ninja",
          std::string(kHipRule) +
              "rule LINK\n  command = : && clang++-15 --offload-arch=gfx906 --offload-arch=gfx90a "
              "$in -o $out && :\n"
              "rule CUSTOM\n  command = cd /tmp && /usr/bin/cmake -E copy k.hip $out\n"
              "rule SCRIPT\n  command = hipcc --version | tee $out\n"
              "rule PIPE\n  command = clang++-15 -x hip --offload-arch=gfx906 "
              "--offload-arch=gfx90a -c $in -o $out | tee log\n"
              "build a.o: HIP a.hip\n"
              "build app: LINK a.o\n"
              "build copy.hip: CUSTOM k.hip\n"
              "build version: SCRIPT\n"
              "build p.o: PIPE p.hip\n");
    regen::Options o;
    o.prober = test::fake_prober();
    o.output = "out.ninja";
    auto r = regen::run(o);
    REQUIRE(r.ok());
    CHECK(r->objects_split == 1);
    CHECK(r->other_edges == 3);
    // A compile inside shell structure regen does not model is still a HIP compile.
    CHECK(r->left == std::map<std::string, size_t>{{"not-simple", 1}});
    REQUIRE(r->decisions.size() == 2);
    CHECK(r->decisions[1].object == "p.o");
}

TEST_CASE("a probe cache folder that cannot be made does not stop regen") {
    test::InScratch in;
    write("build.ninja", std::string(kHipRule) + "build a.o: HIP a.hip\n");
    write(".phc-ninja", "not a folder\n"); // as a read-only build directory would refuse it
    regen::Options o;
    o.prober = test::fake_prober();
    o.output = in.dir() + "/out/elsewhere.ninja";
    REQUIRE(util::make_dirs(in.dir() + "/out").ok());
    auto r = regen::run(o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    CHECK(r->objects_split == 1);
    REQUIRE(r->warnings.size() == 1);
    CHECK(r->warnings[0].find(".phc-ninja: cannot be used (") != std::string::npos);
    CHECK(r->warnings[0].find("error:") == std::string::npos); // said as a warning, once
    CHECK(r->warnings[0].ends_with("compiler probes are kept in memory for this run"));
}

TEST_CASE("regen recognises its own output without its first line") {
    test::InScratch in;
    const std::string cmake = std::string(kHipRule) +
                              "rule RERUN_CMAKE\n  command = cmake --regenerate-during-build\n"
                              "  generator = 1\n"
                              "build a.o: HIP a.hip\n"
                              "build build.ninja: RERUN_CMAKE CMakeLists.txt\n";
    write("build.ninja", cmake);
    REQUIRE(regen_in_place().ok());
    const std::string split = read("build.ninja");
    CHECK(read("build.ninja.cmake") == cmake);
    // The marker line deleted by hand: the lines after it, or the rules, still tell.
    write("build.ninja", split.substr(split.find('\n') + 1));
    auto again = regen_in_place();
    REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
    CHECK(read("build.ninja.cmake") == cmake);
    CHECK(read("build.ninja") == split);
    // Nothing split and every comment line gone: the hook still tells.
    const std::string plain = "rule RERUN_CMAKE\n  command = cmake --regenerate-during-build\n"
                              "  generator = 1\nbuild build.ninja: RERUN_CMAKE CMakeLists.txt\n";
    write("build.ninja", plain);
    REQUIRE(regen_in_place().ok());
    std::string hooked = read("build.ninja");
    CHECK(count(hooked, "regen -C ") == 2); // the hook and its stand-in's retry
    write("build.ninja", hooked.substr(hooked.find("\n\n") + 2));
    REQUIRE(regen_in_place().ok());
    CHECK(read("build.ninja.cmake") == plain);
    CHECK(read("build.ninja") == hooked);
    // A manifest of someone else's that names rules like regen's is no rewritten one.
    write("build.ninja", "rule PHC_HIP_DEVICE\n  command = true\nbuild x: PHC_HIP_DEVICE\n");
    REQUIRE(regen_in_place().ok());
    CHECK(read("build.ninja.cmake").starts_with("rule PHC_HIP_DEVICE\n"));
}

TEST_CASE("Ninja Multi-Config: one regen rewrites every configuration, and their shared hook") {
    test::InScratch in;
    REQUIRE(util::make_dirs("CMakeFiles").ok());
    write("CMakeCache.txt", "CMAKE_CONFIGURATION_TYPES:STRING=Debug;Release\n"
                            "CMAKE_GENERATOR:INTERNAL=Ninja Multi-Config\n");
    // As CMake 3.25 lays it out: build-<Config>.ninja includes impl-<Config>.ninja,
    // which includes common.ninja, home of the generator edge; build.ninja is Debug's alias.
    write("CMakeFiles/common.ninja",
          std::string(kHipRule) + "rule RERUN_CMAKE\n  command = cmake --regenerate-during-build\n"
                                  "  generator = 1\n"
                                  "build CMakeFiles/impl-Debug.ninja build-Debug.ninja "
                                  "CMakeFiles/impl-Release.ninja build-Release.ninja build.ninja: "
                                  "RERUN_CMAKE CMakeLists.txt\n");
    for (std::string config : {"Debug", "Release"}) {
        write("CMakeFiles/impl-" + config + ".ninja",
              "include CMakeFiles/common.ninja\nbuild " + config + "/k.o: HIP k.hip\n");
        write("build-" + config + ".ninja",
              "include CMakeFiles/impl-" + config + ".ninja\nbuild k: phony " + config + "/k.o\n");
    }
    write("build.ninja", "include CMakeFiles/impl-Debug.ninja\nbuild k: phony Debug/k.o\n");
    for (std::string manifest : {"build.ninja", "build-Release.ninja"}) {
        CAPTURE(manifest);
        auto r = regen_in_place(manifest);
        REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
        std::vector<std::string> tops = {"build.ninja", "build-Debug.ninja", "build-Release.ninja"};
        // The others in the order of the generator edge's outputs.
        if (manifest != "build.ninja")
            tops = {"build-Release.ninja", "build-Debug.ninja", "build.ninja"};
        CHECK(r->manifests == tops);
        CHECK(r->objects_split == 2); // Debug's edges counted once, though two tops include them
        REQUIRE(r->decisions.size() == 2);
        CHECK(r->decisions[0].object == (manifest == "build.ninja" ? "Debug/k.o" : "Release/k.o"));
        for (std::string top : {"build.ninja", "build-Debug.ninja", "build-Release.ninja"}) {
            CAPTURE(top);
            const std::string text = read(top);
            CHECK(text.starts_with(regen::kMarker));
            CHECK(text.find(top == "build-Release.ninja"
                                ? "include CMakeFiles/impl-Release.ninja.phc"
                                : "include CMakeFiles/impl-Debug.ninja.phc") != std::string::npos);
            CHECK(read(top + ".cmake").starts_with("include CMakeFiles/impl-"));
        }
        CHECK(read("CMakeFiles/impl-Release.ninja.phc").find("build Release/k.o.phc/gfx90a.o: ") !=
              std::string::npos);
        // One hook for all: it puts stand-ins in place of every top CMake rewrites, then
        // runs regen, which rewrites them all again.
        const std::string common = read("CMakeFiles/common.ninja.phc");
        CHECK(count(common, "&& /opt/phc/phc-ninja regen -C ") == 1);
        const bool f_as_given =
            manifest == "build.ninja"
                ? common.find("regen -C " + in.dir() + " -f") == std::string::npos
                : common.find("regen -C " + in.dir() + " -f " + manifest) != std::string::npos;
        CHECK(f_as_given);
        for (std::string top : {"build.ninja", "build-Debug.ninja", "build-Release.ninja"})
            CHECK(common.find(" " + in.dir() + "/" + top) != std::string::npos);
    }
}

TEST_CASE(
    "--only and --skip: other objects are left alone (not-selected), and the hook keeps them") {
    test::InScratch in;
    write("build.ninja", std::string(kHipRule) +
                             "build obj/big.o: HIP big.hip\n"
                             "build obj/small.o: HIP small.hip\n"
                             "build obj/gone.o: HIP gone.hip\n  CC = /nonexistent/clang++\n"
                             "rule RERUN\n  command = cmake .\n  generator = 1\n"
                             "build build.ninja: RERUN CMakeLists.txt\n");
    regen::Options o;
    o.prober = test::fake_prober();
    o.threads = 1;
    o.strict = true; // the unselected object's probe failure is not an error
    o.self = "/opt/phc/phc-ninja";
    o.build_dir = in.dir();
    auto select = split::Selection::make("", "small|gone");
    REQUIRE(select.ok());
    o.select = *select;
    auto r = regen::run(o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    CHECK(r->objects_split == 1);
    CHECK(r->left.at("not-selected") == 2);
    REQUIRE(r->decisions.size() == 3);
    CHECK(r->decisions[1].code == "not-selected");
    CHECK(r->decisions[1].text == "--skip 'small|gone' matches obj/small.o");
    CHECK(r->decisions[2].code == "not-selected");
    const std::string out = read("build.ninja");
    CHECK(out.find("build obj/small.o: HIP small.hip\n") != std::string::npos);
    CHECK(out.find("obj/big.o.phc/gfx906.o") != std::string::npos);
    CHECK(out.find("regen -C " + in.dir() + " --strict --skip 'small|gone' --quiet") !=
          std::string::npos);
}

namespace {

/// Runs regen (recorded probes, one thread) on build.ninja of the current
/// directory, writing `out`; its text.
std::string regen_to(const std::string& out) {
    regen::Options o;
    o.prober = test::fake_prober();
    o.output = out;
    o.threads = 1;
    auto r = regen::run(o);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto t = util::read_file(out);
    REQUIRE(t.ok());
    return *t;
}

/// The first output of each build statement of `text`, in order.
std::vector<std::string> build_outputs_in_order(const std::string& text) {
    std::vector<std::string> builds;
    for (size_t at = text.find("\nbuild "); at != std::string::npos;
         at = text.find("\nbuild ", at + 1))
        builds.push_back(text.substr(at + 7, text.find(':', at) - at - 7));
    return builds;
}

} // namespace

TEST_CASE("with .ninja_log, the objects whose edges take longest to finish come first, critical "
          "path first") {
    test::InScratch in("phc-regen");
    const std::string hip = "-x hip --rocm-path=/usr "
                            "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode "
                            "--offload-arch=gfx906 --offload-arch=gfx90a -MD -MF $out.d";
    std::string text = "rule CXX\n  command = /usr/bin/clang++-15 $FLAGS -c $in -o $out\n"
                       "  depfile = $out.d\n  deps = gcc\n";
    for (const char* n : {"a", "b", "c"})
        text += std::string("build ") + n + ".o: CXX " + n + ".hip\n  FLAGS = " + hip + "\n";
    text += "build plain.o: CXX plain.cpp\n  FLAGS = -O2\n";
    REQUIRE(util::write_file_atomic(in.dir() + "/build.ninja", text).ok());
    auto order = [] { return build_outputs_in_order(regen_to("out.ninja")); };
    using S = std::vector<std::string>;
    const S plain{"a.o.phc/gfx906.o", "a.o.phc/gfx90a.o", "a.o.phc/bundle.hipfb", "a.o",
                  "b.o.phc/gfx906.o", "b.o.phc/gfx90a.o", "b.o.phc/bundle.hipfb", "b.o",
                  "c.o.phc/gfx906.o", "c.o.phc/gfx90a.o", "c.o.phc/bundle.hipfb", "c.o",
                  "plain.o"};
    CHECK(order() == plain); // no log: the manifest's order
    // c's longest chain took longest, then a's; b has no times (new): first.
    REQUIRE(util::write_file_atomic(".ninja_log", "# ninja log v5\n"
                                                  "0\t300\t0\ta.o.phc/gfx906.o\t1\n"
                                                  "0\t900\t0\ta.o.phc/gfx90a.o\t1\n"
                                                  "0\t2000\t0\tc.o.phc/gfx906.o\t1\n"
                                                  "0\t100\t0\tc.o.phc/gfx90a.o\t1\n")
                .ok());
    CHECK(order() == S{"b.o.phc/gfx906.o", "b.o.phc/gfx90a.o", "b.o.phc/bundle.hipfb", "b.o",
                       "c.o.phc/gfx906.o", "c.o.phc/gfx90a.o", "c.o.phc/bundle.hipfb", "c.o",
                       "a.o.phc/gfx90a.o", "a.o.phc/gfx906.o", "a.o.phc/bundle.hipfb", "a.o",
                       "plain.o"});
}

TEST_CASE("with a builddir, .ninja_log is read where ninja keeps it") {
    test::InScratch in("phc-regen");
    const std::string hip = "-x hip --rocm-path=/usr "
                            "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode "
                            "--offload-arch=gfx906 --offload-arch=gfx90a -MD -MF $out.d";
    std::string text =
        "builddir = logs\nrule CXX\n  command = /usr/bin/clang++-15 $FLAGS -c $in -o $out\n"
        "  depfile = $out.d\n  deps = gcc\n";
    for (const char* n : {"a", "b"})
        text += std::string("build ") + n + ".o: CXX " + n + ".hip\n  FLAGS = " + hip + "\n";
    REQUIRE(util::write_file_atomic("build.ninja", text).ok());
    REQUIRE(util::make_dirs("logs").ok());
    // b took longer: with the log read from logs/, b comes first.
    std::string log = "# ninja log v5\n";
    for (const char* n : {"a", "b"})
        for (const char* out : {".o.phc/gfx906.o", ".o.phc/gfx90a.o", ".o.phc/bundle.hipfb", ".o"})
            log += fmt::format("0\t{}\t0\t{}{}\t1\n", n[0] == 'a' ? 100 : 900, n, out);
    REQUIRE(util::write_file_atomic("logs/.ninja_log", log).ok());
    const auto order = build_outputs_in_order(regen_to("out.ninja"));
    const auto a = std::find(order.begin(), order.end(), "a.o.phc/gfx906.o");
    const auto b = std::find(order.begin(), order.end(), "b.o.phc/gfx906.o");
    REQUIRE(a != order.end());
    REQUIRE(b != order.end());
    CHECK(b < a);
}

TEST_CASE("PHC_DEVICE_WARNINGS=first: the device edges after the first get -w, also after CMake") {
    test::InScratch in;
    write("build.ninja", std::string(kHipRule) +
                             "rule RERUN_CMAKE\n  command = cmake --regenerate-during-build\n"
                             "  generator = 1\n"
                             "build a.o: HIP a.hip\n"
                             "build b.o: HIP b.hip\n  FLAGS = -Werror=unused-variable\n"
                             "build build.ninja: RERUN_CMAKE CMakeLists.txt\n");
    auto device_commands = [](const std::string& object) {
        auto m = ninja::load_manifest("build.ninja");
        REQUIRE(m.ok());
        std::vector<std::string> out;
        for (const char* arch : {"gfx906", "gfx90a"}) {
            auto node = m->find_node(object + ".phc/" + arch + ".o");
            REQUIRE(node);
            auto cmd = m->edge(static_cast<size_t>(m->producer(*node))).evaluate("command");
            REQUIRE(cmd.ok());
            out.push_back(*cmd);
        }
        return out;
    };
    auto has_w = [](const std::string& cmd) {
        return (cmd + " ").find(" -w ") != std::string::npos;
    };
    REQUIRE(::setenv("PHC_DEVICE_WARNINGS", "first", 1) == 0);
    auto r = regen_in_place();
    ::unsetenv("PHC_DEVICE_WARNINGS");
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto a = device_commands("a.o");
    CHECK_FALSE(has_w(a[0]));
    CHECK(has_w(a[1]));
    // -Werror: -w would let a warning the first architecture does not print pass.
    auto b = device_commands("b.o");
    CHECK_FALSE(has_w(b[0]));
    CHECK_FALSE(has_w(b[1]));
    // ninja's re-run of regen after CMake keeps the choice.
    CHECK(read("build.ninja").find("PHC_DEVICE_WARNINGS=first /opt/phc/phc-ninja regen -C ") !=
          std::string::npos);
    // Without it, no -w.
    auto plain = regen_in_place();
    REQUIRE(plain.ok());
    CHECK_FALSE(has_w(device_commands("a.o")[1]));
    CHECK(read("build.ninja").find("PHC_DEVICE_WARNINGS") == std::string::npos);
}

TEST_CASE("first build order: host compiles first under --overlap-host, objects as generated") {
    // b.hip is the largest source but listed last; the size order (the old
    // default) moved it first, which on real code put the heaviest compile
    // (a small source) last. The default keeps the generator's order of
    // objects and lists every host compile that waits for nothing before any
    // device compile, so a long host compile never starts late.
    test::InScratch in;
    write("a.hip", "__global__ void a() {}\n");
    write("b.hip", std::string(20000, ' ') + "__global__ void b() {}\n");
    write("build.ninja", std::string(kHipRule) + "build a.o: HIP a.hip\nbuild b.o: HIP b.hip\n");
    bool hosts_first = false; // the last run's Summary::hosts_first
    // Each build statement's first output, regen run with PHC_FIRST_ORDER=first
    // (unset for nullptr).
    auto order = [&](const char* first, bool overlap) {
        if (first) ::setenv("PHC_FIRST_ORDER", first, 1);
        regen::Options o;
        o.prober = test::fake_prober();
        o.output = "out.ninja";
        o.threads = 1;
        o.overlap_host = overlap;
        auto r = regen::run(o);
        ::unsetenv("PHC_FIRST_ORDER");
        REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
        hosts_first = r->hosts_first;
        std::vector<std::string> outs; // each build statement's first output
        const std::string text = read("out.ninja");
        for (size_t at = text.find("\nbuild "); at != std::string::npos;
             at = text.find("\nbuild ", at + 1))
            outs.push_back(text.substr(at + 7, text.find_first_of(": ", at + 7) - at - 7));
        return outs;
    };
    auto index = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) - v.begin();
    };
    if (probe::objcopy().empty()) return; // no objcopy that keeps the bytes: nothing overlaps
    const auto hosts = order("hosts", true);
    REQUIRE(index(hosts, "b.o.phc/host.o") < static_cast<long>(hosts.size()));
    CHECK(index(hosts, "a.o.phc/host.o") < index(hosts, "b.o.phc/host.o"));
    CHECK(index(hosts, "b.o.phc/host.o") < index(hosts, "a.o.phc/gfx906.o"));
    CHECK(index(hosts, "a.o.phc/gfx90a.o") < index(hosts, "b.o.phc/gfx906.o"));
    CHECK(hosts_first);
    // Unset is the same as hosts.
    CHECK(order(nullptr, true) == hosts);
    CHECK(hosts_first);
    // The size order: the largest source's edges first, its device edges before its host.
    const auto size = order("size", true);
    CHECK(index(size, "b.o.phc/gfx906.o") < index(size, "a.o.phc/gfx906.o"));
    CHECK(index(size, "b.o.phc/gfx906.o") < index(size, "b.o.phc/host.o"));
    // The generator's order, nothing moved: a's edges, then b's.
    const auto given = order("given", true);
    CHECK(index(given, "a.o") < index(given, "b.o.phc/gfx906.o"));
    CHECK(index(given, "a.o.phc/gfx906.o") < index(given, "a.o.phc/host.o"));
    // Without --overlap-host the host compile waits for the bundle: hosts is given.
    CHECK(order("hosts", false) == order("given", false));
    // An order moves whole statements and changes nothing in them: the same
    // statements, with the same bindings, in every order of either shape.
    auto statements = [&](const char* first, bool overlap) {
        order(first, overlap);
        std::vector<std::string> out; // each top-level statement with its indented lines
        for (const std::string& line : util::split_on(read("out.ninja"), '\n')) {
            if (line.empty()) continue;
            if (line[0] != ' ' || out.empty()) out.emplace_back();
            out.back() += line + "\n";
        }
        std::sort(out.begin(), out.end());
        return out;
    };
    for (bool overlap : {false, true}) {
        const auto reference = statements("given", overlap);
        CHECK(reference.size() > 6);
        CHECK(statements("hosts", overlap) == reference);
        CHECK(statements("size", overlap) == reference);
    }
    ::setenv("PHC_FIRST_ORDER", "largest", 1);
    regen::Options bad;
    bad.prober = test::fake_prober();
    bad.output = "bad.ninja";
    auto refused = regen::run(bad);
    ::unsetenv("PHC_FIRST_ORDER");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().message == "PHC_FIRST_ORDER: 'largest' is not hosts, size or given");
}
