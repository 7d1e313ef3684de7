#include "launch/planning.h"

#include "util/file.h"

#ifdef PHC_LAUNCH_HAVE_SPLIT
#include "compile/analysis.h"
#include "compile/command.h"
#include "compile/probe.h"
#include "split/plan.h"
#endif

#include <cstdlib>

namespace phc::launch {

#ifdef PHC_LAUNCH_HAVE_SPLIT
namespace {

/// A planner step as a supervisor job.
Job to_job(const split::Step& s, std::string label) {
    Job j;
    j.label = std::move(label);
    j.argv = s.argv;
    j.cwd = s.cwd;
    for (const auto& kv : s.env) {
        size_t eq = kv.find('=');
        j.env.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    }
    return j;
}

} // namespace
#endif

std::string probe_cache_path() {
    if (const char* p = std::getenv("PHC_PROBE_CACHE")) return p;
    std::string base;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        base = x;
    else if (const char* h = std::getenv("HOME"); h && *h)
        base = std::string(h) + "/.cache";
    if (base.empty()) return {};
    std::string dir = base + "/phc-ninja";
    if (!util::make_dirs(dir)) return {};
    return dir + "/probes.json";
}

#ifndef PHC_LAUNCH_HAVE_SPLIT
Result<Planned> plan_command(const std::vector<std::string>&, const std::string&,
                             const std::string&) {
    return Planned{std::nullopt, "this phc-ninja was built without the split planner"};
}
#else
Result<Planned> plan_command(const std::vector<std::string>& argv, const std::string& private_dir,
                             const std::string& probe_cache) {
    compile::Recognised rec = compile::recognise_argv(argv);
    if (!rec.command) return Planned{std::nullopt, rec.reason};
    compile::Analysis a = compile::analyze(std::move(*rec.command), {});
    if (!a.decision.split()) return Planned{std::nullopt, a.decision.text};
    compile::ProbeCache cache(probe_cache);
    split::PlanOptions opts;
    opts.private_dir = private_dir;
    auto plan = split::plan(std::move(a), cache, opts);
    if (!plan) return plan.error();
    if (!plan->split()) return Planned{std::nullopt, plan->analysis.decision.text};

    SplitJobs jobs;
    jobs.name = plan->analysis.output;
    for (const auto& s : plan->steps) {
        switch (s.kind) {
        case split::StepKind::Device:
            jobs.device.push_back(to_job(s, s.arch));
            break;
        case split::StepKind::Bundle:
            jobs.bundle = to_job(s, "bundle");
            break;
        case split::StepKind::Host:
            jobs.host = to_job(s, "host");
            for (const auto& o : s.outputs)
                jobs.outputs.push_back(compile::join_path(s.cwd, o));
            if (!s.depfile.empty()) jobs.outputs.push_back(compile::join_path(s.cwd, s.depfile));
            break;
        default: // link steps: plan_command plans compiles only
            break;
        }
    }
    return Planned{std::move(jobs), {}};
}

#endif

} // namespace phc::launch
