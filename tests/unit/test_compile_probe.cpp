#include "compile/probe.h"
#include "util/file.h"

#include <algorithm>
#include <doctest/doctest.h>
#include <fstream>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

using namespace phc;
using namespace phc::compile;

namespace {

ProbeResult parse_data(const std::string& name) {
    auto text = util::read_file(std::string(PHC_TEST_DATA) + "/split/" + name);
    REQUIRE(text.ok());
    auto r = parse_jobs(*text);
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    return *r;
}

} // namespace

TEST_CASE("parse_jobs: clang-15 old driver") {
    ProbeResult r = parse_data("c15.txt");
    CHECK(r.driver == DriverKind::Old);
    CHECK_FALSE(r.rdc);
    CHECK(r.bundler == "/usr/lib/llvm-15/bin/clang-offload-bundler");
    CHECK(r.archs == std::vector<std::string>{"gfx906", "gfx90a"});
    CHECK(r.device_compiles == 2);
    CHECK(r.bundler_argv({"a.o", "b.o"}, "x.hipfb") ==
          std::vector<std::string>{
              "/usr/lib/llvm-15/bin/clang-offload-bundler", "-type=o", "-bundle-align=4096",
              "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx906,"
              "hipv4-amdgcn-amd-amdhsa--gfx90a",
              "-input=/dev/null", "-input=a.o", "-input=b.o", "-output=x.hipfb"});
}

TEST_CASE("parse_jobs: clang-19 old driver with compression, hipcc") {
    ProbeResult r = parse_data("c19.txt");
    CHECK(r.driver == DriverKind::Old);
    CHECK(r.bundler == "/usr/lib/llvm-19/bin/clang-offload-bundler");
    CHECK(r.archs == std::vector<std::string>{"gfx906", "gfx90a"});
    auto argv = r.bundler_argv({"a.o", "b.o"}, "x");
    CHECK(argv[argv.size() - 2] == "-compress");
    CHECK(argv.back() == "-compression-level=9");
    ProbeResult h = parse_data("hipcc.txt");
    CHECK(h.driver == DriverKind::Old);
    CHECK(h.bundler == "/usr/lib/llvm-15/bin/clang-offload-bundler");
    CHECK(h.archs == std::vector<std::string>{"gfx906", "gfx90a"});
}

TEST_CASE("parse_jobs: RDC and the new driver") {
    ProbeResult r15 = parse_data("c15rdc.txt");
    CHECK(r15.driver == DriverKind::Old);
    CHECK(r15.rdc);
    CHECK(r15.archs == std::vector<std::string>{"gfx906", "gfx90a"});
    // The host object is an input of the RDC bundle: a placeholder, not the
    // driver's temporary file.
    CHECK(r15.has_host_input());
    auto argv = r15.bundler_argv({"d/gfx906.o", "d/gfx90a.o"}, "k.o", "d/host.o");
    CHECK(std::find(argv.begin(), argv.end(), "-input=d/host.o") != argv.end());
    CHECK(std::find(argv.begin(), argv.end(), "-output=k.o") != argv.end());
    for (const auto& w : argv)
        CHECK(w.find("/tmp/") == std::string::npos);
    CHECK(parse_data("c19rdc.txt").rdc);
    CHECK(parse_data("c19rdc.txt").has_host_input());
    CHECK(parse_data("c19newrdc.txt").driver == DriverKind::New);
    // clang-19 keeps the old driver's jobs for a non-RDC -c even with --offload-new-driver.
    CHECK(parse_data("c19new.txt").driver == DriverKind::Old);
}

TEST_CASE("parse_jobs: errors and non-offload compiles") {
    CHECK_FALSE(parse_jobs("clang version 15\n").ok());
    auto plain = parse_jobs(" \"/usr/bin/clang\" \"-cc1\" \"-triple\" \"x86_64-pc-linux-gnu\"\n");
    REQUIRE(plain.ok());
    CHECK(plain->driver == DriverKind::None);
    auto bare =
        parse_jobs(" \"/usr/bin/clang\" \"-cc1\" \"-fcuda-include-gpubinary\" \"x\"\n"
                   " \"clang-offload-bundler\" \"-type=o\" \"-targets=host-x,hipv4-a-b-c--gfx906\""
                   " \"-input=/dev/null\" \"-input=a\" \"-output=b\"\n");
    REQUIRE_FALSE(bare.ok());
    CHECK(bare.error().message.find("without a path") != std::string::npos);
    auto mismatch = parse_jobs(" \"/b/clang-offload-bundler\" \"-targets=host-x\" \"-input=a\" "
                               "\"-input=b\"\n");
    CHECK_FALSE(mismatch.ok());
}

