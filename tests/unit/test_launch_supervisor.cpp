#include "launch/supervisor.h"

#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace phc::launch;

namespace {

Job sh(std::string label, std::string script) {
    return Job{std::move(label), {"sh", "-c", std::move(script)}, {}, {}, {}};
}

std::unique_ptr<SignalPipe> signals() {
    auto sp = SignalPipe::install();
    REQUIRE(sp.ok());
    return std::move(sp).value();
}

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

} // namespace

TEST_CASE("supervisor: captures each job's streams whole, with cwd and env") {
    auto sp = signals();
    auto js = Jobserver::local(2);
    std::vector<Job> jobs = {sh("a", "echo out-a; echo err-a >&2"), sh("b", "echo $PHC_T_VAR; pwd"),
                             sh("c", "exit 0")};
    jobs[1].env = {{"PHC_T_VAR", "v1"}};
    jobs[1].cwd = "/tmp";
    auto rep = run_jobs(jobs, *js, *sp);
    REQUIRE(rep.jobs.size() == 3);
    CHECK(rep.first_failure == -1);
    CHECK(rep.signal == 0);
    CHECK(rep.jobs[0].out == "out-a\n");
    CHECK(rep.jobs[0].err == "err-a\n");
    CHECK(rep.jobs[1].out == "v1\n/tmp\n");
    for (auto& r : rep.jobs)
        CHECK(r.ok());
    CHECK(js->held() == 0);
}

TEST_CASE("supervisor: runs in parallel up to the slots, and no further") {
    auto sp = signals();
    char dir[] = "/tmp/phc-unit-sup-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    std::string d = dir;
    // Each job records how many were running when it started.
    std::string body = "mkdir " + d + "/$$ ; n=$(ls " + d + " | wc -l); echo $n; sleep 0.3; " +
                       "rmdir " + d + "/$$";
    std::vector<Job> jobs;
    for (int i = 0; i < 4; ++i)
        jobs.push_back(sh("j" + std::to_string(i), body));
    auto js = Jobserver::local(2);
    auto t0 = std::chrono::steady_clock::now();
    auto rep = run_jobs(jobs, *js, *sp);
    double took = seconds_since(t0);
    int max_seen = 0;
    for (auto& r : rep.jobs) {
        REQUIRE(r.ok());
        max_seen = std::max(max_seen, std::stoi(r.out));
    }
    CHECK(max_seen == 2);
    CHECK(took >= 0.55); // 4 jobs of 0.3 s, two at a time
    CHECK(took < 3.0);
    CHECK(js->held() == 0);
    ::rmdir(dir);
}

TEST_CASE("supervisor: tokens from a real pipe are taken while jobs wait and all come back") {
    auto sp = signals();
    int p[2];
    REQUIRE(::pipe(p) == 0);
    REQUIRE(::write(p[1], "AB", 2) == 2);
    auto js = Jobserver::open_pipe(p[0], p[1]);
    REQUIRE(js.ok());
    std::vector<Job> jobs;
    for (int i = 0; i < 5; ++i)
        jobs.push_back(sh("j", "sleep 0.1"));
    auto rep = run_jobs(jobs, **js, *sp);
    for (auto& r : rep.jobs)
        CHECK(r.ok());
    CHECK((*js)->held() == 0);
    phc::util::set_nonblocking(p[0]);
    char buf[8];
    CHECK(::read(p[0], buf, sizeof buf) == 2);
    ::close(p[0]);
    ::close(p[1]);
}

TEST_CASE("supervisor: the first failure stops the rest; its status is kept") {
    auto sp = signals();
    auto js = Jobserver::local(2);
    std::vector<Job> jobs = {sh("slow", "sleep 20"), sh("bad", "echo broken >&2; exit 3"),
                             sh("never", "echo never")};
    auto t0 = std::chrono::steady_clock::now();
    auto rep = run_jobs(jobs, *js, *sp);
    CHECK(seconds_since(t0) < 5.0);
    CHECK(rep.first_failure == 1);
    CHECK(rep.jobs[1].state == JobResult::State::Exited);
    CHECK(rep.jobs[1].exit_status() == 3);
    CHECK(rep.jobs[1].err == "broken\n");
    CHECK(rep.jobs[0].state == JobResult::State::Stopped);
    CHECK(rep.jobs[2].state == JobResult::State::NotRun);
    CHECK(js->held() == 0);
}

