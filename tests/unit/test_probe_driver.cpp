#include "compile/rspfile.h"
#include "fake_probe.h"
#include "probe/probe.h"
#include "util/file.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

using namespace phc;
using namespace phc::compile;
using namespace phc::probe;

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
    // The new driver's RDC: the packer stands where the bundler does, and the host
    // compile embeds its file; clang 19 gives its jobs no CUID, clang 22 does.
    for (const char* name : {"c19newrdc.txt", "c22newrdc.txt"}) {
        CAPTURE(name);
        ProbeResult n = parse_data(name);
        CHECK(n.driver == DriverKind::New);
        CHECK(n.rdc);
        CHECK(n.embed_option == "-fembed-offload-object=");
        CHECK(n.archs == std::vector<std::string>{"gfx906", "gfx90a"});
        CHECK(n.uses_cuid == (std::string(name) == "c22newrdc.txt"));
        auto pack = n.bundler_argv({"d/gfx906.o", "d/gfx90a.o"}, "d/device.pkg");
        REQUIRE(pack.size() == 5);
        CHECK(pack[1] == "-o");
        CHECK(pack[2] == "d/device.pkg");
        CHECK(pack[3] == "--image=file=d/gfx906.o,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip");
        CHECK(pack[4] == "--image=file=d/gfx90a.o,triple=amdgcn-amd-amdhsa,arch=gfx90a,kind=hip");
    }
    CHECK(parse_data("c15.txt").uses_cuid);
    CHECK(parse_data("c15.txt").embed_option.empty());
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

