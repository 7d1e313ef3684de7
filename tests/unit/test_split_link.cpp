// The RDC link plan from the driver's jobs, without running a compiler.
#include "fake_link_jobs.h"
#include "scratch.h"
#include "split/link.h"
#include "util/file.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <sys/stat.h>

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
    // The new driver's link: its jobs (clang-linker-wrapper) decide.
    CHECK(code("clang++-22 -fgpu-rdc --hip-link --offload-new-driver --offload-arch=gfx906 "
               "--offload-arch=gfx90a a.o") == "split");
    CHECK(code("clang++-22 -fgpu-rdc --hip-link -foffload-via-llvm --offload-arch=gfx906 "
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

namespace {

const std::string kWrapper = "/usr/lib/llvm-22/bin/clang-linker-wrapper";

/// The new driver's link of a.o and b.o: one clang-linker-wrapper job.
probe::DriverJobs wrapper_link_jobs() {
    probe::DriverJobs j;
    j.clang_major = 22;
    j.temp_dir = "/tmp/phc-probe-1";
    j.jobs = {{kWrapper, "--should-extract=gfx906", "--should-extract=gfx90a",
               "--device-compiler=amdgcn-amd-amdhsa=-flto-partitions=8",
               "--host-triple=x86_64-pc-linux-gnu", "--linker-path=/usr/bin/ld", "-o", "bin/app",
               "a.o", "b.o", "-lamdhip64"}};
    return j;
}

/// What the wrapper's --dry-run prints for stand-ins of a.o (phcobj0) and b.o (phcobj1).
WrapperRun wrapper_run(const std::vector<const SplitObject*>& stand_ins) {
    WrapperRun w;
    w.temp_dir = "/tmp/phc-link-1";
    w.stand_ins = stand_ins;
    for (const char* arch : {"gfx906", "gfx90a"}) {
        std::string a = arch;
        w.jobs.push_back(
            {"/usr/lib/llvm-22/bin/clang", "--no-default-config", "-o",
             "/tmp/phc-link-1/app.amdgcn." + a + "-1a2b3c.img", "-dumpdir",
             "app.amdgcn." + a + ".img.", "--target=amdgcn-amd-amdhsa", "-mcpu=" + a, "-flto",
             "-Wl,--no-undefined", "/tmp/phc-link-1/phcobj0-amdgcn-amd-amdhsa-" + a + "-4d5e6f.o",
             "/tmp/phc-link-1/phcobj1-amdgcn-amd-amdhsa-" + a + "-7a8b9c.o", "-flto-partitions=8"});
    }
    w.jobs.push_back({"/usr/lib/llvm-22/bin/clang-offload-bundler", "-type=o",
                      "-output=/tmp/phc-link-1/app-1.hipfb"});
    w.jobs.push_back({"/usr/bin/ld", "-o", "bin/app", "/tmp/phc-link-1/app.hip.image.wrapper.o"});
    return w;
}

compile::LinkAnalysis new_driver_link() {
    return compile::analyze_link_string("clang++-22 -fgpu-rdc --hip-link --offload-new-driver "
                                        "--offload-arch=gfx906 --offload-arch=gfx90a a.o b.o "
                                        "-o bin/app",
                                        {});
}

} // namespace

TEST_CASE("link plan: the new driver's device links from the wrapper, then the wrapper itself") {
    const SplitObject a{"a.o.phc", {"gfx906", "gfx90a"}}, b{"b.o.phc", {"gfx906", "gfx90a"}};
    auto find = [](const std::string&) { return static_cast<const SplitObject*>(nullptr); };
    WrapperRun run = wrapper_run({&a, &b});
    LinkPlan p = make_link_plan(new_driver_link(), wrapper_link_jobs(), find, {}, &run);
    REQUIRE_MESSAGE(p.split(), p.analysis.decision.text);
    CHECK(p.archs == Strings{"gfx906", "gfx90a"});
    REQUIRE(p.steps.size() == 3);
    const Step* d = find_kind(p, StepKind::DeviceLink, 1);
    REQUIRE(d);
    CHECK(d->arch == "gfx90a");
    CHECK(d->inputs == Strings{"a.o.phc/gfx90a.o", "b.o.phc/gfx90a.o"});
    CHECK(d->outputs == Strings{"bin/app.phc/gfx90a.img"});
    CHECK(std::find(d->argv.begin(), d->argv.end(), "bin/app.phc/gfx90a.img") != d->argv.end());
    for (const std::string& w : d->argv)
        CHECK(w.find("/tmp/") == std::string::npos);
    const Step* h = find_kind(p, StepKind::HostLink);
    REQUIRE(h);
    CHECK(h->outputs == Strings{"bin/app"});
    CHECK(h->inputs == Strings{"bin/app.phc/gfx906.img", "bin/app.phc/gfx90a.img"});
    CHECK(h->argv.front() == kWrapper);
    CHECK(h->argv[h->argv.size() - 2] == "--override-image=hip=bin/app.phc/gfx906.img");
    CHECK(h->argv.back() == "--override-image=hip=bin/app.phc/gfx90a.img");

    SUBCASE("an architecture a split object lacks leaves the link alone") {
        const SplitObject narrow{"b.o.phc", {"gfx906"}};
        WrapperRun r = wrapper_run({&a, &narrow});
        LinkPlan q = make_link_plan(new_driver_link(), wrapper_link_jobs(), find, {}, &r);
        CHECK_FALSE(q.split());
        CHECK(q.analysis.decision.reason == compile::Reason::LinkUnmodelled);
        CHECK(q.analysis.decision.text.find("no such architecture") != std::string::npos);
    }
    SUBCASE("without the wrapper's dry run the link is left alone") {
        LinkPlan q = make_link_plan(new_driver_link(), wrapper_link_jobs(), find);
        CHECK_FALSE(q.split());
        CHECK(q.analysis.decision.reason == compile::Reason::LinkUnmodelled);
    }
    SUBCASE("target IDs with features: the fat binary bundled as the wrapper's dry run does, "
            "then wrapper-link") {
        const SplitObject x{"a.o.phc", {"gfx906", "gfx90a:xnack+"}},
            y{"b.o.phc", {"gfx906", "gfx90a:xnack+"}};
        WrapperRun r = wrapper_run({&x, &y});
        const std::string img = "/tmp/phc-link-1/app.amdgcn.gfx90a:xnack+-1a2b3c.img";
        r.jobs[1] = {"/usr/lib/llvm-22/bin/clang", "-o", img, "-mcpu=gfx90a:xnack+",
                     "/tmp/phc-link-1/phcobj0-amdgcn-amd-amdhsa-gfx90a:xnack+-4d5e6f.o"};
        r.jobs[2] = {"/usr/lib/llvm-22/bin/clang-offload-bundler",
                     "-type=o",
                     "-targets=host-x86_64-unknown-linux-gnu,hip-amdgcn-amd-amdhsa--gfx90a:xnack+,"
                     "hip-amdgcn-amd-amdhsa--gfx906",
                     "-input=/dev/null",
                     "-input=" + img,
                     "-input=/tmp/phc-link-1/app.amdgcn.gfx906-1a2b3c.img",
                     "-output=/tmp/phc-link-1/app-1.hipfb"};
        LinkPlan q = make_link_plan(new_driver_link(), wrapper_link_jobs(), find, {}, &r);
        REQUIRE_MESSAGE(q.split(), q.analysis.decision.text);
        const Step* f = find_kind(q, StepKind::Fatbin);
        REQUIRE(f);
        CHECK(f->outputs == Strings{"bin/app.phc/fatbin.hipfb"});
        CHECK(f->inputs == Strings{"bin/app.phc/gfx906.img", "bin/app.phc/gfx90a-xnack+.img"});
        CHECK(f->argv[4] == "-input=bin/app.phc/gfx90a-xnack+.img");
        CHECK(f->argv[2] == r.jobs[2][2]);
        const Step* hl = find_kind(q, StepKind::HostLink);
        REQUIRE(hl);
        CHECK(hl->argv[1] == "wrapper-link");
        CHECK(hl->argv[3] == "bin/app.phc/fatbin.hipfb");
        CHECK(hl->argv[5] == kWrapper);
        CHECK(std::find(hl->inputs.begin(), hl->inputs.end(), "bin/app.phc/fatbin.hipfb") !=
              hl->inputs.end());
        // A compressed bundle could not be swapped: left alone, saying so.
        r.jobs[2].insert(r.jobs[2].begin() + 1, "-compress");
        LinkPlan c = make_link_plan(new_driver_link(), wrapper_link_jobs(), find, {}, &r);
        CHECK_FALSE(c.split());
        CHECK(c.analysis.decision.text.find("compresses") != std::string::npos);
    }
}

TEST_CASE("link plan: a -l the plan cannot resolve as the link will leaves it alone") {
    test::InScratch here("phc-libs");
    for (const char* d : {"inst", "inst2", "prebuilt", "dev/libdevice"})
        REQUIRE(util::make_dirs(d));
    for (const char* f : {"inst/libfoo.a", "inst2/libfoo.a", "prebuilt/libbar.a",
                          "dev/libdevice/libbaz.a", "inst/libbaz.so"})
        REQUIRE(util::write_file_atomic(f, "!<arch>\n"));
    auto why = [](const std::string& libs, const IsBuilt& built = {},
                  const Strings& host_link = {}) {
        return unknown_library(link(" " + libs), host_link, built);
    };
    auto builds = [](std::string made) {
        return [made](const std::string& path) { return path == made; };
    };
    // One folder holds it and the build makes none: the plan's archive is the link's.
    CHECK(why("-Lprebuilt -lbar") == "");
    CHECK(why("-Lprebuilt -lbar", builds("./libbar.a")) == "");
    CHECK(why("-l:libnothere.a") == "");
    // The build makes ./libfoo.a while a later folder holds another one: issue 24.
    CHECK(why("-L. -Linst -lfoo", builds("./libfoo.a")) ==
          "-lfoo may name ./libfoo.a, which the build makes: which archive the driver takes "
          "device code from is known only when the link runs");
    CHECK(why("-L . -lfoo", builds("./libdevice/libfoo.a"))
              .starts_with("-lfoo may name "
                           "./libdevice/libfoo.a,"));
    CHECK(why("-L. -l:libfoo.a", builds("./libfoo.a")).starts_with("-l:libfoo.a may name"));
    // Two folders hold one: which is taken depends on search orders.
    CHECK(
        why("-Linst -Linst2 -lfoo")
            .starts_with("-lfoo names files in several folders (inst/libfoo.a, inst2/libfoo.a): "));
    // A device library in libdevice/ and a shared one of the same name elsewhere.
    CHECK(why("-Ldev -Linst -lbaz")
              .starts_with(
                  "-lbaz names files in several folders (dev/libdevice/libbaz.a, inst/libbaz.so)"));
    // The same folder twice, spelled two ways, is one folder; the host link's
    // folders (the driver's own, the system's) are searched as well.
    CHECK(why("-Linst -L./inst/ -lfoo") == "");
    CHECK(why("-Linst -lfoo", {}, {"/usr/bin/ld", "-Linst2", "-o", "bin/app"})
              .starts_with("-lfoo names files in several folders"));
    // LIBRARY_PATH is searched first by the driver.
    CHECK(unknown_library(compile::analyze_link_string(
                              "env LIBRARY_PATH=inst2 clang++-15 -fgpu-rdc --hip-link "
                              "--offload-arch=gfx906 --offload-arch=gfx90a a.o -Linst -lfoo",
                              {}),
                          {}, {})
              .starts_with("-lfoo names files in several folders (inst2/libfoo.a, "));
}

TEST_CASE("link plan: a response file that is no regular file leaves the link alone") {
    test::InScratch here("phc-link-rsp");
    REQUIRE(::mkfifo("flags.rsp", 0600) == 0);
    auto none = [](const std::string&) { return static_cast<const SplitObject*>(nullptr); };
    // The driver is not asked (it would wait for a writer for ever).
    auto p = plan_link(link(" @flags.rsp"), none);
    REQUIRE(p);
    CHECK_FALSE(p->split());
    CHECK(p->analysis.decision.text ==
          "the driver cannot be asked for the link's jobs: flags.rsp: not a regular file");
}

TEST_CASE("link guard: the plan's jobs are the driver's; a dropped, added or misread word is "
          "named") {
    const SplitObject a{"a.o.phc", {"gfx906", "gfx90a"}};
    auto find = [&](const std::string& path) { return path == "a.o" ? &a : nullptr; };
    const probe::DriverJobs driver = phc::test::clang15_link_jobs();
    LinkPlan p = make_link_plan(link(), driver, find);
    REQUIRE(p.split());
    CHECK(link_jobs_differ(p, driver, find) == "");
    auto step = [&](LinkPlan& q, StepKind k, size_t nth = 0) -> Step& {
        for (Step& s : q.steps)
            if (s.kind == k && nth-- == 0) return s;
        FAIL("no such step");
        return q.steps.front();
    };
    SUBCASE("a word a device link drops") {
        Step& d = step(p, StepKind::DeviceLink, 1);
        d.argv.erase(std::find(d.argv.begin(), d.argv.end(), "-shared"));
        CHECK(link_jobs_differ(p, driver, find) == "lld (gfx90a): -shared not carried");
    }
    SUBCASE("a word the host link adds") {
        step(p, StepKind::HostLink).argv.push_back("-s");
        CHECK(link_jobs_differ(p, driver, find) == "ld: -s added");
    }
    SUBCASE("a device link reading another architecture's part of a split object") {
        Step& d = step(p, StepKind::DeviceLink, 0);
        std::replace(d.argv.begin(), d.argv.end(), std::string("a.o.phc/gfx906.o"),
                     std::string("a.o.phc/gfx90a.o"));
        CHECK(link_jobs_differ(p, driver, find).starts_with("lld (gfx906): "));
    }
    SUBCASE("the host link reading a device part") {
        Step& h = step(p, StepKind::HostLink);
        std::replace(h.argv.begin(), h.argv.end(), std::string("a.o.phc/host.o"),
                     std::string("a.o.phc/gfx906.o"));
        CHECK(link_jobs_differ(p, driver, find).starts_with("ld: "));
    }
    SUBCASE("the fat binary's assembler, inside its script") {
        Step& f = step(p, StepKind::FatbinObject);
        f.argv[2] += " --no-warn";
        CHECK(link_jobs_differ(p, driver, find) == "llvm-mc: --no-warn added");
    }
    SUBCASE("a job the plan does not run") {
        p.steps.erase(p.steps.begin() +
                      static_cast<long>(&step(p, StepKind::Unbundle) - p.steps.data()));
        const std::string why = link_jobs_differ(p, driver, find);
        CHECK(why.starts_with("clang-offload-bundler: "));
        CHECK(why.find("-input=b.o") != std::string::npos);
        CHECK(why.find("-unbundle") != std::string::npos);
    }
}

TEST_CASE("link guard: the new driver's host link given the images runs the wrapper's own "
          "bundling and link") {
    const SplitObject a{"a.o.phc", {"gfx906", "gfx90a"}}, b{"b.o.phc", {"gfx906", "gfx90a"}};
    auto find = [](const std::string&) { return static_cast<const SplitObject*>(nullptr); };
    auto find_ab = [&](const std::string& path) {
        return path == "a.o" ? &a : path == "b.o" ? &b : nullptr;
    };
    WrapperRun run = wrapper_run({&a, &b});
    run.inputs = {"a.o", "b.o"};
    // The bundler reads the device links' images; given them, the wrapper
    // reads the plan's (named back from their stand-ins).
    run.jobs[2] = {"/usr/lib/llvm-22/bin/clang-offload-bundler",
                   "-type=o",
                   "-compress",
                   "-input=/tmp/phc-link-1/app.amdgcn.gfx90a-1a2b3c.img",
                   "-input=/tmp/phc-link-1/app.amdgcn.gfx906-1a2b3c.img",
                   "-output=/tmp/phc-link-1/app-1.hipfb"};
    WrapperRun host;
    host.temp_dir = "/tmp/phc-link-2";
    host.jobs = {{"/usr/lib/llvm-22/bin/clang-offload-bundler", "-type=o", "-compress",
                  "-input=bin/app.phc/gfx90a.img", "-input=bin/app.phc/gfx906.img",
                  "-output=/tmp/phc-link-2/app-9.hipfb"},
                 {"/usr/bin/ld", "-o", "bin/app", "/tmp/phc-link-2/app.hip.image.wrapper.o"}};
    const probe::DriverJobs driver = wrapper_link_jobs();
    LinkPlan p = make_link_plan(new_driver_link(), driver, find, {}, &run);
    REQUIRE(p.split());
    CHECK(link_jobs_differ(p, driver, find_ab, &run, &host) == "");
    SUBCASE("the wrapper given the images compresses no more") {
        host.jobs[0].erase(host.jobs[0].begin() + 2);
        CHECK(link_jobs_differ(p, driver, find_ab, &run, &host) ==
              "clang-offload-bundler: -compress not carried");
    }
    SUBCASE("given the images, the wrapper still links device code itself") {
        host.jobs.insert(host.jobs.begin(), run.jobs[0]);
        CHECK(link_jobs_differ(p, driver, find_ab, &run, &host) ==
              "clang (gfx906): a job the driver does not run");
    }
    SUBCASE("the images swapped") {
        std::swap(host.jobs[0][3], host.jobs[0][4]);
        CHECK(link_jobs_differ(p, driver, find_ab, &run, &host)
                  .starts_with("clang-offload-bundler: "));
    }
    SUBCASE("a device link reading another object's code for its architecture") {
        Step& d = p.steps[0];
        std::replace(d.argv.begin(), d.argv.end(), std::string("b.o.phc/gfx906.o"),
                     std::string("a.o.phc/gfx906.o"));
        CHECK(link_jobs_differ(p, driver, find_ab, &run, &host).starts_with("clang (gfx906): "));
    }
    SUBCASE("without the host's dry run the link is not trusted") {
        CHECK_FALSE(link_jobs_differ(p, driver, find_ab, &run, nullptr).empty());
    }
}
