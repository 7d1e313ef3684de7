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
    std::vector<std::pair<int, std::string>> files;       ///< opened read-only as these descriptors
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
/// stdin from /dev/null; its output is captured.
///
/// The children stay in this process's process group (make's, or the one ninja
/// makes for the command), like the compiler the launcher stands in for: a
/// `kill -KILL -PGID` of that group (a CI cancel, `timeout -s KILL make`), which
/// the launcher cannot see, kills every process of every job with it, and the
/// terminal's ^C and ^Z reach them as they reach a plain compile. (Giving each
/// job a group of its own, as before, left drivers and cc1s running then;
/// PR_SET_PDEATHSIG would reach only each job's first process, not the cc1,
/// lld or, under hipcc, the clang it starts, and a clang driver that gets
/// SIGTERM leaves its cc1 running.)
///
/// To stop the jobs themselves, the launcher signals each process of them: the
/// descendants of this process still in its process group (from /proc; one that
/// left the group, a daemon, is not stopped). While run_jobs() runs, this process
/// is the subreaper of its descendants, so a job's child whose parent died is
/// re-parented here and still found. So: call it with no other children of this
/// process running in its process group.
///
/// At the first failure no more jobs start and the running ones are terminated
/// (SIGTERM). A SIGINT/SIGTERM/SIGHUP/SIGQUIT seen on `signals` is sent to every
/// process of the jobs; what has not died after the grace period gets SIGKILL,
/// and after a stop, what is left of the jobs once their first processes are
/// reaped gets SIGKILL too. Returns when no child is left; every token is back
/// by then.
RunReport run_jobs(const std::vector<Job>& jobs, Jobserver& js, SignalPipe& signals,
                   const RunOptions& options = {});

/// Milliseconds since the epoch.
int64_t wall_ms();

} // namespace phc::launch
