// Running one split compile or RDC link: its steps in waves, each wave's jobs in
// parallel (the device compiles; or, with -fgpu-rdc, the device compiles and the
// host compile; or a link's device links), a wave only after the one before.
#pragma once

#include "launch/jobserver.h"
#include "launch/signals.h"
#include "launch/supervisor.h"
#include "split/plan.h"
#include "util/file.h"

#include <string>
#include <vector>

namespace phc::launch {

/// A planned split, as jobs the supervisor can run.
struct SplitJobs {
    /// The jobs in waves: a job reads only what earlier waves wrote, so the jobs
    /// of one wave run at once. Labels name the job (the architecture, "bundle").
    std::vector<std::vector<Job>> waves;
    std::vector<std::string> outputs; ///< the command's own outputs (object or link, depfile)
    std::string name;                 ///< the object's path, for the trace log
    /// PHC_CHECK=1: the object, and the driver's own compile of it (writing
    /// `reference` in `private_dir`) to compare it with once every job
    /// succeeded; no argv for none.
    std::string object, reference, private_dir;
    split::Step check;
};

/// Settings from the environment.
struct LaunchOptions {
    std::string trace_path; ///< PHC_NINJA_TRACE, empty for none
    int grace_ms = 2000;    ///< time between SIGTERM/SIGINT and SIGKILL for children
};

/// How it ended.
struct Outcome {
    int exit_code = 0; ///< the failing compile's status, or 0
    int signal = 0;    ///< when interrupted: re-raise this after cleaning up
};

/// Runs `jobs` under `js`. The output of a wave of several jobs is merged
/// (merge_outputs) and printed once the wave is done; a single job's as it
/// finishes. On failure or interruption the outputs that are regular files are
/// removed (never a device node such as /dev/null). The caller
/// owns (and removes) the private directory the plan's temporary files live in.
Outcome run_split(const SplitJobs& jobs, Jobserver& js, SignalPipe& signals,
                  const LaunchOptions& options);

/// Writes all of `data` to `fd` (retrying short writes and EINTR); output the
/// launcher cannot write is dropped, as a compiler's would be.
inline void write_all(int fd, std::string_view data) {
    (void)util::write_all(fd, data);
}

} // namespace phc::launch
