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

bool is_rewritten(std::string_view head) {
    for (size_t at = 0; at < head.size();) {
        size_t nl = head.find('\n', at);
        std::string_view line = head.substr(at, nl == std::string_view::npos ? nl : nl - at);
        if (line.starts_with(kMarker) || line == kGeneratedLine ||
            line == "  description = HIP bundle $PHC_OBJECT" ||
            line == "  description = HIP host $PHC_OBJECT")
            return true;
        if (line.starts_with("rule ") && line.substr(5) == kRetryRule) return true;
        if (nl == std::string_view::npos) break;
        at = nl + 1;
    }
    return false;
}

bool carries_hook(std::string_view command) {
    // Today's hook names the marker (it checks the manifests CMake wrote for it);
    // an older one ended in "phc-ninja regen -C DIR ... --quiet".
    if (command.find(kMarker) != std::string_view::npos) return true;
    size_t regen = command.rfind(" regen -C ");
    return regen != std::string_view::npos && command.ends_with(" --quiet") &&
           command.rfind("&&", regen) != std::string_view::npos;
}

namespace {

/// The first `n` bytes of `path` (fewer when it is shorter).
Result<std::string> read_prefix(const std::string& path, size_t n) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return error_at(path, fmt::format("cannot read file: {}", std::strerror(errno)));
    std::string out(n, '\0');
    in.read(out.data(), static_cast<std::streamsize>(n));
    out.resize(static_cast<size_t>(in.gcount()));
    return out;
}

/// True when a generator edge of `m` already runs regen (carries_hook()).
bool hooked(const ninja::Manifest& m) {
    for (size_t i = 0; i < m.edge_count(); ++i) {
        ninja::EdgeRef e = m.edge(i);
        if (!is_generator(e)) continue;
        if (auto cmd = e.evaluate("command"); cmd && carries_hook(*cmd)) return true;
    }
    return false;
}

} // namespace

Result<OriginalSource> locate_original(const std::string& manifest) {
    // A rewritten manifest is large; what regen adds is all at its start.
    auto head = read_prefix(manifest, kRewrittenScan);
    if (!head) return head.error();
    OriginalSource src;
    if (!is_rewritten(*head)) {
        src.path = manifest;
        src.needs_save = true;
        return src;
    }
    src.path = original_path(manifest);
    if (!util::file_exists(src.path))
        return error_at(manifest, fmt::format("rewritten by phc-ninja, but its original {} is "
                                              "missing; re-run cmake",
                                              src.path));
    return src;
}

std::string marker_text(const std::string& original) {
    return fmt::format("{}multi-arch HIP compiles of {} split per architecture.\n{}\n\n", kMarker,
                       original, kGeneratedLine);
}

bool is_generator(const ninja::EdgeRef& e) {
    auto g = e.evaluate("generator");
    return g && !g->empty();
}

Status load_original(const std::string& manifest, LoadedOriginal& into) {
    into.manifest = manifest;
    auto src = locate_original(manifest);
    if (!src) return src.error();
    auto loaded = ninja::load_manifest(src->path);
    if (!loaded) return loaded.error();
    if (src->needs_save && hooked(*loaded)) {
        src->path = original_path(manifest);
        src->needs_save = false;
        if (!util::file_exists(src->path))
            return error_at(manifest,
                            fmt::format("rewritten by phc-ninja (its generator edge runs "
                                        "phc-ninja regen), but its original {} is missing; "
                                        "re-run cmake",
                                        src->path));
        loaded = ninja::load_manifest(src->path);
        if (!loaded) return loaded.error();
    }
    into.src = std::move(*src);
    into.m = std::move(*loaded);
    // CMake's bytes, to keep as the original: the loaded text before any edit.
    into.original = into.m.pieces(0);
    return Ok{};
}

} // namespace phc::regen
