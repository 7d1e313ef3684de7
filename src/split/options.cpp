#include "split/options.h"

#include <thread>

namespace phc::split {

int remote_jobs_default() {
    const unsigned cores = std::thread::hardware_concurrency();
    return 4 * static_cast<int>(cores == 0 ? 1 : cores);
}

Result<std::optional<Engine>> SplitArgs::engine() const {
    if (distribute.empty()) return std::optional<Engine>{};
    if (auto e = engine_from_name(distribute)) return std::optional<Engine>{*e};
    return make_error("--distribute: unknown engine '" + distribute + "' (icecc, distcc or none)");
}

std::vector<util::Option> split_options(SplitArgs& into) {
    return {
        util::positive_option({"--device-jobs"}, "N",
                              "run at most N device compiles at once (a ninja pool)",
                              into.device_jobs),
        util::text_option({"--only"}, "REGEX",
                          "split only objects whose output path REGEX matches (RE2\n"
                          "syntax, anywhere in the path as the ninja file spells it)",
                          into.only),
        util::text_option({"--skip"}, "REGEX",
                          "do not split objects whose output path REGEX matches; both\n"
                          "leave the others alone (reason not-selected)",
                          into.skip),
        util::flag_option({"--explain"}, "list every HIP compile with its decision and reason",
                          into.explain),
        util::flag_option({"--overlap-host"},
                          "run each host compile beside its device compiles; a small step\n"
                          "then puts the device code into its object (objcopy)",
                          into.overlap_host),
        util::text_option({"--distribute"}, "ENGINE",
                          "send each device compile to icecc or distcc (a local\n"
                          "preprocess edge, then the compile of its output; default:\n"
                          "when the compiler's launcher is one of them); none: never",
                          into.distribute),
        util::positive_option({"--remote-jobs"}, "N",
                              "run at most N distributed device compiles at once (a ninja\n"
                              "pool; default: 4 x this machine's cores)",
                              into.remote_jobs),
        {{"--memory"},
         "SIZE|PERCENT",
         "the memory the build's steps may use at once: 8G, 512M, or 75%\n"
         "of the machine's (or its cgroup's); each step waits until its\n"
         "estimate fits. Read when a step starts: changing it rebuilds\n"
         "nothing (default: PHC_MEMORY, else that memory less 10%)",
         [&into](const std::string& v) {
             into.memory = v;
             return std::string();
         }},
    };
}

} // namespace phc::split
