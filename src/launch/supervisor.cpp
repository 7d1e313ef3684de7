#include "launch/supervisor.h"

#include "util/fd.h"
#include "util/subprocess.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <poll.h>
#include <set>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

namespace phc::launch {

int64_t wall_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

int JobResult::exit_status() const {
    switch (state) {
    case State::Exited:
        return code;
    case State::Signaled:
    case State::Stopped:
        return 128 + code;
    case State::SpawnFailed:
        return 127;
    case State::NotRun:
        return 1;
    }
    return 1;
}

namespace {

using Clock = std::chrono::steady_clock;

/// A started child and what it holds.
struct Running {
    size_t index = 0;
    pid_t pid = -1;
    util::Fd out, err;
    std::optional<Token> token; ///< empty: it runs in our implicit slot
    bool reaped = false;
    int status = 0;
};

/// Starts `job` in our process group (see run_jobs) with its output on two
/// pipes, its signals at their defaults. On failure fills `result`'s stderr
/// with why and returns pid -1.
pid_t start_job(const Job& job, util::Fd& out, util::Fd& err, JobResult& result) {
    util::SpawnOptions options{job.cwd, job.env, job.files, true};
    auto child = util::spawn(job.argv, options);
    if (!child) {
        result.err = format_error("phc-launch", child.error()) + "\n";
        return -1;
    }
    out = std::move(child->out);
    err = std::move(child->err);
    return child->pid;
}

/// One process, as /proc/<pid>/stat describes it.
struct Proc {
    pid_t pid = 0, ppid = 0, pgid = 0;
    char state = '?'; ///< 'Z': a zombie
};

/// Every process of the machine (of our pid namespace), from /proc.
std::vector<Proc> list_processes() {
    std::vector<Proc> out;
    DIR* d = ::opendir("/proc");
    if (!d) return out;
    while (const dirent* e = ::readdir(d)) {
        char* end = nullptr;
        long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        char path[64], buf[512];
        std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        util::Fd fd = util::open_fd(path, O_RDONLY);
        if (!fd.valid()) continue; // gone meanwhile
        ssize_t n = ::read(fd.get(), buf, sizeof buf - 1);
        if (n <= 0) continue;
        buf[n] = '\0';
        // "pid (comm) S ppid pgrp ...": comm may hold anything, up to the last ')'.
        const char* paren = std::strrchr(buf, ')');
        Proc p;
        p.pid = static_cast<pid_t>(pid);
        if (paren && std::sscanf(paren + 1, " %c %d %d", &p.state, &p.ppid, &p.pgid) == 3)
            out.push_back(p);
    }
    ::closedir(d);
    return out;
}

/// Our jobs' processes: every descendant of this process that is still in its
/// process group, found through the parent links (a daemon that left the group,
/// like a compiler cache's server, is not ours to stop). Zombies included.
std::vector<Proc> job_processes() {
    const pid_t self = ::getpid(), group = ::getpgrp();
    std::multimap<pid_t, Proc> children;
    for (const Proc& p : list_processes())
        if (p.pgid == group) children.emplace(p.ppid, p);
    std::vector<Proc> out;
    std::vector<pid_t> todo{self};
    while (!todo.empty()) {
        pid_t parent = todo.back();
        todo.pop_back();
        auto [from, to] = children.equal_range(parent);
        for (auto it = from; it != to; ++it) {
            out.push_back(it->second);
            if (it->second.pid != self) todo.push_back(it->second.pid);
        }
    }
    return out;
}

/// Sends `sig` to every live process of our jobs, looking again until a look finds
/// none it has not signalled yet (a process may start while we look).
void signal_job_processes(int sig) {
    std::set<pid_t> sent;
    for (int round = 0; round < 10; ++round) {
        bool found = false;
        for (const Proc& p : job_processes())
            if (p.state != 'Z' && sent.insert(p.pid).second) {
                ::kill(p.pid, sig);
                found = true;
            }
        if (!found) return;
    }
}

/// After a stop, when every job is reaped: kills what is left of them (children
/// that outlived their job, re-parented to us as their subreaper) and reaps
/// those that became our children.
void kill_leftovers() {
    for (int round = 0; round < 200; ++round) { // 2 s at most
        bool live = false;
        for (const Proc& p : job_processes()) {
            if (p.state == 'Z') {
                if (p.ppid == ::getpid()) ::waitpid(p.pid, nullptr, WNOHANG);
            } else {
                live = true;
                ::kill(p.pid, SIGKILL);
            }
        }
        if (!live) return;
        ::usleep(10000);
    }
}

/// Makes this process the subreaper of its descendants while alive, so that a
/// job's child whose parent died is re-parented to us (and still found by
/// job_processes) instead of to init; restores the previous setting.
class Subreaper {
public:
    Subreaper() {
        if (::prctl(PR_GET_CHILD_SUBREAPER, &old_) != 0) old_ = 1; // unknown: leave it on
        if (!old_) ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    }
    ~Subreaper() {
        if (!old_) ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    }
    Subreaper(const Subreaper&) = delete;
    Subreaper& operator=(const Subreaper&) = delete;

private:
    int old_ = 0;
};

/// Reads what is available on `fd` into `sink`; closes `fd` at EOF or error.
void read_some(util::Fd& fd, std::string& sink) {
    char buf[1 << 15];
    while (fd.valid()) {
        ssize_t n = ::read(fd.get(), buf, sizeof buf);
        if (n > 0) {
            sink.append(buf, static_cast<size_t>(n));
            continue;
        }
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) return;
        fd.reset();
    }
}

/// The loop's state; one instance per run_jobs() call.
class Loop {
public:
    /// Borrows everything for the duration of one run_jobs() call.
    Loop(const std::vector<Job>& jobs, Jobserver& js, SignalPipe& sp, const RunOptions& o)
        : jobs_(jobs), js_(js), sp_(sp), opt_(o) {
        report_.jobs.resize(jobs.size());
    }

