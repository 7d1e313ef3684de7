// A split plan as ninja build statements: one per device step, the bundle
// step and the host step, each run in the compile's directory.
#pragma once

#include "ninja/statements.h"
#include "split/graph.h"
#include "split/plan.h"

#include <string>
#include <vector>

namespace phc::gen {

/// Rule names the statements use (declared in the file's preamble).
struct SplitRules {
    std::string device; ///< deps = gcc, in the device pool when there is one
    std::string bundle; ///< no header deps
    std::string host;   ///< deps = gcc
    std::string keep;   ///< depfile read in place (host steps whose depfile make also reads)
};

/// The statements for a plan whose decision is Split. Paths are resolved
/// against the compile's directory and spelled from `ninja_dir`. A host step
/// without a depfile is made to write "<object>.d"; one whose depfile the
/// original build wrote keeps it on disk when ninja can read it in place.
/// With `last`, the edges come critical path first and the longest chain of
/// them is stored in `chain_ms` (split::step_edges).
std::vector<ninja::BuildStatement>
split_edges(const split::Plan& plan, const std::string& ninja_dir, const SplitRules& rules,
            const split::Durations* last = nullptr, int64_t* chain_ms = nullptr);

/// The per-object private folder under `private_root` for absolute `object`.
std::string object_private_dir(const std::string& private_root, const std::string& ninja_dir,
                               const std::string& object);

} // namespace phc::gen
