// gen's front end to the edge policy (edges/policy.h): a database entry's
// split plan, spelled for a ninja file that may lie in another directory.
#pragma once

#include "edges/policy.h"
#include "split/plan.h"

#include <string>

namespace phc::gen {

/// The edges for `plan`, a split database entry whose object is `object` (as
/// the ninja file spells it). Paths are resolved against the compile's
/// directory and spelled from `ninja_dir`; steps run in the compile's
/// directory (`cd DIR &&` when it is not `ninja_dir`). The host step writes a
/// depfile ("<host output>.d" when the command writes none); one that the
/// original build wrote (for make) stays on disk: ninja reads it in place when
/// it names ninja's spelling of the output, else a copy. `policy.spell` is set here.
Result<edges::Edges> split_edges(split::Plan plan, const std::string& object,
                                 const std::string& ninja_dir, edges::Policy policy);

/// The per-object private folder under `private_root` for absolute `object`.
std::string object_private_dir(const std::string& private_root, const std::string& ninja_dir,
                               const std::string& object);

} // namespace phc::gen
