#include "ninja/version.h"

#include "util/subprocess.h"

#include <cstdio>

namespace phc::ninja {

std::pair<int, int> version_of(const std::string& program) {
    auto run = util::run_capture({program, "--version"});
    if (!run || run->exit_code != 0) return {0, 0};
    int major = 0, minor = 0;
    if (std::sscanf(run->out.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
    return {major, minor};
}

} // namespace phc::ninja
