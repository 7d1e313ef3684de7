#include "gen/paths.h"

#include "util/file.h"

#include <filesystem>

namespace phc::gen {

std::string absolute_in(std::string_view base, std::string_view path) {
    std::filesystem::path p(util::join_path(std::string(base), std::string(path)));
    // An absolute file-system path (ninja canonicalises what gen writes when it loads it).
    std::string s = p.lexically_normal().string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

std::string spell_from(std::string_view dir, std::string_view path) {
    if (dir == "/") return path.size() > 1 ? std::string(path.substr(1)) : std::string(path);
    if (path.size() > dir.size() && path.substr(0, dir.size()) == dir && path[dir.size()] == '/')
        return std::string(path.substr(dir.size() + 1));
    return std::string(path);
}

std::string dir_of(std::string_view path) {
    auto slash = path.rfind('/');
    if (slash == std::string_view::npos) return ".";
    if (slash == 0) return "/";
    return std::string(path.substr(0, slash));
}

} // namespace phc::gen