TEST_CASE("probe key: compiler identity and driver flags, not paths or defines") {
    char dir[] = "/tmp/phc-unit-probe-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string cc = std::string(dir) + "/clang++";
    REQUIRE(util::write_file_atomic(cc, "#!/bin/sh\nexit 1\n").ok());
    REQUIRE(::chmod(cc.c_str(), 0755) == 0);
    ProbeRequest base{{},
                      {cc, "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-O2",
                       "-DA=1", "-Iinc", "-MD", "-MF", "a.d", "-c", "a.hip", "-o", "a.o"},
                      dir};
    auto k0 = probe_key(base);
    REQUIRE(k0.ok());
    auto head = probe_key_head(base);
    REQUIRE(head.ok());
    CHECK(probe_key_with(*head, base.argv) == *k0);
    ProbeRequest other = base;
    other.argv = {cc,
                  "-x",
                  "hip",
                  "--offload-arch=gfx906",
                  "--offload-arch=gfx90a",
                  "-O0",
                  "-g",
                  "-DB=2",
                  "-isystem",
                  "sys",
                  "-include",
                  "pre.h",
                  "-c",
                  "dir/b.hip",
                  "-o",
                  "b.o",
                  "-cuid=123",
                  "-Wall"};
    CHECK(*probe_key(other) == *k0);
    other = base;
    other.argv[12] = "a.c"; // another language
    CHECK(*probe_key(other) != *k0);
    other = base;
    other.argv.push_back("-fgpu-rdc");
    CHECK(*probe_key(other) != *k0);
    other = base;
    other.argv[4] = "--offload-arch=gfx1030";
    CHECK(*probe_key(other) != *k0);
    other = base;
    other.env = {"HIP_CLANG_PATH=/x"};
    CHECK(*probe_key(other) != *k0);
    ProbeRequest hip = base;
    hip.argv[0] = std::string(dir) + "/hipcc";
    REQUIRE(util::write_file_atomic(hip.argv[0], "#!/bin/sh\n").ok());
    ::unsetenv("HIP_CLANG_PATH");
    auto h0 = probe_key(hip);
    REQUIRE(h0.ok());
    ::setenv("HIP_CLANG_PATH", "/opt/x", 1);
    CHECK(*probe_key(hip) != *h0);
    CHECK(*probe_key(base) == *k0); // clang does not read it
    ::unsetenv("HIP_CLANG_PATH");
    CHECK(*probe_key(hip) == *h0);
    std::remove(hip.argv[0].c_str());
    struct timeval times[2] = {{1000000000, 0}, {1000000000, 0}};
    REQUIRE(::utimes(cc.c_str(), times) == 0);
    CHECK(*probe_key(base) != *k0);
    ProbeRequest missing = base;
    missing.argv[0] = "phc-no-such-compiler";
    CHECK_FALSE(probe_key(missing).ok());
    std::remove(cc.c_str());
    ::rmdir(dir);
}

