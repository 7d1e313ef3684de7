#include "regen/output.h"

#include "regen/original.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>

namespace phc::regen {

std::set<uint32_t> files_to_write(const ninja::Manifest& m) {
    std::set<uint32_t> out{0};
    for (uint32_t f = 1; f < m.files().size(); ++f) {
        if (!m.edited(f)) continue;
        for (int32_t g = static_cast<int32_t>(f); g > 0; g = m.files()[g].parent)
            out.insert(static_cast<uint32_t>(g));
    }
    return out;
}

Status redirect_includes(ninja::Manifest& m, const std::set<uint32_t>& rewrite) {
    for (uint32_t f : rewrite) {
        const auto& stmts = m.files()[f].statements;
        for (uint32_t i = 0; i < stmts.size(); ++i) {
            const auto& s = stmts[i];
            bool inc = s.kind == ninja::StatementKind::Include;
            if ((!inc && s.kind != ninja::StatementKind::Subninja) || s.target <= 0) continue;
            if (!rewrite.count(static_cast<uint32_t>(s.target))) continue;
            std::string path = m.files()[s.target].path + ".phc";
            if (auto st = m.replace({f, i}, {ninja::IncludeStatement{path, !inc}}); !st) return st;
        }
    }
    return Ok{};
}

Status write_if_changed(const std::string& path, std::span<const std::string_view> pieces,
                        Summary& sum, bool dry, util::Sync sync) {
    if (util::file_holds(path, pieces)) return Ok{};
    sum.written.push_back(path);
    if (dry) return Ok{};
    return util::write_file_atomic(path, pieces, sync);
}

Status check_output(const ninja::Manifest& m, const Options& opts) {
    if (auto mode = util::write_mode(opts.output); !mode) return mode.error();
    const util::FileId out = util::file_id(opts.output);
    auto refuse = [&](const std::string& path, std::string_view what) {
        return error_at(opts.output,
                        fmt::format("refusing to write the output over {}: {}", path, what));
    };
    const std::string original = original_path(opts.manifest);
    if (out == util::file_id(original))
        return refuse(original, "regen keeps CMake's original manifest there");
    if (out == util::file_id(opts.manifest))
        return refuse(opts.manifest, "it is the manifest (rewrite it in place: no -o)");
    for (size_t f = 0; f < m.files().size(); ++f) {
        const std::string& path = m.files()[f].path;
        if (out == util::file_id(path)) return refuse(path, "regen reads it");
        if (f > 0 && out == util::file_id(path + ".phc"))
            return refuse(path + ".phc", "regen writes the rewritten included file there");
    }
    return Ok{};
}

Status write_stdout(std::span<const std::string_view> pieces, Summary& sum, bool dry) {
    sum.written.push_back("-");
    if (dry || util::write_all(1, pieces)) return Ok{};
    return error_at("-", fmt::format("cannot write to stdout: {}", std::strerror(errno)));
}

bool same_text(std::span<const std::string_view> a, std::span<const std::string_view> b) {
    size_t i = 0, j = 0, x = 0, y = 0;
    while (true) {
        while (i < a.size() && x == a[i].size())
            ++i, x = 0;
        while (j < b.size() && y == b[j].size())
            ++j, y = 0;
        if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
        size_t n = std::min(a[i].size() - x, b[j].size() - y);
        if (a[i].substr(x, n) != b[j].substr(y, n)) return false;
        x += n;
        y += n;
    }
}

} // namespace phc::regen