TEST_CASE("probe: a command too long for the kernel reaches the driver in a response file") {
    char dir[] = "/tmp/phc-unit-probe-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    std::string d = dir;
    std::string data = std::string(PHC_TEST_DATA) + "/split/c15.txt";
    // Keeps the response file it is given (its folder is removed afterwards).
    std::string cc = d + "/clang++";
    REQUIRE(util::write_file_atomic(cc, "#!/bin/sh\necho $# > " + d +
                                            "/argc\nfor a; do case $a in @*) cp \"${a#@}\" " + d +
                                            "/seen.rsp;; esac; done\ncat '" + data + "' >&2\n")
                .ok());
    REQUIRE(::chmod(cc.c_str(), 0755) == 0);
    REQUIRE(util::write_file_atomic(d + "/a.hip", "").ok());
    // 3.5 MB of defines, as a generated build's flags may be: over ARG_MAX.
    std::vector<std::string> argv{cc, "--offload-arch=gfx906", "-D Q=\"a b\"\\"};
    for (int i = 0; argv.size() < 100000; ++i)
        argv.push_back(fmt::format("-DPHC_LONG_DEFINE_NUMBER_{}=1", i));
    argv.insert(argv.end(), {"-c", "a.hip", "-o", "a.o"});
    auto r = run_probe({{}, argv, d});
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    auto argc = util::read_file(d + "/argc");
    REQUIRE(argc.ok());
    CHECK(*argc == "1\n");
    auto seen = util::read_file(d + "/seen.rsp");
    REQUIRE(seen.ok());
    std::vector<std::string> words = compile::split_rsp(*seen);
    REQUIRE(words.size() > argv.size());
    CHECK(std::equal(argv.begin() + 1, argv.end(), words.begin()));
    CHECK(words.back() == "-###");
    CHECK(std::system(("rm -rf " + d).c_str()) == 0);
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

namespace {

/// A scratch folder with a fake clang++ that prints captured `-###` output (its
/// bundler moved into the folder, so that a test can remove it) and counts its
/// runs; `file` is a probe cache path in the folder.
struct FakeClang {
    std::string dir, cc, bundler, file;

    explicit FakeClang(const std::string& data = "c15.txt") {
        char t[] = "/tmp/phc-unit-probe-XXXXXX";
        REQUIRE(::mkdtemp(t) != nullptr);
        dir = t;
        cc = dir + "/clang++";
        bundler = dir + "/clang-offload-bundler";
        file = dir + "/probes.json";
        auto jobs = util::read_file(std::string(PHC_TEST_DATA) + "/split/" + data);
        REQUIRE(jobs.ok());
        std::string text = *jobs;
        size_t end = text.find("clang-offload-bundler\"");
        REQUIRE(end != std::string::npos);
        size_t start = text.rfind('"', end) + 1;
        text.replace(start, end + 21 - start, bundler);
        REQUIRE(util::write_file_atomic(dir + "/jobs.txt", text).ok());
        REQUIRE(util::write_file_atomic(bundler, "#!/bin/sh\n").ok());
        REQUIRE(::chmod(bundler.c_str(), 0755) == 0);
        REQUIRE(util::write_file_atomic(cc, "#!/bin/sh\necho run >> " + dir + "/runs\ncat '" + dir +
                                                "/jobs.txt' >&2\n")
                    .ok());
        REQUIRE(::chmod(cc.c_str(), 0755) == 0);
    }
    ~FakeClang() { CHECK(std::system(("rm -rf " + dir).c_str()) == 0); }
    FakeClang(const FakeClang&) = delete;
    FakeClang& operator=(const FakeClang&) = delete;

    /// A compile for gfx906 and gfx90a; `env` makes another probe key.
    ProbeRequest request(std::vector<std::string> env = {}) const {
        return {std::move(env),
                {cc, "-x", "hip", "--offload-arch=gfx906", "--offload-arch=gfx90a", "-c", "a.hip",
                 "-o", "a.o"},
                dir};
    }
};

/// Applies `edit` to every entry of the cache file `file`.
void edit_entries(const std::string& file, const std::function<void(nlohmann::json&)>& edit) {
    auto text = util::read_file(file);
    REQUIRE(text.ok());
    nlohmann::json doc = nlohmann::json::parse(*text);
    for (auto& [key, entry] : doc["probes"].items())
        edit(entry);
    REQUIRE(util::write_file_atomic(file, doc.dump(2)).ok());
}

/// Replaces every word of `args` equal to `from` by `to` ("" removes it).
void replace_word(nlohmann::json& args, const std::string& from, const std::string& to) {
    std::vector<std::string> out;
    for (const auto& w : args.get<std::vector<std::string>>())
        if (w != from)
            out.push_back(w);
        else if (!to.empty())
            out.push_back(to);
    args = out;
}

/// Runs `body` on a thread of its own and waits up to `seconds` for it: false when
/// it is still running then (it is left running, detached: it owns its state).
bool finishes(std::function<void()> body, double seconds) {
    auto done = std::make_shared<std::atomic<bool>>(false);
    std::thread t([body = std::move(body), done] {
        body();
        *done = true;
    });
    auto t0 = std::chrono::steady_clock::now();
    while (!*done &&
           std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() < seconds)
        ::usleep(10000);
    if (*done) {
        t.join();
        return true;
    }
    t.detach();
    return false;
}

/// What `body` writes to stderr.
std::string stderr_of(const std::function<void()>& body) {
    std::fflush(stderr);
    char name[] = "/tmp/phc-unit-stderr-XXXXXX";
    int fd = ::mkstemp(name);
    REQUIRE(fd >= 0);
    int saved = ::dup(2);
    ::dup2(fd, 2);
    body();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    ::close(fd);
    auto text = util::read_file(name);
    std::remove(name);
    return text.ok() ? *text : std::string();
}

size_t count_of(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

} // namespace

TEST_CASE("probe cache: one probe per key, kept on disk; failures are errors") {
    FakeClang fake; // prints captured -### output and counts its runs
    const std::string& dir = fake.dir;
    std::string file = dir + "/sub/probes.json";
    ProbeRequest a = fake.request();
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
        CHECK(r->bundler == fake.bundler);
        // A farm request needs the guard's verdict on the distributed shape,
        // which the entry (made without a farm) does not hold: probed again,
        // once (this prober has no guard, so the verdict stays missing).
        ProbeRequest farm = b;
        farm.farm = true;
        REQUIRE(again.get(farm).ok());
        CHECK(again.probes_run() == 1);
        REQUIRE(again.get(farm).ok());
        REQUIRE(again.get(b).ok());
        CHECK(again.probes_run() == 1);
    }
    REQUIRE(util::write_file_atomic(file, "{not json").ok());
    ProbeCache corrupt(file);
    REQUIRE(corrupt.get(a).ok());
    CHECK(corrupt.probes_run() == 1);
    // The main probe, the host-only and the device-only probe: three runs for
    // each real probe.
    auto runs = util::read_file(dir + "/runs");
    REQUIRE(runs.ok());
    CHECK(runs->size() == 4 * 9); // three probes: a, the farm request, the corrupt file's

    // A cache file that cannot be written (its folder is a file) loses nothing but
    // the file: the probe result is returned, and kept in memory.
    ProbeCache unwritable(dir + "/runs/probes.json");
    auto u = unwritable.get(a);
    REQUIRE_MESSAGE(u.ok(), (u.ok() ? "" : u.error().message));
    CHECK(u->archs == std::vector<std::string>{"gfx906", "gfx90a"});
    REQUIRE(unwritable.get(b).ok());
    CHECK(unwritable.probes_run() == 1);
    ProbeRequest c = a; // the same compiler under another environment: another key
    c.env = {"PHC_UNIT_PROBE=1"};
    REQUIRE(unwritable.get(c).ok());
    CHECK(unwritable.probes_run() == 2);
    CHECK_FALSE(util::file_exists(dir + "/runs/probes.json"));

    std::string bad = dir + "/bad";
    REQUIRE(util::write_file_atomic(bad, "#!/bin/sh\necho 'bad: error: nope' >&2\nexit 3\n").ok());
    REQUIRE(::chmod(bad.c_str(), 0755) == 0);
    ProbeCache failing;
    auto f = failing.get({{}, {bad, "-c", "a.hip"}, dir});
    REQUIRE_FALSE(f.ok());
    CHECK(f.error().message.find("bad: error: nope") != std::string::npos);
    CHECK(f.error().message.starts_with("compiler probe `")); // bare: the printer says "error"
    CHECK_FALSE(failing.get({{}, {bad, "-c", "b.hip"}, dir}).ok());
    CHECK(failing.probes_run() == 1); // the failure is remembered
}

TEST_CASE("probe cache: entries as the driver writes them are used as they are") {
    for (std::string data : {"c15.txt", "c15rdc.txt", "c19.txt", "c19rdc.txt", "hipcc.txt"}) {
        CAPTURE(data);
        FakeClang f(data);
        {
            ProbeCache first(f.file);
            REQUIRE(first.get(f.request()).ok());
        }
        ProbeCache again(f.file);
        REQUIRE(again.get(f.request()).ok());
        CHECK(again.probes_run() == 0);
    }
}

TEST_CASE("probe cache: an entry that does not fit the command is probed again and replaced") {
    using nlohmann::json;
    const std::string targets =
        "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx906,"
        "hipv4-amdgcn-amd-amdhsa--gfx90a";
    struct Case {
        const char* what;
        std::function<void(json&, const FakeClang&)> edit;
    };
    const std::vector<Case> cases = {
        // gfx90a's code would go into the gfx906 entry of the bundle.
        {"architectures reordered",
         [](json& e, const FakeClang&) {
             e["archs"] = {"gfx90a", "gfx906"};
         }},
        // Each entry holds its own code, but not in the order the driver bundles.
        {"architectures and bundle targets reordered together",
         [&](json& e, const FakeClang&) {
             e["archs"] = {"gfx90a", "gfx906"};
             replace_word(e["bundler_args"], targets,
                          "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx90a,"
                          "hipv4-amdgcn-amd-amdhsa--gfx906");
         }},
        {"one device input removed",
         [](json& e, const FakeClang&) {
             replace_word(e["bundler_args"], "-input=@PHC_INPUT_1@", "");
         }},
        {"every input removed",
         [](json& e, const FakeClang&) {
             for (const char* w :
                  {"-input=/dev/null", "-input=@PHC_INPUT_0@", "-input=@PHC_INPUT_1@"})
                 replace_word(e["bundler_args"], w, "");
         }},
        {"the host input removed",
         [](json& e, const FakeClang&) {
             replace_word(e["bundler_args"], "-input=/dev/null", "");
         }},
        {"one input named twice",
         [](json& e, const FakeClang&) {
             replace_word(e["bundler_args"], "-input=@PHC_INPUT_1@", "-input=@PHC_INPUT_0@");
         }},
        {"a host input for RDC", [](json& e, const FakeClang&) { e["rdc"] = true; }},
        {"the output removed",
         [](json& e, const FakeClang&) {
             replace_word(e["bundler_args"], "-output=@PHC_OUTPUT@", "");
         }},
        {"architectures the command does not name",
         [&](json& e, const FakeClang&) {
             e["archs"] = {"gfx906", "gfx908"};
             replace_word(e["bundler_args"], targets,
                          "-targets=host-x86_64-unknown-linux,hipv4-amdgcn-amd-amdhsa--gfx906,"
                          "hipv4-amdgcn-amd-amdhsa--gfx908");
         }},
        {"a bundler that does not exist",
         [](json& e, const FakeClang& f) { e["bundler"] = f.dir + "/missing-bundler"; }},
        {"a bundler without a path",
         [](json& e, const FakeClang&) { e["bundler"] = "clang-offload-bundler"; }},
        // Another bundler that exists: the driver runs the one beside it (issue 24).
        {"another existing bundler",
         [](json& e, const FakeClang& f) {
             const std::string other = f.dir + "/other/clang-offload-bundler";
             REQUIRE(util::make_dirs(f.dir + "/other").ok());
             REQUIRE(util::write_file_atomic(other, "#!/bin/sh\n").ok());
             REQUIRE(::chmod(other.c_str(), 0755) == 0);
             e["bundler"] = other;
         }},
        {"another program as the bundler",
         [](json& e, const FakeClang& f) { e["bundler"] = f.cc; }},
        // The new driver's RDC packer option on an old-driver bundle.
        {"an embed option for a bundler",
         [](json& e, const FakeClang&) { e["embed_option"] = "-fembed-offload-object="; }},
        {"new-driver code generation for fewer architectures",
         [](json& e, const FakeClang&) {
             e["codegen"] = {{"clang", "-mcpu=gfx906", "-o", "@PHC_OUTPUT@", "@PHC_INPUT_0@"}};
         }},
    };
    FakeClang f;
    {
        ProbeCache first(f.file);
        REQUIRE(first.get(f.request()).ok());
    }
    auto fresh = util::read_file(f.file);
    REQUIRE(fresh.ok());
    ProbeCache reference; // in memory: what a probe gives
    auto want = reference.get(f.request());
    REQUIRE(want.ok());
    for (const Case& c : cases) {
        std::string what = c.what;
        CAPTURE(what);
        REQUIRE(util::write_file_atomic(f.file, *fresh).ok());
        edit_entries(f.file, [&](json& e) { c.edit(e, f); });
        {
            ProbeCache edited(f.file);
            auto r = edited.get(f.request());
            REQUIRE(r.ok());
            CHECK(edited.probes_run() == 1);
            CHECK(r->archs == want->archs);
            CHECK(r->bundler == want->bundler);
            CHECK(r->bundler_args == want->bundler_args);
            CHECK(r->rdc == want->rdc);
            CHECK(r->codegen == want->codegen);
        }
        ProbeCache after(f.file); // the probe replaced the entry
        REQUIRE(after.get(f.request()).ok());
        CHECK(after.probes_run() == 0);
    }
    // The bundler removed after the probe: probed again (here: the same answer,
    // so the cache keeps asking; a real driver names an existing one).
    REQUIRE(util::write_file_atomic(f.file, *fresh).ok());
    std::remove(f.bundler.c_str());
    ProbeCache gone(f.file);
    REQUIRE(gone.get(f.request()).ok());
    CHECK(gone.probes_run() == 1);
}

TEST_CASE("probe cache: a cache file that is not a regular file is ignored, not waited on") {
    FakeClang f;
    SUBCASE("a fifo") {
        REQUIRE(::mkfifo(f.file.c_str(), 0644) == 0);
        // (The old code wrote into the fifo once a reader came: no SIGPIPE death.)
        auto old_pipe = std::signal(SIGPIPE, SIG_IGN);
        auto state = std::make_shared<std::pair<std::string, ProbeRequest>>(f.file, f.request());
        auto ok = std::make_shared<std::atomic<int>>(-1);
        std::string err = stderr_of([&] {
            bool done = finishes(
                [state, ok] {
                    ProbeCache c(state->first);
                    *ok = c.get(state->second).ok() && c.probes_run() == 1;
                },
                10.0);
            CHECK(done);
            for (int i = 0; i < 500 && !done && *ok < 0; ++i) { // unblock the old code
                int w = ::open(f.file.c_str(), O_WRONLY | O_NONBLOCK);
                if (w >= 0) ::close(w);
                int r = ::open(f.file.c_str(), O_RDONLY | O_NONBLOCK);
                if (r >= 0) ::close(r);
                ::usleep(10000);
            }
        });
        std::signal(SIGPIPE, old_pipe);
        CHECK(*ok == 1);
        struct stat st {};
        REQUIRE(::lstat(f.file.c_str(), &st) == 0);
        CHECK(S_ISFIFO(st.st_mode)); // never replaced
        CHECK(count_of(err, "warning") == 1);
        CHECK(err.find("not a regular file") != std::string::npos);
    }
    SUBCASE("a link to /dev/zero") {
        REQUIRE(::symlink("/dev/zero", f.file.c_str()) == 0);
        std::string err = stderr_of([&] {
            ProbeCache c(f.file);
            CHECK(c.get(f.request()).ok());
            CHECK(c.get(f.request({"PHC_UNIT=2"})).ok());
            CHECK(c.probes_run() == 2);
        });
        char target[64] = {};
        CHECK(::readlink(f.file.c_str(), target, sizeof target - 1) > 0);
        CHECK(std::string(target) == "/dev/zero");
        CHECK(count_of(err, "warning") == 1);
    }
    SUBCASE("a file over 16 MB") {
        int fd = ::open(f.file.c_str(), O_WRONLY | O_CREAT, 0644);
        REQUIRE(fd >= 0);
        REQUIRE(::ftruncate(fd, 17 << 20) == 0);
        ::close(fd);
        std::string err = stderr_of([&] {
            ProbeCache c(f.file);
            CHECK(c.get(f.request()).ok());
            CHECK(c.probes_run() == 1);
        });
        CHECK(count_of(err, "warning") == 1);
        CHECK(err.find("16 MB") != std::string::npos);
        ProbeCache again(f.file); // replaced by a cache of the right size
        CHECK(again.get(f.request()).ok());
        CHECK(again.probes_run() == 0);
    }
}

TEST_CASE("probe cache: concurrent first probes by separate caches all reach the file") {
    FakeClang f;
    constexpr int kThreads = 4, kKeys = 10;
    std::vector<int> ok(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            ProbeCache c(f.file); // one process each, as parallel launchers
            for (int k = 0; k < kKeys; ++k)
                ok[t] += c.get(f.request({fmt::format("PHC_UNIT_KEY={}-{}", t, k)})).ok();
        });
    for (auto& t : threads)
        t.join();
    for (int t = 0; t < kThreads; ++t)
        CHECK(ok[t] == kKeys);
    ProbeCache all(f.file);
    for (int t = 0; t < kThreads; ++t)
        for (int k = 0; k < kKeys; ++k)
            CHECK(all.get(f.request({fmt::format("PHC_UNIT_KEY={}-{}", t, k)})).ok());
    CHECK(all.probes_run() == 0);
}