TEST_CASE("supervisor: a program that cannot start is a failure with a message") {
    auto sp = signals();
    auto js = Jobserver::local(1);
    auto rep = run_jobs({Job{"x", {"/nonexistent/cc"}, {}, {}, {}}}, *js, *sp);
    CHECK(rep.first_failure == 0);
    CHECK(rep.jobs[0].state == JobResult::State::SpawnFailed);
    CHECK(rep.jobs[0].err.find("cannot run '/nonexistent/cc'") != std::string::npos);
}

TEST_CASE("supervisor: a signal reaches every child's group; stubborn ones get SIGKILL") {
    auto sp = signals();
    auto js = Jobserver::local(3);
    RunOptions opt;
    opt.grace_ms = 300;
    // The first job signals us (its parent); a grandchild in its group must die too;
    // the third ignores SIGTERM and has to be killed.
    std::vector<Job> jobs = {sh("a", "sleep 30 & sleep 0.2; kill -TERM $PPID; wait"),
                             sh("b", "sleep 30"), sh("c", "trap '' TERM; sleep 30; sleep 30")};
    auto t0 = std::chrono::steady_clock::now();
    auto rep = run_jobs(jobs, *js, *sp, opt);
    CHECK(seconds_since(t0) < 5.0);
    CHECK(rep.signal == SIGTERM);
    for (auto& r : rep.jobs)
        CHECK(r.state == JobResult::State::Stopped);
    CHECK(rep.jobs[2].code == SIGKILL);
    CHECK(js->held() == 0);
}

TEST_CASE("supervisor: SIGHUP and SIGQUIT are forwarded too") {
    for (int sig : {SIGHUP, SIGQUIT}) {
        CAPTURE(sig);
        auto sp = signals();
        auto js = Jobserver::local(2);
        std::vector<Job> jobs = {
            sh("a", "sleep 0.2; kill -" + std::to_string(sig) + " $PPID; sleep 30"),
            sh("b", "sleep 30")};
        auto t0 = std::chrono::steady_clock::now();
        auto rep = run_jobs(jobs, *js, *sp);
        CHECK(seconds_since(t0) < 5.0);
        CHECK(rep.signal == sig);
        CHECK(rep.jobs[1].state == JobResult::State::Stopped);
        CHECK(rep.jobs[1].code == sig);
    }
}

namespace {

/// True while `pid` runs (a zombie counts as gone).
bool running(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat;
    if (!std::getline(in, stat)) return false;
    size_t paren = stat.rfind(')');
    return paren != std::string::npos && paren + 2 < stat.size() && stat[paren + 2] != 'Z';
}

/// Waits up to `seconds` for every pid in `pids` to be gone; true when they are.
bool all_gone(const std::vector<pid_t>& pids, double seconds) {
    auto t0 = std::chrono::steady_clock::now();
    while (true) {
        bool any = false;
        for (pid_t p : pids) {
            ::waitpid(p, nullptr, WNOHANG); // ours when this process is their subreaper
            any = any || running(p);
        }
        if (!any) return true;
        if (seconds_since(t0) > seconds) return false;
        ::usleep(20000);
    }
}

/// The pid written in `file` (by a job), or -1 while it is not there yet.
pid_t pid_in(const std::string& file) {
    std::ifstream in(file);
    long pid = -1;
    return in >> pid ? static_cast<pid_t>(pid) : -1;
}

/// Waits up to 10 s for each of `files` to hold a pid; the pids.
std::vector<pid_t> wait_for_pids(const std::vector<std::string>& files) {
    auto t0 = std::chrono::steady_clock::now();
    std::vector<pid_t> pids;
    while (seconds_since(t0) < 10) {
        pids.clear();
        for (const auto& f : files)
            if (pid_t p = pid_in(f); p > 0) pids.push_back(p);
        if (pids.size() == files.size()) break;
        ::usleep(20000);
    }
    return pids;
}

} // namespace

