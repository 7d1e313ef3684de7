#include "gen/depfile.h"

#include "compile/shell.h"
#include "ninja/paths.h"

#include <algorithm>
#include <string_view>

namespace phc::gen {

namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
    return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

} // namespace

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
    // ninja compares the depfile's target as its own node path, so ninja's canonical form.
    return ninja::canonicalize_path(target) == spelling;
}

bool is_compile(const std::vector<std::string>& argv) {
    return std::find(argv.begin() + (argv.empty() ? 0 : 1), argv.end(), "-c") != argv.end();
}

std::string ninja_copy(const std::string& depfile) {
    return depfile + ".ninja";
}

std::string copy_for_ninja(const std::string& depfile) {
    return " && cp " + compile::quote_word(depfile) + " " +
           compile::quote_word(ninja_copy(depfile));
}

std::vector<std::string> with_depfile(std::vector<std::string> argv, const std::string& depfile) {
    argv.push_back("-MD");
    argv.push_back("-MF");
    argv.push_back(depfile);
    return argv;
}

} // namespace phc::gen
