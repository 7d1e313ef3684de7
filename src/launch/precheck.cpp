#include "launch/precheck.h"

#include <algorithm>
#include <string_view>

namespace phc::launch {

namespace {

/// Adds each comma-separated architecture of `list` to `archs` once.
void add_archs(std::string_view list, std::vector<std::string_view>& archs) {
    while (!list.empty()) {
        size_t comma = list.find(',');
        std::string_view a = list.substr(0, comma);
        if (!a.empty() && std::find(archs.begin(), archs.end(), a) == archs.end())
            archs.push_back(a);
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
}

/// True when the command is about HIP or offloading at all (for the -E fix-ups).
bool mentions_offload(const std::vector<std::string>& argv) {
    for (size_t i = 0; i < argv.size(); ++i) {
        std::string_view a = argv[i];
        if (a.starts_with("--offload") || a.starts_with("--cuda-gpu-arch") || a == "-xhip" ||
            a.ends_with(".hip") || (a == "-x" && i + 1 < argv.size() && argv[i + 1] == "hip"))
            return true;
    }
    return false;
}

} // namespace

Route route(const std::vector<std::string>& argv) {
    bool compile = false, preprocess = false, response_file = false, rdc_link = false;
    std::vector<std::string_view> archs;
    for (size_t i = 1; i < argv.size(); ++i) {
        std::string_view a = argv[i];
        if (a.size() < 2 || a[0] != '-') {
            response_file |= a.starts_with("@");
            continue;
        }
        if (a == "-c")
            compile = true;
        else if (a == "-fgpu-rdc" || a == "--hip-link")
            rdc_link = true; // with no -c: a link the driver generates device code in
        else if (a == "-E")
            preprocess = true;
        else if (a.starts_with("--offload-arch="))
            add_archs(a.substr(15), archs);
        else if (a.starts_with("--cuda-gpu-arch="))
            add_archs(a.substr(16), archs);
        else if (a == "--offload-device-only" || a == "--offload-host-only" ||
                 a == "--cuda-device-only" || a == "--cuda-host-only" || a == "-fsyntax-only" ||
                 a == "-M" || a == "-MM")
            return Route::PassThrough;
    }
    if (preprocess) return mentions_offload(argv) ? Route::Preprocess : Route::PassThrough;
    if ((compile || rdc_link) && (archs.size() >= 2 || response_file)) return Route::Candidate;
    return Route::PassThrough;
}

std::vector<std::string> preprocess_argv(const std::vector<std::string>& argv) {
    std::vector<std::string> out;
    for (const auto& a : argv)
        if (a != "--offload-compress" && a != "--offload-new-driver") out.push_back(a);
    out.emplace_back("--no-offload-new-driver");
    return out;
}

std::vector<std::string> command_from(const std::vector<std::string>& args, const char* compiler) {
    std::vector<std::string> cmd;
    if (compiler && *compiler) cmd.emplace_back(compiler);
    cmd.insert(cmd.end(), args.begin(), args.end());
    return cmd;
}

} // namespace phc::launch
