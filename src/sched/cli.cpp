#include "sched/cli.h"

#include "sched/budget.h"
#include "sched/memory.h"
#include "sched/runner.h"
#include "sched/steps.h"
#include "util/args.h"
#include "util/file.h"
#include "util/settings.h"

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
    std::vector<std::string> command;
};

constexpr std::string_view kNotes =
    "The budget: --memory, else PHC_MEMORY, else the cgroup's memory limit (or the\n"
    "machine's memory) less 10%. A step waits until its estimate fits beside the\n"
    "steps running; it starts at once when none runs. Records: DIR/steps.\n";

util::CommandLine command_line(StepArgs& a) {
    util::CommandLine cl;
    cl.name = "phc-ninja step";
    cl.synopsis = "[--kind KIND] [--output OUT]... [--records DIR] [--memory SIZE|PERCENT] "
                  "-- COMMAND...";
    cl.about = "Runs COMMAND once its memory estimate fits in the build's budget, and records\n"
               "its peak memory, CPU and wall time per output (internal: run by build edges).";
    cl.options = {
        util::text_option({"--kind"}, "KIND",
                          "device, host, bundle, link, devlink, embed or other (default)", a.kind),
        {{"--output"},
         "OUT",
         "an output the step writes (repeat for more); its record's key",
         [&a](const std::string& v) {
             a.outputs.push_back(v);
             return std::string();
         }},
        util::text_option({"--records"}, "DIR", "the records folder (default .phc-ninja)",
                          a.records),
        {{"--memory"},
         "SIZE|PERCENT",
         "the budget: 8G, 512M, 75% (default: PHC_MEMORY)",
         [&a](const std::string& v) {
             a.memory = v;
             return std::string();
         }},
    };
    cl.notes = kNotes;
    cl.positional = true;
    cl.stop_at_word = true;
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
    auto text = util::read_regular_file(steps, kMaxStepsBytes);
    r.reserved = estimate(text ? *text : std::string(), a.outputs, kind);
    auto held = reserve(a.records + "/budget", r.reserved, budget);
    if (!held) warn(held.error().text() + "; running without a memory budget");
    auto m = run_measured(a.command);
    if (!m) {
        print_error("phc-ninja step", m.error());
        return 127;
    }
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
    return m->exit_code;
}

} // namespace

int step_main(int argc, char** argv) {
    StepArgs a;
    const util::CommandLine cl = command_line(a);
    util::Parsed p;
    if (auto status = util::parse_or_usage(cl, argc, argv, p)) return *status;
    auto kind = kind_named(a.kind);
    if (!kind)
        return util::usage_error(
            cl, fmt::format("--kind: '{}' is not device, host, bundle, link, devlink, embed "
                            "or other",
                            a.kind));
    a.command = std::move(p.positional);
    if (a.command.empty()) return util::usage_error(cl, "no command to run after the options");
    const bool given = a.memory.has_value();
    auto budget = memory_budget(given ? a.memory : util::get("PHC_MEMORY"),
                                given ? "--memory" : "PHC_MEMORY");
    if (!budget) return util::usage_error(cl, budget.error().message);
    return run_step(a, *kind, *budget);
}

} // namespace phc::sched
