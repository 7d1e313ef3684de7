// Keeping CMake's original build.ninja next to the rewritten one. regen always
// works from the original, so running it again gives the same bytes, and a
// build.ninja that CMake wrote anew (it has no marker) becomes the new original.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::regen {

/// The first bytes of every manifest regen writes.
inline constexpr std::string_view kMarker = "# phc-ninja regen: ";

/// The file regen keeps CMake's original in: "<manifest>.cmake".
std::string original_path(const std::string& manifest);

/// Where the original manifest to work from is.
struct OriginalSource {
    std::string path;        ///< the file to load (manifest or its saved original)
    bool needs_save = false; ///< manifest is a fresh original: save it before replacing
};

/// Decides which file holds the original: `manifest` itself when it does not
/// start with kMarker, else original_path(manifest), which must then exist.
Result<OriginalSource> locate_original(const std::string& manifest);

/// True when `text` was written by regen.
bool is_rewritten(std::string_view text);

} // namespace phc::regen
