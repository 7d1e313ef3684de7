// Keeping CMake's original build.ninja next to the rewritten one. regen always
// works from the original, so running it again gives the same bytes, and a
// build.ninja that CMake wrote anew (none of regen's traces) becomes the new original.
#pragma once

#include "ninja/manifest.h"
#include "util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::regen {

/// The first bytes of every manifest regen writes (and of the stand-in the
/// re-run hook writes while regen has not succeeded after CMake).
inline constexpr std::string_view kMarker = "# phc-ninja regen: ";

/// The comment line that follows the marker line in every rewritten manifest.
inline constexpr std::string_view kGeneratedLine =
    "# Generated; edit the original or re-run cmake, not this file.";

/// The rule of the stand-in manifest the re-run hook writes (hook.h).
inline constexpr std::string_view kRetryRule = "phc_regen_retry";

/// The file regen keeps CMake's original in: "<manifest>.cmake".
std::string original_path(const std::string& manifest);

/// Where the original manifest to work from is.
struct OriginalSource {
    std::string path;        ///< the file to load (manifest or its saved original)
    bool needs_save = false; ///< manifest is a fresh original: save it before replacing
};

/// Decides which file holds the original: `manifest` itself when its first
/// bytes show nothing of regen (is_rewritten()), else original_path(manifest),
/// which must then exist.
Result<OriginalSource> locate_original(const std::string& manifest);

/// How many bytes of a manifest is_rewritten() looks at.
inline constexpr size_t kRewrittenScan = 64 * 1024;

/// True when `head`, the first bytes of a manifest, was written by regen: a line
/// starting with kMarker (normally the first), or, when that line was deleted,
/// what regen writes right after it: kGeneratedLine, the description of its
/// bundle and host rules (whatever their names: unique_names() may rename them),
/// the stand-in's kRetryRule.
bool is_rewritten(std::string_view head);

/// True when a generator edge's `command` already runs regen after CMake (the
/// hook regen adds): a manifest holding it was written by regen, even with
/// its first lines gone.
bool carries_hook(std::string_view command);

/// The statements that go first in the rewritten top file.
std::string marker_text(const std::string& original);

/// True for a generator edge (`generator` set: CMake's re-run of cmake).
bool is_generator(const ninja::EdgeRef& e);

/// A top manifest's original, loaded.
struct LoadedOriginal {
    std::string manifest; ///< relative to the build directory
    OriginalSource src;
    ninja::Manifest m;
    std::vector<std::string_view> original; ///< CMake's bytes (views into `m`)
};

/// Loads the original of `manifest`. A manifest that looks fresh by its first
/// bytes but whose generator edge already runs regen is regen's output with its
/// first lines removed: its original is FILE.cmake too.
Status load_original(const std::string& manifest, LoadedOriginal& into);

} // namespace phc::regen
