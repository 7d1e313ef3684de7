// The re-run hook. CMake's generator edge re-runs cmake when a CMakeLists.txt
// changes, and cmake writes its unsplit manifest again; regen makes that edge
// run regen after cmake. Before regen runs, the hook puts a stand-in in place
// of each top manifest CMake wrote (CMake's goes to FILE.cmake, as
// original.h expects), so that while regen fails (phc-ninja moved, an error,
// an interrupt) ninja never builds unsplit: the stand-in's one edge retries
// regen on every run.
#pragma once

#include "ninja/manifest.h"
#include "regen/regen.h"
#include "util/error.h"

#include <string>
#include <vector>

namespace phc::regen {

/// Replaces the generator edge `edge` of `m` by the same edge whose command,
/// after CMake's, puts a stand-in in place of each of the top manifests
/// `tops` (relative to Options::build_dir) that CMake wrote anew, then runs
/// regen again with the options `o`.
Status hook_generator(ninja::Manifest& m, size_t edge, const Options& o,
                      const std::vector<std::string>& tops);

} // namespace phc::regen
