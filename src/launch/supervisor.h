// Running a set of jobs in parallel under a jobserver: one poll() loop watches the
// jobserver, the signal pipe and every child's stdout/stderr.
#pragma once

#include "launch/jobserver.h"
#include "launch/signals.h"

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace phc::launch {

/// One command to run.
struct Job {
    std::string label;             ///< names it in messages ("gfx90a", "bundle", "host")
    std::vector<std::string> argv; ///< argv[0] is looked up in PATH
    std::string cwd;               ///< empty: ours
    std::vector<std::pair<std::string, std::string>> env; ///< set on top of ours
};

/// What became of one job.
struct JobResult {
    enum class State {
        NotRun,      ///< never started (an earlier failure or a signal stopped us)
        Exited,      ///< exited by itself; `code` is its status
        Signaled,    ///< died of signal `code` that we did not send
        Stopped,     ///< we terminated it (another job failed, or we were interrupted)
        SpawnFailed, ///< could not be started; `err` says why
    };
    State state = State::NotRun;
    int code = 0;
    std::string out;      ///< everything it wrote to stdout
    std::string err;      ///< everything it wrote to stderr
    int64_t start_ms = 0; ///< wall clock (ms since the epoch) when started
    int64_t end_ms = 0;   ///< and when it finished

    /// True when it ran and exited 0.
    bool ok() const { return state == State::Exited && code == 0; }
    /// The exit status a shell would report (128+signal for a signal death).
    int exit_status() const;
};

/// How run_jobs() went.
struct RunReport {
    std::vector<JobResult> jobs; ///< one per job, same order
    int first_failure = -1;      ///< index of the first job that failed, or -1
    int signal = 0;              ///< the forwarded signal that interrupted us, or 0
};

/// Knobs for run_jobs().
struct RunOptions {
    int grace_ms = 2000; ///< after SIGTERM/SIGINT, wait this long before SIGKILL
    /// Called as each job finishes (for the trace log).
    std::function<void(size_t index, const JobResult&)> on_done;
};

/// Runs `jobs`, the first in this process's implicit slot and each further one
/// with a token from `js`, taken only while jobs are still waiting. Each child gets
/// its own process group and stdin from /dev/null; its output is captured.
/// At the first failure no more jobs start and the running ones are terminated.
/// A SIGINT/SIGTERM/SIGHUP/SIGQUIT seen on `signals` is sent to every running
/// child's process group; what has not died after the grace period gets SIGKILL.
/// Returns when no child is left; every token is back by then.
RunReport run_jobs(const std::vector<Job>& jobs, Jobserver& js, SignalPipe& signals,
                   const RunOptions& options = {});

/// Milliseconds since the epoch.
int64_t wall_ms();

} // namespace phc::launch
