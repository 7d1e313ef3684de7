// The plan-time guard (split/guard.h): the split's jobs against the driver's.
// First on job sets written here, where each kind of difference is made on
// purpose; then on the real compilers, with a probe result edited so that the
// split's bundler drops an argument, and with clang 22's options that the
// split once got wrong.
#include "compile/analysis.h"
#include "compile/command.h"
#include "scratch.h"
#include "split/guard.h"
#include "util/file.h"

#include <doctest/doctest.h>
#include <unistd.h>

using namespace phc;
using split::compare_jobs;
using split::Job;
using split::JobSet;

namespace {

const std::string kT = "/tmp/phc-guard-T"; // the original's temporary folder
const std::string kS = "/tmp/phc-guard-S"; // a split step's

Job device_cc1(const std::string& cpu, const std::string& out,
               std::vector<std::string> extra = {}) {
    Job j{"/usr/bin/clang", "-cc1", "-triple", "amdgcn-amd-amdhsa", "-target-cpu", cpu, "-O2"};
    j.insert(j.end(), extra.begin(), extra.end());
    j.insert(j.end(), {"-o", out, "-x", "hip", "k.hip"});
    return j;
}

Job lld(const std::string& cpu, const std::string& out, const std::string& in) {
    return {"/usr/bin/lld", "-flavor", "gnu", "-plugin-opt=mcpu=" + cpu, "-o", out, in};
}

Job bundler(const std::vector<std::string>& inputs, const std::string& out,
            std::vector<std::string> extra = {}) {
    Job j{"/usr/bin/clang-offload-bundler", "-type=o", "-bundle-align=4096",
          "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx906,"
          "hipv4-amdgcn-amd-amdhsa--gfx90a",
          "-input=/dev/null"};
    for (const std::string& i : inputs)
        j.push_back("-input=" + i);
    j.push_back("-output=" + out);
    j.insert(j.end(), extra.begin(), extra.end());
    return j;
}

Job host_cc1(const std::string& bundle, std::vector<std::string> extra = {}) {
    Job j{"/usr/bin/clang",
          "-cc1",
          "-triple",
          "x86_64-pc-linux-gnu",
          "-O2",
          "-dependency-file",
          "k.d",
          "-MT",
          "k.o",
          "-fcuda-include-gpubinary",
          bundle,
          "-cuid=c1"};
    j.insert(j.end(), extra.begin(), extra.end());
    j.insert(j.end(), {"-o", "k.o", "-x", "hip", "k.hip"});
    return j;
}

/// The driver's own jobs for k.hip, two architectures, old driver.
JobSet original() {
    JobSet s;
    s.temp_dirs = {kT};
    s.jobs = {device_cc1("gfx906", kT + "/k-906.o", {"-dependency-file", "k.d", "-MT", "k.o"}),
              lld("gfx906", kT + "/k-906.out", kT + "/k-906.o"),
              device_cc1("gfx90a", kT + "/k-90a.o", {"-dependency-file", "k.d", "-MT", "k.o"}),
              lld("gfx90a", kT + "/k-90a.out", kT + "/k-90a.o"),
              bundler({kT + "/k-906.out", kT + "/k-90a.out"}, kT + "/k.hipfb"),
              host_cc1(kT + "/k.hipfb")};
    return s;
}

/// The split's jobs for the same compile: each device step writes its own
/// object and depfile, the bundler and the host step read the step's files.
JobSet split_of() {
    JobSet s;
    s.temp_dirs = {kS};
    s.files = {"k.o.phc/gfx906.o", "k.o.phc/gfx90a.o", "k.o.phc/bundle.hipfb"};
    s.jobs = {device_cc1("gfx906", kS + "/x.o",
                         {"-dependency-file", "k.o.phc/gfx906.d", "-MT", "k.o.phc/gfx906.o",
                          "-sys-header-deps"}),
              lld("gfx906", "k.o.phc/gfx906.o", kS + "/x.o"),
              device_cc1("gfx90a", kS + "/y.o"),
              lld("gfx90a", "k.o.phc/gfx90a.o", kS + "/y.o"),
              bundler({"k.o.phc/gfx906.o", "k.o.phc/gfx90a.o"}, "k.o.phc/bundle.hipfb"),
              host_cc1("k.o.phc/bundle.hipfb")};
    return s;
}

} // namespace

