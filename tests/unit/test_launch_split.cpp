#include "launch/launcher.h"
#include "launch/planning.h"

#include <cstdio>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace phc::launch;

namespace {

Job sh(std::string label, std::string script) {
    return Job{std::move(label), {"sh", "-c", std::move(script)}, {}, {}, {}};
}

/// Redirects fd 1 and 2 to files while alive; text() reads what was written.
class Capture {
public:
    Capture() {
        fflush(stdout);
        fflush(stderr);
        saved1_ = ::dup(1);
        saved2_ = ::dup(2);
        int o = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
        ::dup2(o, 1);
        ::dup2(e, 2);
        ::close(o);
        ::close(e);
    }
    ~Capture() {
        restore();
        ::unlink(out_.c_str());
        ::unlink(err_.c_str());
    }
    void restore() {
        if (saved1_ < 0) return;
        ::dup2(saved1_, 1);
        ::dup2(saved2_, 2);
        ::close(saved1_);
        ::close(saved2_);
        saved1_ = saved2_ = -1;
    }
    static std::string slurp(const std::string& p) {
        std::ifstream f(p);
        std::stringstream ss;
        ss << f.rdbuf();
        return ss.str();
    }
    std::string out() const { return slurp(out_); }
    std::string err() const { return slurp(err_); }

private:
    std::string out_ = "/tmp/phc-unit-cap-out-" + std::to_string(::getpid());
    std::string err_ = "/tmp/phc-unit-cap-err-" + std::to_string(::getpid());
    int saved1_ = -1, saved2_ = -1;
};

std::unique_ptr<SignalPipe> signals() {
    auto sp = SignalPipe::install();
    REQUIRE(sp.ok());
    return std::move(sp).value();
}

bool exists(const std::string& p) {
    return ::access(p.c_str(), F_OK) == 0;
}

} // namespace

TEST_CASE("split runner: common device warnings once, host output after, object kept") {
    auto sp = signals();
    auto js = Jobserver::local(2);
    std::string obj = "/tmp/phc-unit-split-" + std::to_string(::getpid()) + ".o";
    SplitJobs jobs;
    jobs.waves = {{sh("gfx906", "echo 'k.hip:1:1: warning: same' >&2"),
                   sh("gfx90a", "echo 'k.hip:1:1: warning: same' >&2; echo 'only 90a' >&2")},
                  {sh("bundle", "true")},
                  {sh("host", "echo host-said >&2; echo obj > " + obj)}};
    jobs.outputs = {obj};
    Outcome o;
    Capture cap;
    o = run_split(jobs, *js, *sp, {});
    cap.restore();
    CHECK(o.exit_code == 0);
    CHECK(o.signal == 0);
    // Device diagnostics name the compiles that printed them; the host's own are plain.
    CHECK(cap.err() == "[gfx906, gfx90a] k.hip:1:1: warning: same\n[gfx90a] only 90a\nhost-said\n");
    CHECK(exists(obj));
    ::unlink(obj.c_str());
}

TEST_CASE("split runner: a warning the device and host compiles print is shown once, naming them") {
    auto sp = signals();
    auto js = Jobserver::local(2);
    std::string obj = "/tmp/phc-unit-split-host-" + std::to_string(::getpid()) + ".o";
    auto warn = [](const std::string& label) {
        return "echo 'k.hip:1:1: warning: w'; echo '1 warning generated when compiling for " +
               label + ".'";
    };
    SplitJobs jobs;
    jobs.waves = {{sh("gfx906", "{ " + warn("gfx906") + "; } >&2"),
                   sh("gfx90a", "{ " + warn("gfx90a") + "; } >&2")},
                  {sh("bundle", "true")},
                  {sh("host", "{ " + warn("host") + "; } >&2; echo obj > " + obj)}};
    jobs.outputs = {obj};
    Capture cap;
    Outcome o = run_split(jobs, *js, *sp, {});
    cap.restore();
    CHECK(o.exit_code == 0);
    CHECK(cap.err() ==
          "k.hip:1:1: warning: w\n1 warning generated when compiling for gfx906, gfx90a, host.\n");
    ::unlink(obj.c_str());
}