TEST_CASE("the unit tests' fake prober answers as clang-15's recorded -### jobs") {
    auto same = [](const ProbeResult& fake, const ProbeResult& real) {
        CHECK(fake.driver == real.driver);
        CHECK(fake.rdc == real.rdc);
        CHECK(fake.bundler == real.bundler);
        CHECK(fake.bundler_args == real.bundler_args);
        CHECK(fake.archs == real.archs);
        CHECK(fake.device_compiles == real.device_compiles);
        CHECK(fake.codegen == real.codegen);
    };
    probe::Prober p = test::fake_prober();
    ProbeRequest req{{},
                     {"clang++-15", "-x", "hip", "--offload-arch=gfx90a",
                      "--offload-arch=gfx906,gfx90a", "-c", "k.hip", "-o", "k.o"},
                     {}};
    auto plain = p.run(req);
    REQUIRE(plain.ok());
    same(*plain, parse_data("c15.txt"));
    same(*plain, parse_data("hipcc.txt"));
    req.argv.push_back("-fgpu-rdc");
    auto rdc = p.run(req);
    REQUIRE(rdc.ok());
    same(*rdc, parse_data("c15rdc.txt"));
    CHECK_FALSE(p.key_head({{}, {"/nonexistent/clang++", "-c", "k.hip"}, {}}).ok());
    CHECK_FALSE(p.key_head({{}, {"gcc", "-c", "k.hip"}, {}}).ok());
}

