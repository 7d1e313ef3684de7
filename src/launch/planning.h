// The bridge to the split planner (src/compile + src/split): turns one argv into
// SplitJobs, or says why the command is left alone. No split logic lives here.
#pragma once

#include "launch/launcher.h"
#include "util/error.h"

#include <optional>
#include <string>
#include <vector>

namespace phc::launch {

/// A planned split, or the planner's reason for leaving the command alone.
struct Planned {
    std::optional<SplitJobs> jobs; ///< empty: run the command unchanged
    std::string reason;            ///< why it is left alone
};

/// Plans `argv` (run in the current directory) with its device objects and bundle
/// in `private_dir` (which exists). Driver probes are cached in `probe_cache`
/// ("" = in memory only). An Error when the compiler cannot be probed.
Result<Planned> plan_command(const std::vector<std::string>& argv, const std::string& private_dir,
                             const std::string& probe_cache);

/// Plans an RDC link `argv` (run in the current directory) with its
/// intermediate files in `private_dir` (which exists): the driver's own jobs,
/// one device link per architecture. An Error when the driver cannot be run.
Result<Planned> plan_link_command(const std::vector<std::string>& argv,
                                  const std::string& private_dir);

/// Under ccache (a job with CCACHE_EXTRAFILES naming `bundle` in its argv: the
/// host step) the job names its bundle "/dev/fd/19", a descriptor the
/// supervisor opens on it (Job::files): the bundle lives in the launcher's
/// private folder, whose name changes from run to run, and ccache hashes the
/// command's words, so the path would make every host compile a miss. ccache
/// still hashes the bundle's bytes: CCACHE_EXTRAFILES names the descriptor,
/// after the files `env_extrafiles` (the environment's CCACHE_EXTRAFILES) names.
void bundle_by_descriptor(SplitJobs& jobs, const std::string& bundle, const char* env_extrafiles);

/// Where probes are cached: PHC_PROBE_CACHE, else $XDG_CACHE_HOME or ~/.cache +
/// "/phc-ninja/probes.json" (its folder is created), else "" (memory only).
std::string probe_cache_path();

/// With PHC_MEMORY set, the folder of the step records and the memory budget
/// every step of the launcher shares (PHC_RECORDS, else
/// $XDG_CACHE_HOME/phc-ninja/steps): each step then runs under `phc-ninja
/// step` (sched/budget.h). "" without PHC_MEMORY: steps run as they are.
std::string step_records_dir();

} // namespace phc::launch