TEST_CASE("split runner: an RDC wave runs the host compile beside the device compiles") {
    auto sp = signals();
    auto js = Jobserver::local(3);
    std::string dir = "/tmp/phc-unit-rdc-" + std::to_string(::getpid());
    ::mkdir(dir.c_str(), 0700);
    SplitJobs jobs;
    // Each job of the first wave waits until all three have started: they run at once.
    auto meet = [&](const std::string& me) {
        return "touch " + dir + "/" + me + "; for i in $(seq 100); do [ $(ls " + dir +
               " | wc -l) -ge 3 ] && exit 0; sleep 0.05; done; exit 9";
    };
    jobs.waves = {{sh("gfx906", meet("a")), sh("gfx90a", meet("b")), sh("host", meet("c"))},
                  {sh("bundle", "echo obj > " + dir + ".o")}};
    jobs.outputs = {dir + ".o"};
    Capture cap;
    Outcome o = run_split(jobs, *js, *sp, {});
    cap.restore();
    CHECK(o.exit_code == 0);
    CHECK(exists(dir + ".o"));
    ::unlink((dir + ".o").c_str());
    for (const char* f : {"a", "b", "c"})
        ::unlink((dir + "/" + f).c_str());
    ::rmdir(dir.c_str());
}

TEST_CASE("split runner: a failing step's status is returned and outputs are removed") {
    auto sp = signals();
    auto js = Jobserver::local(2);
    std::string obj = "/tmp/phc-unit-split-f-" + std::to_string(::getpid()) + ".o";
    for (const char* which : {"device", "bundle", "host"}) {
        CAPTURE(which);
        std::string w = which;
        SplitJobs jobs;
        jobs.waves = {{sh("a", "true"), sh("b", w == "device" ? "exit 4" : "true")},
                      {sh("bundle", w == "bundle" ? "exit 5" : "true")},
                      // The host writes a partial object and then fails.
                      {sh("host", "echo partial > " + obj + (w == "host" ? "; exit 6" : ""))}};
        jobs.outputs = {obj};
        { std::ofstream(obj) << "stale"; }
        Capture cap;
        Outcome o = run_split(jobs, *js, *sp, {});
        cap.restore();
        CHECK(o.exit_code == (w == "device" ? 4 : w == "bundle" ? 5 : 6));
        CHECK_FALSE(exists(obj));
        CHECK(js->held() == 0);
    }
}

TEST_CASE("launch: under ccache the host step reads its bundle from a descriptor") {
    const std::string bundle = "/tmp/phc-launch-1-abc/bundle.hipfb";
    auto jobs_with = [&](std::string extrafiles) {
        SplitJobs jobs;
        jobs.waves = {{Job{"gfx906", {"ccache", "clang++", "-o", "/tmp/x/gfx906.o"}, {}, {}, {}}},
                      {Job{"host",
                           {"ccache", "clang++", "-Xclang", "-fcuda-include-gpubinary", "-Xclang",
                            bundle, "-c", "k.hip"},
                           {},
                           {{"TMPDIR", "/tmp/x"}, {"CCACHE_EXTRAFILES", extrafiles}},
                           {}}}};
        return jobs;
    };
    SplitJobs j = jobs_with(bundle);
    bundle_by_descriptor(j, bundle, nullptr);
    const Job& host = j.waves[1][0];
    CHECK(host.argv[5] == "/dev/fd/19");
    CHECK(host.env[1].second == "/dev/fd/19");
    REQUIRE(host.files.size() == 1);
    CHECK(host.files[0] == std::pair<int, std::string>{19, bundle});
    CHECK(j.waves[0][0].files.empty()); // a device step is left as it was
    CHECK(j.waves[0][0].argv[3] == "/tmp/x/gfx906.o");

    // The environment's extra files stay hashed; so do the command's own.
    j = jobs_with(bundle);
    bundle_by_descriptor(j, bundle, "/opt/rocm/.info/version");
    CHECK(j.waves[1][0].env[1].second == "/opt/rocm/.info/version:/dev/fd/19");
    j = jobs_with("mine.txt:" + bundle);
    bundle_by_descriptor(j, bundle, "/opt/rocm/.info/version");
    CHECK(j.waves[1][0].env[1].second == "mine.txt:/dev/fd/19");

    // Not under ccache: nothing changes.
    j = jobs_with(bundle);
    j.waves[1][0].env.pop_back();
    bundle_by_descriptor(j, bundle, nullptr);
    CHECK(j.waves[1][0].argv[5] == bundle);
    CHECK(j.waves[1][0].files.empty());
}
