// Comparing a split object or link with the driver's own (phc-ninja check,
// PHC_CHECK=1 of the launcher): the original command, run with the split's
// CUID into another file, must write the same bytes.
#pragma once

#include "split/plan.h"
#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::split {

/// What comparing one output with the driver's own found.
struct Verdict {
    enum class Kind {
        Identical, ///< the driver wrote the same bytes
        Differs,   ///< it wrote other bytes, twice the same
        Unstable,  ///< two runs of the driver itself wrote different bytes: nothing to compare
        Failed,    ///< the driver's own command failed
    };
    Kind kind = Kind::Identical;
    std::string text; ///< where it differs, or why it could not be compared
};

/// Runs `reference` (the driver's own command, writing `ref`; reference_step
/// for a compile) in `base_dir` ("" = here) with TMPDIR=`tmpdir`, and
/// compares what it wrote with `mine`; when they differ, runs it again, up to
/// six times in all: once the driver writes the split's bytes they are
/// Identical; once it writes other bytes than the first time the output is
/// Unstable (clang 15 and 19 order a list in -fgpu-rdc device code, the
/// templates only host code instantiates, by memory addresses); it Differs
/// when every run wrote the same other bytes.
Result<Verdict> compare_with_driver(std::string_view mine, const Step& reference,
                                    const std::string& base_dir, const std::string& ref,
                                    const std::string& tmpdir);

} // namespace phc::split
