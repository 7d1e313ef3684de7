// The command-line options regen and gen share (--device-jobs, --only,
// --skip, --explain, --overlap-host, --distribute, --remote-jobs, --memory): one
// definition, one help text, parsed once.
#pragma once

#include "split/distribute.h"
#include "split/select.h"
#include "util/args.h"
#include "util/error.h"

#include <optional>
#include <string>
#include <vector>

namespace phc::split {

/// Four times this machine's cores: a farm of a few machines like it. The
/// depth of the remote pool is what the farm runs at once; ninja's -j must be
/// at least as high for the pool to fill.
int remote_jobs_default();

/// What the shared options say.
struct SplitArgs {
    int device_jobs = 0; ///< >0: device compiles share a ninja pool of this depth
    std::string only;    ///< --only REGEX ("" = every object)
    std::string skip;    ///< --skip REGEX
    bool explain = false;
    bool overlap_host = false; ///< --overlap-host (PlanOptions::overlap_host)
    std::string distribute;    ///< --distribute ENGINE; "" = the launcher's engine, if any
    int remote_jobs = 0;       ///< --remote-jobs N; 0 = remote_jobs_default()
    /// --memory SIZE|PERCENT: the steps' memory budget (sched/memory.h), as given.
    std::optional<std::string> memory;

    /// The engine --distribute names (nullopt: none given, the launcher's
    /// engine); an Error naming the option for an unknown one.
    Result<std::optional<Engine>> engine() const;
    /// The depth of the distributed compiles' pool: --remote-jobs, else
    /// remote_jobs_default().
    int remote_depth() const { return remote_jobs > 0 ? remote_jobs : remote_jobs_default(); }

    /// The objects to split; an Error naming the option when a pattern is bad.
    Result<Selection> selection() const { return Selection::make(only, skip); }
};

/// The shared options, storing into `into`.
std::vector<util::Option> split_options(SplitArgs& into);

} // namespace phc::split
