#include "regen/original.h"

#include "util/file.h"

#include <fmt/format.h>

namespace phc::regen {

std::string original_path(const std::string& manifest) {
    return manifest + ".cmake";
}

bool is_rewritten(std::string_view text) {
    return text.starts_with(kMarker);
}

Result<OriginalSource> locate_original(const std::string& manifest) {
    auto text = util::read_file(manifest);
    if (!text) return text.error();
    OriginalSource src;
    if (!is_rewritten(*text)) {
        src.path = manifest;
        src.needs_save = true;
        src.text = std::move(*text);
        return src;
    }
    src.path = original_path(manifest);
    if (!util::file_exists(src.path))
        return make_error(fmt::format(
            "{}: error: rewritten by phc-ninja, but its original {} is missing; re-run cmake",
            manifest, src.path));
    return src;
}

} // namespace phc::regen
