// Running one split compile: the device compiles in parallel, then the bundler,
// then the host compile that writes the real object.
#pragma once

#include "launch/jobserver.h"
#include "launch/signals.h"
#include "launch/supervisor.h"
#include "util/file.h"

#include <string>
#include <vector>

namespace phc::launch {

/// A planned split, as jobs the supervisor can run.
struct SplitJobs {
    std::vector<Job> device;          ///< one per architecture; label = the architecture
    Job bundle;                       ///< clang-offload-bundler
    Job host;                         ///< the host compile, writing the real output
    std::vector<std::string> outputs; ///< files the host step writes (object, depfile)
    std::string name;                 ///< the object's path, for the trace log
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

/// Runs `jobs` under `js`. Device outputs are merged (merge_outputs) and printed
/// once all device compiles are done; the bundle's and host's as they finish.
/// On failure or interruption the host step's outputs are removed. The caller
/// owns (and removes) the private directory the plan's temporary files live in.
Outcome run_split(const SplitJobs& jobs, Jobserver& js, SignalPipe& signals,
                  const LaunchOptions& options);

/// Writes all of `data` to `fd` (retrying short writes and EINTR); output the
/// launcher cannot write is dropped, as a compiler's would be.
inline void write_all(int fd, std::string_view data) {
    (void)util::write_all(fd, data);
}

} // namespace phc::launch