TEST_CASE("guard: the split's jobs, with their own file names and depfiles, are the driver's") {
    CHECK(compare_jobs(original(), split_of()) == "");
    // Each job once, in any order of jobs: the same.
    JobSet s = split_of();
    std::swap(s.jobs[0], s.jobs[2]);
    std::swap(s.jobs[1], s.jobs[3]);
    CHECK(compare_jobs(original(), s) == "");
}

TEST_CASE("guard: an argument dropped, added or changed is named with its job") {
    JobSet s = split_of();
    s.jobs[4] = bundler({"k.o.phc/gfx906.o", "k.o.phc/gfx90a.o"}, "k.o.phc/bundle.hipfb");
    JobSet o = original();
    o.jobs[4] = bundler({kT + "/k-906.out", kT + "/k-90a.out"}, kT + "/k.hipfb", {"-compress"});
    CHECK(compare_jobs(o, s) == "clang-offload-bundler: -compress not carried");

    s = split_of();
    s.jobs[2] = device_cc1("gfx90a", kS + "/y.o", {"-mllvm", "-amdgpu-x=1"});
    CHECK(compare_jobs(original(), s) == "clang -cc1 (gfx90a): -mllvm -amdgpu-x=1 added");

    s = split_of();
    s.jobs[5] = host_cc1("k.o.phc/bundle.hipfb", {"-fgpu-rdc"});
    o = original();
    o.jobs[5] = host_cc1(kT + "/k.hipfb", {"-fno-gpu-rdc"});
    CHECK(compare_jobs(o, s) == "clang -cc1 (host): -fno-gpu-rdc not carried; -fgpu-rdc added");

    // The host job's depfile is the compile's: not mapped away.
    s = split_of();
    s.jobs[5][6] = "other.d";
    CHECK(compare_jobs(original(), s) == "clang -cc1 (host): k.d not carried; other.d added");
}

TEST_CASE("guard: a job missing or added, a file read from the wrong job") {
    JobSet s = split_of();
    s.jobs.erase(s.jobs.begin() + 3); // gfx90a's device link
    CHECK(compare_jobs(original(), s).starts_with("lld (gfx90a): "));

    s = split_of();
    s.jobs.push_back({"/usr/bin/llvm-objcopy", "k.o"});
    CHECK(compare_jobs(original(), s) == "llvm-objcopy: a job the driver does not run");

    // The bundle takes gfx90a's code where gfx906's belongs: the same words,
    // but the files come from other jobs.
    s = split_of();
    s.jobs[4] = bundler({"k.o.phc/gfx90a.o", "k.o.phc/gfx906.o"}, "k.o.phc/bundle.hipfb");
    const std::string why = compare_jobs(original(), s);
    CHECK(why.starts_with("clang-offload-bundler: "));
}

TEST_CASE("guard: different options may change places, one option's occurrences may not") {
    JobSet o = original(), s = split_of();
    o.jobs[5] = host_cc1(kT + "/k.hipfb", {"-mllvm", "-a=1", "-mllvm", "-b=1", "-fx"});
    s.jobs[5] = host_cc1("k.o.phc/bundle.hipfb", {"-fx", "-mllvm", "-a=1", "-mllvm", "-b=1"});
    CHECK(compare_jobs(o, s) == "");
    s.jobs[5] = host_cc1("k.o.phc/bundle.hipfb", {"-mllvm", "-b=1", "-mllvm", "-a=1", "-fx"});
    CHECK(compare_jobs(o, s) == "clang -cc1 (host): the same arguments in another order");
    // A job in another order is the same writer for the jobs that read its
    // output (hipcc's RDC host object, which the bundler reads).
    o = original();
    s = split_of();
    o.jobs[1].insert(o.jobs[1].begin() + 1, {"-x1", "-x2"});
    s.jobs[1].insert(s.jobs[1].begin() + 3, {"-x1", "-x2"});
    CHECK(compare_jobs(o, s) == "");
    // A flag and its negation: the last one wins, so their order counts.
    o = original();
    s = split_of();
    o.jobs[5] = host_cc1(kT + "/k.hipfb", {"-fno-x", "-fx"});
    s.jobs[5] = host_cc1("k.o.phc/bundle.hipfb", {"-fx", "-fno-x"});
    CHECK(compare_jobs(o, s) == "clang -cc1 (host): the same arguments in another order");
}