TEST_CASE("supervisor: SIGKILL of the launcher's process group leaves no job process running") {
    // `kill -KILL -PGID` of make's group (a CI cancel, `timeout -s KILL`): the
    // launcher cannot do anything, so its jobs and their children must be in
    // that group too.
    char dir[] = "/tmp/phc-unit-sup-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    std::string d = dir;
    // Each job leaves a child of its own (like a driver's cc1) and records both pids.
    auto job = [&](const std::string& name) {
        return sh(name, "sleep 30 & echo $! > " + d + "/" + name + ".kid.t; mv " + d + "/" + name +
                            ".kid.t " + d + "/" + name + ".kid; echo $$ > " + d + "/" + name +
                            ".pid.t; mv " + d + "/" + name + ".pid.t " + d + "/" + name +
                            ".pid; wait");
    };
    pid_t launcher = ::fork();
    REQUIRE(launcher >= 0);
    if (launcher == 0) {
        ::setpgid(0, 0); // stands for make's process group
        auto sp = SignalPipe::install();
        if (!sp) ::_exit(1);
        auto js = Jobserver::local(2);
        run_jobs({job("a"), job("b")}, *js, **sp);
        ::_exit(0);
    }
    ::setpgid(launcher, launcher);
    std::vector<pid_t> pids =
        wait_for_pids({d + "/a.pid", d + "/a.kid", d + "/b.pid", d + "/b.kid"});
    REQUIRE(pids.size() == 4);
    REQUIRE(::kill(-launcher, SIGKILL) == 0);
    REQUIRE(::waitpid(launcher, nullptr, 0) == launcher);
    CHECK(all_gone(pids, 3.0));
    for (pid_t p : pids) { // what an old launcher left behind
        ::kill(-p, SIGKILL);
        ::kill(p, SIGKILL);
    }
    all_gone(pids, 3.0);
    CHECK(system(("rm -rf " + d).c_str()) == 0);
}

TEST_CASE("supervisor: stopping reaches every job's children, also orphaned ones") {
    auto sp = signals();
    char dir[] = "/tmp/phc-unit-sup-XXXXXX";
    REQUIRE(::mkdtemp(dir));
    std::string d = dir;
    auto js = Jobserver::local(3);
    RunOptions opt;
    opt.grace_ms = 300;
    // a: a child that outlives its parent's SIGTERM (like a cc1 under a driver that
    // dies at once: it is orphaned and ignores SIGTERM); b: a plain child; c fails.
    std::vector<Job> jobs = {
        sh("a", "(trap '' TERM; exec sleep 30) & echo $! > " + d + "/a.t; mv " + d + "/a.t " + d +
                    "/a; wait"),
        sh("b", "sleep 30 & echo $! > " + d + "/b.t; mv " + d + "/b.t " + d + "/b; wait"),
        sh("c", "while [ ! -f " + d + "/a ] || [ ! -f " + d + "/b ]; do sleep 0.05; done; exit 4")};
    auto t0 = std::chrono::steady_clock::now();
    auto rep = run_jobs(jobs, *js, *sp, opt);
    CHECK(seconds_since(t0) < 5.0);
    CHECK(rep.first_failure == 2);
    CHECK(rep.jobs[0].state == JobResult::State::Stopped);
    CHECK(rep.jobs[1].state == JobResult::State::Stopped);
    std::vector<pid_t> kids = {pid_in(d + "/a"), pid_in(d + "/b")};
    REQUIRE(kids[0] > 0);
    REQUIRE(kids[1] > 0);
    CHECK(all_gone(kids, 0.5)); // gone by the time run_jobs returns (0.5 s: reaping)
    for (pid_t p : kids)
        ::kill(p, SIGKILL);
    all_gone(kids, 3.0);
    CHECK(system(("rm -rf " + d).c_str()) == 0);
}
