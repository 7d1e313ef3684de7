#include "launch/supervisor.h"

#include <chrono>
#include <csignal>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

using namespace phc::launch;

namespace {

Job sh(std::string label, std::string script) {
    return Job{std::move(label), {"sh", "-c", std::move(script)}, {}, {}};
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
    set_nonblocking(p[0]);
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
    auto rep = run_jobs({Job{"x", {"/nonexistent/cc"}, {}, {}}}, *js, *sp);
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
