// phc-ninja: the table of subcommands. Each pipeline stage that has a command
// line provides src/<stage>/cli.h with `int cli_main(int argc, char** argv)`,
// where argv[0] is "phc-ninja <command>" and argv[1..] are that command's args.
#include "check/check.h"
#include "depsets/depsets.h"
#include "gen/cli.h"
#include "launch/cli.h"
#include "ninja/cli.h"
#include "regen/cli.h"
#include "report/cli.h"
#include "sched/cli.h"
#include "split/cli.h"
#include "split/distribute.h"
#include "split/embed.h"
#include "split/fatbin_asm.h"
#include "split/wrapper_link.h"
#include "split/wrapper_plan.h"
#include "util/args.h"
#include "util/error.h"
#include "util/settings.h"
#include "why/why.h"

#include <cstdio>
#include <string>
#include <string_view>

namespace {

struct Command {
    const char* name;
    const char* summary;
    int (*run)(int argc, char** argv);
    bool internal = false; ///< run by the edges phc-ninja writes, not by users
};

int version_main(int argc, char** argv) {
    bool verbose = false;
    phc::util::CommandLine cl{
        "phc-ninja version", "[--verbose]", "prints phc-ninja's version.", {}, {}};
    cl.options = {phc::util::flag_option(
        {"--verbose"}, "and every setting (environment variable) with its value's origin",
        verbose)};
    phc::util::Parsed parsed;
    if (auto status = phc::util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    std::printf("phc-ninja %s\n", PHC_VERSION);
    if (verbose) std::fputs(phc::util::settings_report().c_str(), stdout);
    return 0;
}

constexpr Command kCommands[] = {
    {"regen", "rewrite a configured Ninja build so HIP architectures compile in parallel",
     phc::regen::cli_main},
    {"deps-set", "(run by regen's edges) record a depfile's headers as one shared set",
     phc::depsets::deps_set_main, true},
    {"step", "(internal: run by build edges) a step under the build's memory budget, measured",
     phc::sched::step_main, true},
    {"device-ii", "(run by distributed device edges) preprocess, check, compile one architecture",
     phc::split::device_ii_main, true},
    {"embed", "(run by --overlap-host's edges) put the device code into the host object",
     phc::split::embed_main, true},
    {"fatbin-asm", "(run by split RDC links) the fat binary's assembly, as the driver derives it",
     phc::split::fatbin_asm_main, true},
    {"link-plan", "(run by split new-driver RDC links) which device code each architecture links",
     phc::split::link_plan_main, true},
    {"planned", "(run by split new-driver RDC links) one device or host link, as link-plan planned",
     phc::split::planned_main, true},
    {"wrapper-link",
     "(run by split new-driver RDC links of target IDs) the host link, by target ID",
     phc::split::wrapper_link_main, true},
    {"wrapper-image",
     "(run by split clang 19 new-driver RDC links) one architecture's device image",
     phc::split::wrapper_image_main, true},
    {"icecc-env", "write the environment tarball icecc's farm compiles HIP device code in",
     phc::split::icecc_env_main},
    {"gen", "write a ninja file from a compile_commands.json", phc::gen::cli_main},
    {"launch", "run one compile, split across architectures (make jobserver client)",
     phc::launch::cli_main},
    {"explain", "show whether and how one compile command would be split", phc::split::cli_main},
    {"check", "compare a split build's objects and links with the driver's own",
     phc::check::cli_main},
    {"report", "where the last ninja build's time went: summary, --html page, --trace",
     phc::report::cli_main},
    {"why", "which inputs make an output dirty (the headers, not phc_s_... sets)",
     phc::why::cli_main},
    {"manifest", "inspect a ninja manifest with phc-ninja's own parser", phc::ninja::cli_main},
    {"version", "print the version (--verbose: and every setting with its origin)", version_main},
};

void usage(std::FILE* to) {
    std::fprintf(to, "usage: phc-ninja <command> [args...]\n\ncommands:\n");
    std::string internal;
    for (const auto& c : kCommands) {
        if (!c.internal)
            std::fprintf(to, "  %-10s %s\n", c.name, c.summary);
        else
            internal += std::string(internal.empty() ? "" : ", ") + c.name;
    }
    std::fprintf(to, "\nrun by the edges phc-ninja writes, not by hand: %s\n", internal.c_str());
    std::fprintf(to, "\n%s", phc::util::settings_help().c_str());
    std::fprintf(to, "\nRun 'phc-ninja <command> --help' for a command's options.\n");
}

/// Runs `cmd` with argv[0] rewritten to "phc-ninja <cmd>" for its messages.
int dispatch(const Command& cmd, int argc, char** argv) {
    std::string self = std::string("phc-ninja ") + cmd.name;
    argv[0] = self.data();
    return cmd.run(argc, argv);
}

} // namespace

int main(int argc, char** argv) {
    std::string_view self = argv[0];
    if (auto slash = self.rfind('/'); slash != std::string_view::npos)
        self.remove_prefix(slash + 1);
    if (self == "phc-launch") return phc::launch::cli_main(argc, argv);
    if (phc::split::is_wrapper_linker(argv[0])) return phc::split::wrapper_linker_main(argc, argv);
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    std::string_view name = argv[1];
    if (name == "--help" || name == "-h" || name == "help") {
        usage(stdout);
        return 0;
    }
    if (name == "--version") return version_main(1, argv);
    for (const auto& c : kCommands)
        if (name == c.name) return dispatch(c, argc - 1, argv + 1);
    phc::print_error("phc-ninja", phc::make_error(std::string("unknown command '") + argv[1] +
                                                  "' (see --help)"));
    return 2;
}
