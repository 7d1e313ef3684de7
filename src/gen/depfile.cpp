#include "gen/depfile.h"

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace phc::gen {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

/// "obj/x.o" -> "obj/x.d"; a name without an extension gets ".d" added.
std::string replace_extension(const std::string& path) {
    auto slash = path.rfind('/');
    auto dot = path.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
        dot == (slash == std::string::npos ? 0 : slash + 1))
        return path + ".d";
    return path.substr(0, dot) + ".d";
}

} // namespace

std::string find_depfile(const std::vector<std::string>& argv, const std::string& output_arg) {
    std::string mf;
    bool md = false;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        std::string_view a = argv[i];
        if (a == "-MD" || a == "-MMD") {
            md = true;
        } else if (a == "-MF" && i + 1 < argv.size()) {
            mf = argv[++i];
        } else if (starts_with(a, "-MF")) {
            mf = a.substr(3);
        } else if (starts_with(a, "-Wp,-MD,") || starts_with(a, "-Wp,-MMD,")) {
            md = true;
            mf = a.substr(a.find(',', 4) + 1);
        }
    }
    if (!md) return {};
    if (!mf.empty()) return mf;
    return output_arg.empty() ? std::string() : replace_extension(output_arg);
}

std::string depfile_target(const std::vector<std::string>& argv, const std::string& output_arg) {
    for (std::size_t i = 1; i < argv.size(); ++i) {
        std::string_view a = argv[i];
        if ((a == "-MT" || a == "-MQ") && i + 1 < argv.size()) return argv[i + 1];
        if (starts_with(a, "-MT") || starts_with(a, "-MQ")) return std::string(a.substr(3));
    }
    return output_arg;
}

bool depfile_names(const std::vector<std::string>& argv, const std::string& output_arg,
                   const std::string& spelling) {
    std::string target = depfile_target(argv, output_arg);
    if (target.empty()) return false;
    return std::filesystem::path(target).lexically_normal().string() == spelling;
}

bool is_compile(const std::vector<std::string>& argv) {
    return std::find(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), "-c") != argv.end();
}

std::vector<std::string> with_depfile(std::vector<std::string> argv, const std::string& depfile) {
    argv.push_back("-MD");
    argv.push_back("-MF");
    argv.push_back(depfile);
    return argv;
}

} // namespace phc::gen
