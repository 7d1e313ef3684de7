#include "regen/cmake.h"

#include "regen/original.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <algorithm>
#include <fmt/format.h>

namespace phc::regen {

std::string cache_value(std::string_view cache, std::string_view name) {
    for (size_t at = 0; at < cache.size();) {
        size_t nl = cache.find('\n', at);
        std::string_view line = cache.substr(at, nl == std::string_view::npos ? nl : nl - at);
        at = nl == std::string_view::npos ? cache.size() : nl + 1;
        if (!line.starts_with(name) || line.size() <= name.size() || line[name.size()] != ':')
            continue;
        size_t eq = line.find('=');
        if (eq != std::string_view::npos) return std::string(line.substr(eq + 1));
    }
    return {};
}

std::vector<std::string> multi_config_tops(const ninja::Manifest& m, const std::string& manifest) {
    std::vector<std::string> out;
    if (manifest.find('/') != std::string::npos) return out;
    auto cache = util::read_file("CMakeCache.txt");
    if (!cache || cache_value(*cache, "CMAKE_GENERATOR") != "Ninja Multi-Config") return out;
    for (size_t i = 0; i < m.edge_count(); ++i) {
        ninja::EdgeRef e = m.edge(i);
        if (!is_generator(e)) continue;
        auto outputs = e.outputs();
        if (std::find(outputs.begin(), outputs.end(), manifest) == outputs.end()) continue;
        for (std::string_view o : outputs) {
            bool top = o == "build.ninja" || (o.starts_with("build-") && o.ends_with(".ninja") &&
                                              o.find('/') == std::string_view::npos);
            if (top && o != manifest && util::file_exists(std::string(o)) &&
                std::find(out.begin(), out.end(), o) == out.end())
                out.emplace_back(o);
        }
    }
    return out;
}

Status check_generator(const std::string& manifest) {
    if (util::file_exists(manifest)) return Ok{};
    auto cache = util::read_file("CMakeCache.txt");
    if (!cache) return Ok{};
    const std::string generator = cache_value(*cache, "CMAKE_GENERATOR");
    if (generator.empty() || generator.find("Ninja") != std::string::npos) return Ok{};
    return error_at(
        manifest,
        fmt::format("not found: CMake configured this directory with the \"{}\" generator; "
                    "re-configure it with -G Ninja, or use phc-launch "
                    "(-DCMAKE_HIP_COMPILER_LAUNCHER=phc-launch) or phc-ninja gen "
                    "(-DCMAKE_EXPORT_COMPILE_COMMANDS=ON)",
                    generator));
}

std::string building_ninja() {
    std::string program;
    if (auto cache = util::read_file("CMakeCache.txt"))
        program = cache_value(*cache, "CMAKE_MAKE_PROGRAM");
    if (program.empty()) program = util::find_program("ninja");
    return program;
}

} // namespace phc::regen
