#include "gen/cli.h"

#include "gen/gen.h"
#include "sched/memory.h"
#include "split/explain.h"
#include "split/options.h"
#include "util/args.h"
#include "util/file.h"
#include "util/settings.h"

#include <cstdio>
#include <fmt/format.h>
#include <string>
#include <string_view>

namespace phc::gen {

namespace {

constexpr const char* kAbout =
    "Writes a ninja file that builds the objects of a compilation database at the\n"
    "paths the original build expects. Multi-architecture HIP compiles become one\n"
    "device compile edge per architecture, a bundle edge and a host edge.";

constexpr const char* kNotes =
    "Entries may use \"command\" or \"arguments\"; relative paths resolve against the\n"
    "entry's \"directory\", a relative \"directory\" against the database's. Errors\n"
    "name entries by their 0-based index. Nothing is written on error, and an\n"
    "unchanged file is not rewritten.\n"
    "\n"
    "gen's folder .phc-ninja/ (ninja's builddir, device objects, probe cache) goes\n"
    "next to FILE, or in the current directory when FILE is '-', a device or a fifo\n"
    "(paths are then spelled from the current directory).\n"
    "\n"
    "Then: ninja -f FILE, from FILE's directory (best: the entries' directory).";

util::CommandLine command_line(GenRequest& req, std::string& database, split::SplitArgs& split) {
    util::CommandLine cl{
        "phc-ninja gen", "[options] [compile_commands.json | DIR]", kAbout, {}, {}};
    static const std::string notes = std::string(kNotes) + "\n\n" + util::settings_help("gen");
    cl.notes = notes;
    cl.positional = true;
    cl.options = {
        util::text_option({"-p"}, "PATH",
                          "the database, or a directory holding compile_commands.json\n"
                          "(default: ./compile_commands.json)",
                          database),
        util::text_option({"-o"}, "FILE",
                          "the ninja file to write (default: phc.ninja); '-' writes it\n"
                          "to stdout (the summary then goes to stderr), a device or\n"
                          "fifo is written through. An existing FILE is replaced only\n"
                          "when gen wrote it (or it is empty); the database, an\n"
                          "entry's source or object are refused.",
                          req.ninja_file),
    };
    for (auto& opt : split::split_options(split))
        cl.options.push_back(std::move(opt));
    cl.options.push_back(util::flag_option({"--strict"},
                                           "fail when a compiler cannot be probed (default: "
                                           "leave its\nentries alone, reason probe-failed, and "
                                           "split the rest)",
                                           req.strict));
    return cl;
}

} // namespace

int cli_main(int argc, char** argv) {
    GenRequest req;
    split::SplitArgs split;
    std::string database; // -p
    const util::CommandLine cl = command_line(req, database, split);
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    // The database is named once: by -p or by the one positional argument.
    if (!database.empty()) parsed.positional.insert(parsed.positional.begin(), database);
    if (parsed.positional.size() > 1)
        return util::usage_error(cl, "unexpected argument '" + parsed.positional[1] + "'");
    if (!parsed.positional.empty()) req.database = parsed.positional[0];
    req.device_jobs = split.device_jobs;
    req.overlap_host = split.overlap_host;
    auto engine = split.engine();
    if (!engine) return util::usage_error(cl, engine.error().message);
    req.distribute = *engine;
    if (req.distribute != split::Engine::None) req.remote_jobs = split.remote_depth();
    auto select = split.selection();
    if (!select) return util::usage_error(cl, select.error().message);
    req.select = std::move(*select);
    if (auto st = sched::check_memory_spec(split.memory); !st)
        return util::usage_error(cl, st.error().message);
    req.memory = split.memory;
    const bool explain = split.explain;
    // The summary goes to stderr when the ninja file goes to stdout (decided
    // before the run: a replaced file is another inode afterwards).
    std::FILE* summary = util::is_stdout(req.ninja_file) ? stderr : stdout;
    auto report = run_gen(req);
    if (!report) return print_error(cl.name, report.error());
    for (const auto& note : report->notes)
        std::fprintf(stderr, "phc-ninja gen: note: %s\n", note.c_str());
    if (explain) split::print_decisions(summary, report->decisions);
    if (explain) std::fprintf(summary, "%s\n", sched::explain_budget(req.memory).c_str());
    std::fprintf(summary, "%s\n", summary_line(*report).c_str());
    return 0;
}

} // namespace phc::gen