namespace {

/// The analysis of a compile of k.hip (two architectures) in `dir`.
compile::Analysis analysed(std::vector<std::string> argv, const std::string& dir) {
    auto rec = compile::recognise_argv(std::move(argv));
    REQUIRE(rec.command);
    return compile::analyze(*rec.command, {dir, {}, {}});
}

bool have(const char* path) {
    return ::access(path, X_OK) == 0;
}

const std::vector<std::string> kFlags = {
    "-x",
    "hip",
    "--rocm-path=/usr",
    "--hip-device-lib-path=/usr/lib/x86_64-linux-gnu/amdgcn/bitcode",
    "--offload-arch=gfx906",
    "--offload-arch=gfx90a",
    "-O2",
    "-c",
    "k.hip",
    "-o",
    "k.o"};

} // namespace

TEST_CASE("guard on clang 15: a probe result edited to drop a bundler argument is caught") {
    if (!have("/usr/bin/clang++-15")) return;
    test::ScratchDir d;
    REQUIRE(util::write_file_atomic(d.file("k.hip"), "__global__ void k(int* x) { *x = 1; }\n"));
    std::vector<std::string> argv{"clang++-15"};
    argv.insert(argv.end(), kFlags.begin(), kFlags.end());
    auto r = split::run_guarded_probe({{}, argv, d.path()});
    REQUIRE(r.ok());
    CHECK(r->jobs_differ == "");
    compile::Analysis a = analysed(argv, d.path());
    probe::apply_probe(a, *r);
    REQUIRE(a.decision.split());
    probe::ProbeResult edited = *r;
    auto align =
        std::find(edited.bundler_args.begin(), edited.bundler_args.end(), "-bundle-align=4096");
    REQUIRE(align != edited.bundler_args.end());
    edited.bundler_args.erase(align);
    CHECK(split::jobs_differ(a, edited, false) ==
          "clang-offload-bundler: -bundle-align=4096 not carried");
    // And through the plan: the edge is left alone with that reason.
    edited.jobs_differ = split::jobs_differ(a, edited, false);
    compile::Analysis b = analysed(argv, d.path());
    probe::apply_probe(b, edited);
    CHECK(compile::reason_code(b.decision.reason) == "jobs-differ");
    CHECK(b.decision.text == "clang-offload-bundler: -bundle-align=4096 not carried");
}

TEST_CASE(
    "guard on clang 22's new driver: compression split, offload LTO left alone with the job") {
    const char* c22 = "/usr/lib/llvm-22/bin/clang++";
    if (!have(c22)) return;
    test::ScratchDir d;
    REQUIRE(util::write_file_atomic(d.file("k.hip"), "__global__ void k(int* x) { *x = 1; }\n"));
    auto verdict = [&](std::vector<std::string> extra) {
        std::vector<std::string> argv{c22, "-mcode-object-version=5",
                                      "-D__AMDGCN_WAVEFRONT_SIZE=64", "--offload-new-driver"};
        argv.insert(argv.end(), kFlags.begin(), kFlags.end());
        argv.insert(argv.end(), extra.begin(), extra.end());
        auto r = split::run_guarded_probe({{}, argv, d.path()});
        REQUIRE(r.ok());
        return r->jobs_differ;
    };
    CHECK(verdict({}) == "");
    CHECK(verdict({"-fgpu-rdc"}) == "");
    // The wrapper's --compress, after its input: carried (it once was not).
    CHECK(verdict({"--offload-compress", "--offload-compression-level=9"}) == "");
    // Offload LTO: the device steps' bitcode is not the driver's.
    CHECK(verdict({"-foffload-lto"}).starts_with("clang -cc1 (gfx90"));
    CHECK(verdict({"-fgpu-rdc", "-foffload-lto"}).starts_with("clang -cc1 (gfx90"));
}
