#include "split/options.h"

namespace phc::split {

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
    };
}

} // namespace phc::split