    /// Runs until no job is running and none can start.
    RunReport run() {
        Subreaper subreaper;
        while (true) {
            start_waiting_jobs();
            if (running_.empty()) break;
            wait_for_events();
            collect_finished();
            if (stopping_ && !killed_ && Clock::now() >= deadline_) kill_all(SIGKILL);
        }
        if (stopping_) kill_leftovers();
        return std::move(report_);
    }

private:
    /// True when jobs wait to start and nothing stops us from starting them.
    bool has_waiting() const { return !stopping_ && next_ < jobs_.size(); }

    /// Fills the implicit slot, then every token free right now.
    void start_waiting_jobs() {
        if (has_waiting() && !implicit_busy_) {
            implicit_busy_ = true;
            start(std::nullopt);
        }
        while (has_waiting()) {
            auto tok = js_.try_acquire();
            if (!tok) break;
            start(std::move(tok));
        }
    }

    /// Starts the next job in `token`'s slot (none: the implicit slot).
    void start(std::optional<Token> token) {
        size_t i = next_++;
        JobResult& r = report_.jobs[i];
        Running run;
        run.index = i;
        r.start_ms = wall_ms();
        run.pid = start_job(jobs_[i], run.out, run.err, r);
        if (run.pid < 0) {
            r.state = JobResult::State::SpawnFailed;
            r.end_ms = r.start_ms;
            if (!token) implicit_busy_ = false;
            fail(i);
            if (opt_.on_done) opt_.on_done(i, r);
            return; // the token (if any) goes back here
        }
        run.token = std::move(token);
        running_.push_back(std::move(run));
    }

    /// One poll(): signals, a free token, child output; then reaps children.
    void wait_for_events() {
        std::vector<pollfd> fds;
        fds.push_back({sp_.fd(), POLLIN, 0});
        if (has_waiting() && js_.wait_fd() >= 0) fds.push_back({js_.wait_fd(), POLLIN, 0});
        for (auto& r : running_) {
            if (r.out.valid()) fds.push_back({r.out.get(), POLLIN, 0});
            if (r.err.valid()) fds.push_back({r.err.get(), POLLIN, 0});
        }
        // The CPU pool: a slot freed without an event (no inotify) is seen by looking again.
        int timeout = has_waiting() ? js_.retry_ms() : -1;
        if (stopping_ && !killed_) {
            auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now());
            timeout = left.count() < 0 ? 0 : static_cast<int>(left.count()) + 1;
        }
        // A child whose pipes are closed but who is not reaped yet is waited for
        // through SIGCHLD on the signal pipe; the jobserver fd through POLLIN.
        if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return;
        for (int sig : sp_.drain())
            if (sig != SIGCHLD) interrupt(sig);
        for (auto& r : running_) {
            read_some(r.out, report_.jobs[r.index].out);
            read_some(r.err, report_.jobs[r.index].err);
        }
        reap();
    }

