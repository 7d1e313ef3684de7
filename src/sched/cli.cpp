#include "sched/cli.h"

#include "depsets/depsets.h"
#include "sched/budget.h"
#include "sched/history.h"
#include "sched/memory.h"
#include "sched/runner.h"
#include "sched/steps.h"
#include "util/args.h"
#include "util/file.h"
#include "util/settings.h"
#include "util/subprocess.h"

#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <optional>

namespace phc::sched {

namespace {

/// What the command line asked for.
struct StepArgs {
    std::string kind = "other";
    std::vector<std::string> outputs;
    std::string records = ".phc-ninja";
    std::optional<std::string> memory;
    std::string cd;                  ///< the command's working directory, "" for ours
    std::vector<std::string> env;    ///< NAME=VALUE set for the command
    std::string sets;                ///< header sets: the sets file, "" for none
    std::string depfile;             ///< the depfile made a header set
    std::vector<std::string> inputs; ///< the edge's inputs, left out of the set
    std::string deps_output;         ///< the edge's output, when the depfile names another
    std::vector<std::string> command;
};

constexpr std::string_view kNotes =
    "The budget: --memory, else PHC_MEMORY, else what `phc-ninja regen --memory` left in\n"
    "DIR/memory, else the cgroup's memory limit (or the machine's memory) less 10%. A\n"
    "step waits until its estimate fits beside the steps running; it starts at once\n"
    "when none runs. Records: DIR/steps. With --sets, once COMMAND succeeded, the\n"
    "depfile's headers become one header set (as `phc-ninja deps-set` does).\n";

/// Appends each value of a repeatable option to `to`.
util::Option list_option(std::string_view name, std::string_view value, std::string_view help,
                         std::vector<std::string>& to) {
    return {{name}, value, help, [&to](const std::string& v) {
                to.push_back(v);
                return std::string();
            }};
}

util::CommandLine command_line(StepArgs& a) {
    util::CommandLine cl;
    cl.name = "phc-ninja step";
    cl.synopsis = "[--kind KIND] [--records DIR] [--memory SIZE|PERCENT] [--cd DIR] "
                  "[--env NAME=VALUE]...\n"
                  "       [--sets SETS --depfile DEPFILE [--input IN]... [--deps-output OUT]] "
                  "[OUT]... -- COMMAND...";
    cl.about = "Runs COMMAND once its memory estimate fits in the build's budget, and records\n"
               "its peak memory, CPU and wall time per output (internal: run by build edges).";
    cl.options = {
        util::text_option({"--kind"}, "KIND",
                          "device, host, bundle, link, devlink, embed, remote (a compile "
                          "on a farm) or other (default)",
                          a.kind),
        list_option("--output", "OUT", "an output the step writes (as an OUT word)", a.outputs),
        util::text_option({"--records"}, "DIR", "the records folder (default .phc-ninja)",
                          a.records),
        {{"--memory"},
         "SIZE|PERCENT",
         "the budget: 8G, 512M, 75% (default: PHC_MEMORY)",
         [&a](const std::string& v) {
             a.memory = v;
             return std::string();
         }},
        util::text_option({"--cd"}, "DIR", "run COMMAND in DIR", a.cd),
        list_option("--env", "NAME=VALUE", "set NAME for COMMAND (repeat for more)", a.env),
        util::text_option({"--sets"}, "SETS", "the header sets file (regen/gen's edges)", a.sets),
        util::text_option({"--depfile"}, "DEPFILE", "with --sets: the depfile COMMAND writes",
                          a.depfile),
        list_option("--input", "IN", "with --sets: an input of the edge, left out of the set",
                    a.inputs),
        util::text_option({"--deps-output"}, "OUT",
                          "with --sets: the edge's output, when the depfile names another",
                          a.deps_output),
    };
    static const std::string notes = std::string(kNotes) + "\n" + util::settings_help("step");
    cl.notes = notes;
    cl.positional = true; // the outputs: every word before "--"
    return cl;
}

void warn(const std::string& text) {
    std::fprintf(stderr, "phc-ninja step: warning: %s\n", text.c_str());
}

/// Runs the step; its exit status.
int run_step(const StepArgs& a, Kind kind, uint64_t budget) {
    StepRecord r;
    r.kind = kind;
    const std::string steps = a.records + "/steps";
    (void)util::make_dirs(a.records); // a failure shows when the budget or records need it
    auto text = util::read_regular_file(steps, kMaxStepsBytes);
    const Estimate e = estimate(text ? *text : std::string(), a.outputs, kind);
    r.reserved = e.bytes;
    auto held = reserve(a.records + "/budget", {e.bytes, e.wall_ms * 1000000}, budget);
    if (!held) warn(held.error().text() + "; running without a memory budget");
    auto m = run_measured(a.command, a.cd, util::env_pairs(a.env));
    if (!m) {
        print_error("phc-ninja step", m.error());
        return 127;
    }
    // From here on the step only appends (its records, the history, the header
    // set): a file size limit must make an append fail (undone), not kill the
    // step after its command succeeded. (Ignored only now: the command keeps
    // the disposition it would have without us.)
    std::signal(SIGXFSZ, SIG_IGN);
    if (held) {
        r.wait_ms = held->waited_ms();
        *held = Reservation(); // the memory is free again
    }
    r.start_ms = m->start_ms, r.wall_ms = m->wall_ms, r.cpu_ms = m->cpu_ms, r.peak = m->peak,
    r.exit_code = m->exit_code;
    std::vector<StepRecord> records;
    for (const std::string& out : a.outputs) {
        r.output = out;
        records.push_back(r);
    }
    if (auto st = append_records(steps, records); !st) warn(st.error().text());
    // The project's history (history.h), which orders and sizes fresh build
    // directories; a failure to keep it is never the build's.
    if (auto st = append_history(a.records, records); !st) warn(st.error().text());
    // A failure keeps the depfile's whole list, which is correct: warn, never fail the build.
    if (m->exit_code == 0 && !a.sets.empty())
        if (auto st = depsets::deps_set(a.sets, a.depfile, a.inputs, a.deps_output); !st)
            warn(st.error().text());
    return m->exit_code;
}

} // namespace

int step_main(int argc, char** argv) {
    StepArgs a;
    const util::CommandLine cl = command_line(a);
    // The command is every word after the first "--"; the words before it
    // that are no options are the outputs.
    int split_at = 1;
    while (split_at < argc && std::string_view(argv[split_at]) != "--")
        ++split_at;
    util::Parsed p;
    if (auto status = util::parse_or_usage(cl, split_at, argv, p)) return *status;
    if (split_at == argc) return util::usage_error(cl, "no '--' before the command to run");
    auto kind = kind_named(a.kind);
    if (!kind)
        return util::usage_error(
            cl, fmt::format("--kind: '{}' is not device, host, bundle, link, devlink, embed, "
                            "remote or other",
                            a.kind));
    a.outputs.insert(a.outputs.end(), p.positional.begin(), p.positional.end());
    a.command.assign(argv + std::min(split_at + 1, argc), argv + argc);
    if (a.command.empty()) return util::usage_error(cl, "no command to run after '--'");
    if (!a.sets.empty() && a.depfile.empty())
        return util::usage_error(cl, "--sets needs --depfile");
    const auto [spec, origin] = budget_spec(a.memory, a.records);
    auto budget = memory_budget(spec, origin);
    if (!budget) return util::usage_error(cl, budget.error().message);
    return run_step(a, *kind, *budget);
}

} // namespace phc::sched
