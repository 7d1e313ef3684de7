#include "regen/original.h"

#include "util/file.h"

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>

namespace phc::regen {

std::string original_path(const std::string& manifest) {
    return manifest + ".cmake";
}

bool is_rewritten(std::string_view text) {
    return text.starts_with(kMarker);
}

namespace {

/// The first `n` bytes of `path` (fewer when it is shorter).
Result<std::string> read_prefix(const std::string& path, size_t n) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return make_error(
            fmt::format("{}: error: cannot read file: {}", path, std::strerror(errno)));
    std::string out(n, '\0');
    in.read(out.data(), static_cast<std::streamsize>(n));
    out.resize(static_cast<size_t>(in.gcount()));
    return out;
}

} // namespace

Result<OriginalSource> locate_original(const std::string& manifest) {
    // A rewritten manifest is large and only its first line matters here.
    auto head = read_prefix(manifest, kMarker.size());
    if (!head) return head.error();
    OriginalSource src;
    if (!is_rewritten(*head)) {
        src.path = manifest;
        src.needs_save = true;
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
