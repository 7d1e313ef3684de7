#include "probe/objcopy.h"

#include "util/subprocess.h"

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string_view>
#include <unistd.h>

namespace phc::probe {

int llvm_major_version(const std::string& text) {
    const std::string_view key = "LLVM version ";
    size_t at = text.find(key);
    return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + key.size());
}

namespace {

bool is_objcopy_name(std::string_view name) {
    if (name == "llvm-objcopy") return true;
    if (!name.starts_with("llvm-objcopy-") || name.size() == 13) return false;
    return name.substr(13).find_first_not_of("0123456789") == std::string_view::npos;
}

std::string find_objcopy() {
    std::set<std::string> candidates;
    std::error_code ec;
    auto add_dir = [&](const std::filesystem::path& dir) {
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (is_objcopy_name(e.path().filename().string())) candidates.insert(e.path().string());
    };
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest = path;
        while (!rest.empty()) {
            size_t colon = rest.find(':');
            std::string dir(rest.substr(0, colon));
            if (!dir.empty()) add_dir(dir);
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib", ec))
        if (e.path().filename().string().starts_with("llvm-")) add_dir(e.path() / "bin");
    std::string best;
    int best_version = 0;
    for (const std::string& c : candidates) {
        if (::access(c.c_str(), X_OK) != 0) continue;
        auto ran = util::run_capture({c, "--version"});
        if (!ran || ran->exit_code != 0) continue;
        int v = llvm_major_version(ran->out + ran->err);
        if (v > best_version) {
            best_version = v;
            best = c;
        }
    }
    if (best.empty()) best = util::find_program("objcopy");
    return best;
}

} // namespace

const std::string& objcopy() {
    static const std::string found = find_objcopy();
    return found;
}

} // namespace phc::probe