TEST_CASE("probe: the new driver's jobs not understood say which phase gave up, cached too") {
    char t[] = "/tmp/phc-unit-probe-XXXXXX";
    REQUIRE(::mkdtemp(t) != nullptr);
    const std::string d = t;
    // clang 22 without -fgpu-rdc: device bitcode, packed, the wrapper's fat binary embedded.
    const std::string jobs =
        "clang version 22.1.8\n"
        " \"/usr/bin/clang-22\" \"-cc1\" \"-triple\" \"amdgcn-amd-amdhsa\" \"-emit-llvm-bc\" "
        "\"-o\" \"/tmp/k-gfx906.bc\" \"-x\" \"hip\" \"a.hip\"\n \"" +
        d +
        "/clang-offload-packager\" \"-o\" \"/tmp/k.out\" "
        "\"--image=file=/tmp/k-gfx906.bc,triple=amdgcn-amd-amdhsa,arch=gfx906,kind=hip\"\n \"" +
        d +
        "/clang-linker-wrapper\" \"--emit-fatbin-only\" \"-o\" \"/tmp/k.hipfb\" \"/tmp/k.out\"\n"
        " \"/usr/bin/clang-22\" \"-cc1\" \"-triple\" \"x86_64-pc-linux-gnu\" "
        "\"-fcuda-include-gpubinary\" \"/tmp/k.hipfb\" \"-o\" \"a.o\" \"-x\" \"hip\" \"a.hip\"\n";
    REQUIRE(util::write_file_atomic(d + "/jobs.txt", jobs).ok());
    auto script = [&](const std::string& name, const std::string& body) {
        REQUIRE(util::write_file_atomic(d + "/" + name, "#!/bin/sh\n" + body).ok());
        REQUIRE(::chmod((d + "/" + name).c_str(), 0755) == 0);
    };
    script("clang++", "cat '" + d + "/jobs.txt' >&2\n");
    script("clang-offload-packager", "exit 0\n");
    const ProbeRequest req{{}, {d + "/clang++", "--offload-arch=gfx906", "-c", "a.hip"}, d};
    auto reason = [&] {
        auto r = run_probe(req);
        REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
        CHECK(r->driver == DriverKind::New);
        CHECK(r->codegen.empty());
        return r->not_understood;
    };
    script("clang-linker-wrapper", "echo 'clang-linker-wrapper: error: boom' >&2\nexit 1\n");
    CHECK(reason() == "the wrapper's dry run: clang-linker-wrapper failed (exit 1): "
                      "clang-linker-wrapper: error: boom");
    script("clang-linker-wrapper", "exit 0\n");
    CHECK(reason() == "the wrapper's dry run runs no clang-offload-bundler");
    script("clang-offload-packager", "exit 3\n");
    CHECK(reason() == "packing stand-in images: clang-offload-packager failed (exit 3)");

    // --explain shows it, and the cache file keeps it.
    {
        ProbeCache first(d + "/probes.json");
        REQUIRE(first.get(req).ok());
    }
    ProbeCache again(d + "/probes.json");
    auto cached = again.get(req);
    REQUIRE(cached.ok());
    CHECK(again.probes_run() == 0);
    Analysis a = analyze_string("clang++ -x hip --offload-arch=gfx906 --offload-arch=gfx90a -c "
                                "a.hip -o a.o",
                                {});
    REQUIRE(a.decision.split());
    apply_probe(a, *cached);
    CHECK(a.decision.reason == Reason::NewDriver);
    CHECK(a.decision.text == "the new offload driver's jobs are not understood (packing "
                             "stand-in images: clang-offload-packager failed (exit 3))");
    CHECK(std::system(("rm -rf " + d).c_str()) == 0);
}
