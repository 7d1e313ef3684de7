#include "launch/supervisor.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <optional>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

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
    Fd out, err;
    std::optional<Token> token; ///< empty: it runs in our implicit slot
    bool reaped = false;
    int status = 0;
};

/// The environment for a job: ours with `env` assignments replacing or adding.
std::vector<std::string> job_environment(const Job& job) {
    std::vector<std::string> envs;
    for (char** e = environ; *e; ++e) {
        std::string_view kv = *e;
        bool replaced = false;
        for (const auto& [k, v] : job.env)
            if (kv.size() > k.size() && kv.starts_with(k) && kv[k.size()] == '=') replaced = true;
        if (!replaced) envs.emplace_back(kv);
    }
    for (const auto& [k, v] : job.env)
        envs.push_back(k + "=" + v);
    return envs;
}

/// Starts `job` in a new process group with its output on two pipes. On failure
/// fills `result` (SpawnFailed) and returns pid -1.
pid_t spawn(const Job& job, Fd& out, Fd& err, JobResult& result) {
    int op[2], ep[2];
    if (::pipe2(op, O_CLOEXEC) != 0) {
        result.err = fmt::format("phc-launch: error: pipe: {}\n", std::strerror(errno));
        return -1;
    }
    if (::pipe2(ep, O_CLOEXEC) != 0) {
        ::close(op[0]);
        ::close(op[1]);
        result.err = fmt::format("phc-launch: error: pipe: {}\n", std::strerror(errno));
        return -1;
    }
    out.reset(op[0]);
    err.reset(ep[0]);
    Fd ow(op[1]), ew(ep[1]);
    set_nonblocking(out.get());
    set_nonblocking(err.get());

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, ow.get(), 1);
    posix_spawn_file_actions_adddup2(&fa, ew.get(), 2);
    if (!job.cwd.empty()) posix_spawn_file_actions_addchdir_np(&fa, job.cwd.c_str());
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE})
        sigaddset(&defaults, s);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                        POSIX_SPAWN_SETSIGDEF);

    std::vector<std::string> envs = job_environment(job);
    std::vector<char*> argv, envp;
    for (const auto& a : job.argv)
        argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (auto& e : envs)
        envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_t pid = -1;
    int rc = job.argv.empty() ? EINVAL
                              : ::posix_spawnp(&pid, argv[0], &fa, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        result.state = JobResult::State::SpawnFailed;
        result.err = fmt::format("phc-launch: error: cannot run '{}': {}\n",
                                 job.argv.empty() ? "" : job.argv[0], std::strerror(rc));
        out.reset();
        err.reset();
        return -1;
    }
    return pid;
}

/// Reads what is available on `fd` into `sink`; closes `fd` at EOF or error.
void read_some(Fd& fd, std::string& sink) {
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
        while (true) {
            start_waiting_jobs();
            if (running_.empty()) break;
            wait_for_events();
            collect_finished();
            if (stopping_ && !killed_ && Clock::now() >= deadline_) kill_all(SIGKILL);
        }
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
        run.pid = spawn(jobs_[i], run.out, run.err, r);
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
        int timeout = -1;
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
                if (stopping_) ::kill(-r.pid, SIGKILL); // stragglers left in its group
                // Whatever it wrote is in the pipe by now; grandchildren that keep
                // the pipe open do not hold us up.
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

    /// A forwarded signal arrived: pass it to every running job's group.
    void interrupt(int sig) {
        if (report_.signal == 0) report_.signal = sig;
        if (!stopping_) {
            begin_stop(sig);
        } else {
            for (auto& r : running_)
                if (!r.reaped) ::kill(-r.pid, sig);
        }
    }

    /// Starts no more jobs; sends `sig` to running ones; arms the SIGKILL deadline.
    void begin_stop(int sig) {
        stopping_ = true;
        deadline_ = Clock::now() + std::chrono::milliseconds(opt_.grace_ms);
        for (auto& r : running_)
            if (!r.reaped) ::kill(-r.pid, sig);
    }

    /// Sends `sig` to every running job's process group (the grace period is over).
    void kill_all(int sig) {
        killed_ = true;
        for (auto& r : running_)
            if (!r.reaped) ::kill(-r.pid, sig);
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