TEST_CASE("probe cache: one probe per key, kept on disk; failures are errors") {
    char dir[] = "/tmp/phc-unit-probe-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    // A fake compiler that prints captured -### output and counts its runs.
    std::string cc = std::string(dir) + "/clang++";
    std::string data = std::string(PHC_TEST_DATA) + "/split/c15.txt";
    REQUIRE(util::write_file_atomic(cc, "#!/bin/sh\necho run >> " + std::string(dir) +
                                            "/runs\ncat '" + data + "' >&2\n")
                .ok());
    REQUIRE(::chmod(cc.c_str(), 0755) == 0);
    std::string file = std::string(dir) + "/sub/probes.json";
    ProbeRequest a{{},
                   {cc, "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-c",
                    "a.hip", "-o", "a.o"},
                   dir};
    ProbeRequest b = a;
    b.argv[6] = "b.hip";
    b.argv[8] = "b.o";
    {
        ProbeCache cache(file);
        auto r = cache.get(a);
        REQUIRE(r.ok());
        CHECK(r->archs == std::vector<std::string>{"gfx906", "gfx90a"});
        REQUIRE(cache.get(b).ok());
        CHECK(cache.probes_run() == 1);
    }
    CHECK(util::file_exists(file));
    {
        ProbeCache again(file);
        auto r = again.get(b);
        REQUIRE(r.ok());
        CHECK(again.probes_run() == 0);
        CHECK(r->bundler == "/usr/lib/llvm-15/bin/clang-offload-bundler");
    }
    REQUIRE(util::write_file_atomic(file, "{not json").ok());
    ProbeCache corrupt(file);
    REQUIRE(corrupt.get(a).ok());
    CHECK(corrupt.probes_run() == 1);
    // The main probe, the host-only and the device-only probe: three runs for
    // each real probe.
    auto runs = util::read_file(std::string(dir) + "/runs");
    REQUIRE(runs.ok());
    CHECK(runs->size() == 4 * 6);

    // A cache file that cannot be written (its folder is a file) loses nothing but
    // the file: the probe result is returned, and kept in memory.
    ProbeCache unwritable(std::string(dir) + "/runs/probes.json");
    auto u = unwritable.get(a);
    REQUIRE_MESSAGE(u.ok(), (u.ok() ? "" : u.error().message));
    CHECK(u->archs == std::vector<std::string>{"gfx906", "gfx90a"});
    REQUIRE(unwritable.get(b).ok());
    CHECK(unwritable.probes_run() == 1);
    ProbeRequest c = a; // the same compiler under another environment: another key
    c.env = {"PHC_UNIT_PROBE=1"};
    REQUIRE(unwritable.get(c).ok());
    CHECK(unwritable.probes_run() == 2);
    CHECK_FALSE(util::file_exists(std::string(dir) + "/runs/probes.json"));

    std::string bad = std::string(dir) + "/bad";
    REQUIRE(util::write_file_atomic(bad, "#!/bin/sh\necho 'bad: error: nope' >&2\nexit 3\n").ok());
    REQUIRE(::chmod(bad.c_str(), 0755) == 0);
    ProbeCache failing;
    auto f = failing.get({{}, {bad, "-c", "a.hip"}, dir});
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.find("bad: error: nope") != std::string::npos);
    CHECK_FALSE(failing.get({{}, {bad, "-c", "b.hip"}, dir}).ok());
    CHECK(failing.probes_run() == 1); // the failure is remembered
    CHECK(system(("rm -rf " + std::string(dir)).c_str()) == 0);
}

TEST_CASE("probe: private TMPDIR removed afterwards, stand-ins for missing inputs") {
    char dir[] = "/tmp/phc-unit-probe-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string d = dir;
    std::string data = std::string(PHC_TEST_DATA) + "/split/c15.txt";
    // Fails unless every .hip input exists; records TMPDIR and the input it saw.
    std::string cc = d + "/clang++";
    REQUIRE(
        util::write_file_atomic(
            cc, "#!/bin/sh\nfor a; do case $a in *.hip) [ -f \"$a\" ] || exit 9; echo \"$a\" > " +
                    d + "/input;; esac; done\nmkdir \"$TMPDIR/clang-tmp\"\necho \"$TMPDIR\" > " +
                    d + "/tmpdir\ncat '" + data + "' >&2\n")
            .ok());
    REQUIRE(::chmod(cc.c_str(), 0755) == 0);
    auto r = run_probe({{}, {cc, "--offload-arch=gfx906", "-c", "gen/missing.hip"}, d});
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto tmpdir = util::read_file(d + "/tmpdir");
    REQUIRE(tmpdir.ok());
    std::string t = tmpdir->substr(0, tmpdir->find('\n'));
    CHECK(t.find("phc-probe-") != std::string::npos);
    CHECK_FALSE(util::file_exists(t));
    auto input = util::read_file(d + "/input");
    REQUIRE(input.ok());
    CHECK(input->find(".hip") != std::string::npos);
    CHECK(input->find("gen/missing.hip") == std::string::npos);
    CHECK(system(("rm -rf " + d).c_str()) == 0);
}

TEST_CASE("bundle entries: the architecture after any spelling of the triple") {
    CHECK(bundle_entry_arch("hipv4-amdgcn-amd-amdhsa--gfx906") == "gfx906");
    CHECK(bundle_entry_arch("hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+") == "gfx90a:xnack+");
    CHECK(bundle_entry_arch("hip-amdgcn-amd-amdhsa-gfx1030") == "gfx1030");
    // clang 22 RDC: a four-part triple.
    CHECK(bundle_entry_arch("hip-amdgcn-amd-amdhsa-unknown-gfx90a:xnack-") == "gfx90a:xnack-");
    CHECK(bundle_entry_arch("hipv4-amdgcn-amd-amdhsa--gfx9-generic") == "gfx9-generic");
    CHECK(bundle_entry_arch("host-x86_64-unknown-linux") == "");
}