    /// Collects exited children (WNOHANG) and drains what they wrote.
    void reap() {
        for (auto& r : running_) {
            if (r.reaped) continue;
            int status = 0;
            pid_t p = ::waitpid(r.pid, &status, WNOHANG);
            if (p == r.pid || (p < 0 && errno == ECHILD)) {
                r.reaped = true;
                // ECHILD: reaped elsewhere, its status lost; never count that as success.
                r.status = p == r.pid ? status : (127 << 8);
                // Its children that outlive it are killed with the other jobs'
                // (the deadline) or at the end (kill_leftovers). Whatever it wrote is in the pipe
                // by now; grandchildren that keep the pipe open do not hold us up.
                read_some(r.out, report_.jobs[r.index].out);
                read_some(r.err, report_.jobs[r.index].err);
                r.out.reset();
                r.err.reset();
            }
        }
    }

    /// Records reaped jobs and passes their slots on to waiting jobs.
    void collect_finished() {
        for (size_t k = 0; k < running_.size();) {
            Running& r = running_[k];
            if (!r.reaped) {
                ++k;
                continue;
            }
            JobResult& res = report_.jobs[r.index];
            res.end_ms = wall_ms();
            if (WIFEXITED(r.status)) {
                res.state = JobResult::State::Exited;
                res.code = WEXITSTATUS(r.status);
            } else {
                res.code = WIFSIGNALED(r.status) ? WTERMSIG(r.status) : SIGKILL;
                res.state = stopping_ ? JobResult::State::Stopped : JobResult::State::Signaled;
            }
            if (!res.ok() && !stopping_) fail(r.index);
            if (opt_.on_done) opt_.on_done(r.index, res);
            std::optional<Token> token = std::move(r.token);
            if (!token) implicit_busy_ = false;
            running_.erase(running_.begin() + static_cast<long>(k));
            // A freed slot goes straight to the next waiting job; else back to make.
            if (has_waiting()) {
                if (token)
                    start(std::move(token));
                else if (!implicit_busy_) {
                    implicit_busy_ = true;
                    start(std::nullopt);
                }
            }
        }
    }

    /// Notes the first failure and stops the other jobs.
    void fail(size_t index) {
        if (report_.first_failure < 0) report_.first_failure = static_cast<int>(index);
        begin_stop(SIGTERM);
    }

    /// A forwarded signal arrived: pass it to every process of every job.
    void interrupt(int sig) {
        if (report_.signal == 0) report_.signal = sig;
        if (!stopping_)
            begin_stop(sig);
        else
            signal_job_processes(sig);
    }

    /// Starts no more jobs; sends `sig` to every process of the running ones; arms
    /// the SIGKILL deadline.
    void begin_stop(int sig) {
        stopping_ = true;
        deadline_ = Clock::now() + std::chrono::milliseconds(opt_.grace_ms);
        signal_job_processes(sig);
    }

    /// Sends `sig` to every process of every job (the grace period is over).
    void kill_all(int sig) {
        killed_ = true;
        signal_job_processes(sig);
    }

    const std::vector<Job>& jobs_;
    Jobserver& js_;
    SignalPipe& sp_;
    const RunOptions& opt_;
    RunReport report_;
    std::vector<Running> running_;
    size_t next_ = 0;
    bool implicit_busy_ = false;
    bool stopping_ = false;
    bool killed_ = false;
    Clock::time_point deadline_{};
};

} // namespace

RunReport run_jobs(const std::vector<Job>& jobs, Jobserver& js, SignalPipe& signals,
                   const RunOptions& options) {
    return Loop(jobs, js, signals, options).run();
}

} // namespace phc::launch
