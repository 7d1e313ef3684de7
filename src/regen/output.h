// Writing what regen made, and only that: which files of a manifest must be
// written (the edited ones and the files including them), the include
// statements pointed at rewritten copies (`<file>.phc`), files written only
// when their bytes change, and an -o that would overwrite a file regen reads
// or keeps refused.
#pragma once

#include "ninja/manifest.h"
#include "regen/regen.h"
#include "util/error.h"
#include "util/file.h"

#include <cstdint>
#include <set>
#include <span>
#include <string>
#include <string_view>

namespace phc::regen {

/// Files that must be rewritten: the edited ones and every file including them.
std::set<uint32_t> files_to_write(const ninja::Manifest& m);

/// Points include/subninja statements at the rewritten copies of included files.
Status redirect_includes(ninja::Manifest& m, const std::set<uint32_t>& rewrite);

/// Writes the concatenation of `pieces` to `path` unless it already holds exactly that.
/// Rewritten manifests go without fsync, as CMake writes build.ninja: the rename
/// keeps readers and an interrupted regen safe, and a manifest lost to a power
/// cut is made again by cmake. CMake's saved original is synced (`sync`): it is
/// written once per CMake run and nothing could make it again.
Status write_if_changed(const std::string& path, std::span<const std::string_view> pieces,
                        Summary& sum, bool dry, util::Sync sync = util::Sync::None);

/// Refuses an -o (not in place, not stdout) that regen cannot write, or that is a
/// file it reads or writes besides it: CMake's original (saved or to be saved),
/// any loaded manifest file, the rewritten copy of an included one. Files are
/// compared by identity where they exist, by normalised absolute path otherwise.
Status check_output(const ninja::Manifest& m, const Options& opts);

/// Writes the top manifest to standard output (-o -).
Status write_stdout(std::span<const std::string_view> pieces, Summary& sum, bool dry);

/// True when two lists of pieces spell the same bytes.
bool same_text(std::span<const std::string_view> a, std::span<const std::string_view> b);

} // namespace phc::regen
