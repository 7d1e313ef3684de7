// The command-line options regen and gen share (--device-jobs, --only,
// --skip, --explain, --overlap-host): one definition, one help text, parsed once.
#pragma once

#include "split/select.h"
#include "util/args.h"
#include "util/error.h"

#include <string>
#include <vector>

namespace phc::split {

/// What the shared options say.
struct SplitArgs {
    int device_jobs = 0; ///< >0: device compiles share a ninja pool of this depth
    std::string only;    ///< --only REGEX ("" = every object)
    std::string skip;    ///< --skip REGEX
    bool explain = false;
    bool overlap_host = false; ///< --overlap-host (PlanOptions::overlap_host)

    /// The objects to split; an Error naming the option when a pattern is bad.
    Result<Selection> selection() const { return Selection::make(only, skip); }
};

/// The shared options, storing into `into`.
std::vector<util::Option> split_options(SplitArgs& into);

} // namespace phc::split
