#pragma once
// What regen keeps and reads beside the manifest: the build directory's
// private folder (.phc-ninja: the probe cache, the step records' seed), the
// durations of the last build (.ninja_log) and the project's step history
// (PHC_HISTORY), which order a fresh build directory.

#include "ninja/manifest.h"
#include "regen/regen.h"
#include "split/graph.h"

#include <string>
#include <string_view>

namespace phc::regen {

/// The build directory's private folder, and the probe cache in it.
inline constexpr const char* kProbeDir = ".phc-ninja";
inline constexpr const char* kProbeCache = ".phc-ninja/probes.json";

/// The probe cache file, or "" (memory only) when its folder cannot be made
/// or written: the cache must never stop a run (a read-only build directory
/// with -o elsewhere). Says so once in `sum`.
std::string probe_cache_path(const Options& opts, Summary& sum);

/// Where ninja keeps `name` (.ninja_log, .ninja_deps) for manifest `m`: in
/// its `builddir` when the manifest sets one, else in the directory ninja runs
/// in, the build directory (regen's current directory).
std::string ninja_log_path(const ninja::Manifest& m, std::string_view name);

/// The project's key in the step history: CMake's project name and build
/// type, the same in every build directory and checkout of the project; ""
/// without a CMakeCache.txt.
std::string project_key();

/// What each edge took last time, so that the longest architectures start
/// first: from `m`'s .ninja_log, else (a fresh build directory) from the
/// project's history (then named in `sum.history`). With `steps` (the edges
/// run under `phc-ninja step`), the history's path is kept for the steps and
/// its records seed their estimates. Problems are warnings in `sum`.
split::Durations past_durations(const ninja::Manifest& m, bool steps, Summary& sum);

} // namespace phc::regen
