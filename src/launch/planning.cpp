#include "launch/planning.h"

#include "compile/analysis.h"
#include "compile/command.h"
#include "compile/shell.h"
#include "probe/probe.h"
#include "split/guard.h"
#include "split/link.h"
#include "split/plan.h"
#include "util/file.h"
#include "util/settings.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>

namespace phc::launch {

namespace {

/// `path` absolute and normalised (as it is when that fails).
std::string absolute(const std::string& path) {
    std::error_code ec;
    auto abs = std::filesystem::absolute(path, ec);
    return ec ? path : abs.lexically_normal().string();
}

/// With a memory budget (PHC_MEMORY), `argv` run by `phc-ninja step`, which
/// waits for the step's estimate to fit the budget that every step of the
/// build shares (in the records folder, PHC_RECORDS), then records its peak.
/// A step is recorded under the object when it writes it, else as
/// "<object>.<file name>" (the launcher's private folder changes its name
/// from run to run), so that the next build of the object finds its own last
/// peak.
std::vector<std::string> under_budget(const split::Step& s, std::vector<std::string> argv,
                                      const std::string& object) {
    const std::string records = step_records_dir();
    const std::string self = util::self_exe();
    if (records.empty() || self.empty()) return argv;
    std::vector<std::string> out{
        self, "step", "--kind", std::string(split::budget_kind(s.kind)), "--records", records};
    const std::string obj = absolute(object);
    for (const std::string& o : s.outputs) {
        std::string abs = absolute(util::join_path(s.cwd, o));
        if (abs != obj) abs = obj + "." + std::filesystem::path(abs).filename().string();
        out.insert(out.end(), {"--output", abs});
    }
    out.push_back("--");
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

/// A planner step as a supervisor job; `object` is the compile's output.
Job to_job(const split::Step& s, std::string label, const std::string& object) {
    Job j;
    j.label = std::move(label);
    j.argv = under_budget(s, s.argv, object);
    j.cwd = s.cwd;
    for (const auto& kv : s.env) {
        size_t eq = kv.find('=');
        j.env.emplace_back(kv.substr(0, eq), eq == std::string::npos ? "" : kv.substr(eq + 1));
    }
    return j;
}

/// A compile that read its arguments from response files: each compile step
/// reads its own, written to `private_dir`, so that long command lines stay
/// within the system's limits. The compiler's arguments (after `compiler`) go
/// to the file.
Status use_response_files(std::vector<split::Step>& steps, const std::string& compiler,
                          const std::string& private_dir) {
    for (size_t k = 0; k < steps.size(); ++k) {
        const std::string rsp = private_dir + "/step" + std::to_string(k) + ".rsp";
        auto content = split::to_response_file(steps[k], compiler, rsp);
        if (!content) continue; // the bundler
        if (auto st = util::write_file_atomic(rsp, *content); !st) return st;
    }
    return Ok{};
}

/// The steps with TMPDIR set to the private folder: the temporary files the
/// drivers make go where the launcher removes them, also after a launcher was
/// killed (the next one removes the folders of dead launchers).
std::vector<split::Step> in_private_tmp(std::vector<split::Step> steps,
                                        const std::string& private_dir) {
    for (split::Step& s : steps) {
        std::erase_if(s.env, [](const std::string& e) { return e.starts_with("TMPDIR="); });
        s.env.push_back("TMPDIR=" + private_dir);
    }
    return steps;
}

/// The label of a step's job: the architecture for device steps, else its kind.
std::string label_of(const split::Step& s) {
    switch (s.kind) {
    case split::StepKind::Device:
        return s.arch;
    case split::StepKind::DeviceLink:
        return "link " + s.arch;
    default:
        return std::string(split::step_kind_name(s.kind));
    }
}

/// The steps as waves of jobs: a step goes in the wave after the last one
/// writing a file it reads. The outputs to remove on failure: the files of
/// the step writing `output`, and the host compile's depfile.
SplitJobs to_jobs(const std::vector<split::Step>& steps, const std::string& output,
                  const std::string& cwd) {
    SplitJobs jobs;
    jobs.name = output;
    std::map<std::string, size_t> wave_of; // file -> the wave after the one writing it
    const std::string object = util::join_path(cwd, output);
    for (const split::Step& s : steps) {
        size_t wave = 0;
        for (const auto& in : s.inputs)
            if (auto it = wave_of.find(util::join_path(s.cwd, in)); it != wave_of.end())
                wave = std::max(wave, it->second);
        if (jobs.waves.size() <= wave) jobs.waves.resize(wave + 1);
        jobs.waves[wave].push_back(to_job(s, label_of(s), object));
        bool final = false;
        for (const auto& o : s.outputs) {
            wave_of[util::join_path(s.cwd, o)] = wave + 1;
            final = final || util::join_path(s.cwd, o) == object;
        }
        if (final)
            for (const auto& o : s.outputs)
                jobs.outputs.push_back(util::join_path(s.cwd, o));
        if (s.kind == split::StepKind::Host && !s.depfile.empty())
            jobs.outputs.push_back(util::join_path(s.cwd, s.depfile));
    }
    return jobs;
}

} // namespace

/// The descriptor a host step under ccache reads its bundle from (planning.h).
constexpr int kBundleFd = 19;

void bundle_by_descriptor(SplitJobs& jobs, const std::string& bundle, const char* env_extrafiles) {
    const std::string fd_path = "/dev/fd/" + std::to_string(kBundleFd);
    for (auto& wave : jobs.waves)
        for (Job& j : wave) {
            auto extra = std::find_if(j.env.begin(), j.env.end(), [](const auto& kv) {
                return kv.first == "CCACHE_EXTRAFILES";
            });
            if (extra == j.env.end() ||
                std::find(j.argv.begin(), j.argv.end(), bundle) == j.argv.end())
                continue;
            std::replace(j.argv.begin(), j.argv.end(), bundle, fd_path);
            std::string& v = extra->second; // "[<the command's own>:]<bundle>" (split/plan.cpp)
            if (v == bundle) {
                // Set on top of the environment's: keep the files it names.
                v = env_extrafiles != nullptr && env_extrafiles[0] != '\0'
                        ? std::string(env_extrafiles) + ":" + fd_path
                        : fd_path;
            } else if (v.ends_with(":" + bundle)) {
                v.replace(v.size() - bundle.size(), bundle.size(), fd_path);
            }
            j.files.emplace_back(kBundleFd, bundle);
        }
}

std::string step_records_dir() {
    if (!util::get("PHC_MEMORY")) return {};
    if (auto p = util::get("PHC_RECORDS"); p && !p->empty()) return *p;
    const std::string base = util::user_cache_dir();
    return base.empty() ? std::string() : base + "/phc-ninja/steps";
}

std::string probe_cache_path() {
    if (auto p = util::get("PHC_PROBE_CACHE")) return *p;
    const std::string base = util::user_cache_dir();
    if (base.empty()) return {};
    std::string dir = base + "/phc-ninja";
    if (!util::make_dirs(dir)) return {};
    return dir + "/probes.json";
}

Result<Planned> plan_command(const std::vector<std::string>& argv, const std::string& private_dir,
                             const std::string& probe_cache) {
    compile::Recognised rec = compile::recognise_argv(argv);
    if (!rec.command) return Planned{std::nullopt, rec.reason};
    compile::Analysis a = compile::analyze(std::move(*rec.command), {});
    if (!a.decision.split()) return Planned{std::nullopt, a.decision.text};
    probe::ProbeCache cache(probe_cache, split::guarded_prober());
    split::PlanOptions opts;
    opts.private_dir = private_dir;
    // PHC_OVERLAP_HOST=1: the host compile beside the device compiles (plan.h).
    opts.overlap_host = util::get("PHC_OVERLAP_HOST") == "1";
    // PHC_DISTRIBUTE=icecc|distcc|none: the device compiles' engine (plan.h).
    if (auto d = util::get("PHC_DISTRIBUTE")) opts.distribute = split::engine_from_name(*d);
    const auto basedir = util::get("CCACHE_BASEDIR");
    opts.cuid_root = split::root_from_basedir(basedir ? basedir->c_str() : nullptr);
    auto plan = split::plan(std::move(a), cache, opts);
    if (!plan) return plan.error();
    if (!plan->split()) return Planned{std::nullopt, plan->analysis.decision.text};
    // PHC_CHECK=1: the driver's own compile, to compare the object with afterwards.
    const std::string reference = private_dir + "/check.o";
    if (util::get("PHC_CHECK") == "1")
        plan->steps.push_back(
            split::reference_step(plan->analysis, plan->cuid, reference, private_dir + "/check.d"));
    if (plan->analysis.rsp) {
        if (auto st = use_response_files(plan->steps, plan->analysis.command.argv[0], private_dir);
            !st)
            return st.error();
    }
    std::vector<split::Step> steps = in_private_tmp(std::move(plan->steps), private_dir);
    std::optional<split::Step> reference_step;
    if (steps.back().kind == split::StepKind::Check) {
        reference_step = std::move(steps.back());
        steps.pop_back();
    }
    SplitJobs jobs = to_jobs(steps, plan->analysis.output, plan->analysis.command.cwd);
    const auto extra = util::get("CCACHE_EXTRAFILES");
    if (!plan->rdc) bundle_by_descriptor(jobs, plan->bundle, extra ? extra->c_str() : nullptr);
    if (reference_step) {
        jobs.object = util::join_path(plan->analysis.command.cwd, plan->analysis.output);
        jobs.check = std::move(*reference_step);
        jobs.reference = reference;
        jobs.private_dir = private_dir;
    }
    return Planned{std::move(jobs), {}};
}

Result<Planned> plan_link_command(const std::vector<std::string>& argv,
                                  const std::string& private_dir) {
    auto a = compile::analyze_link_string(compile::join_command(argv), {});
    if (!a.decision.split()) return Planned{std::nullopt, a.decision.text};
    // The launcher cannot know which objects were split: each is unbundled, as
    // the driver does, and each architecture linked on its own.
    auto plan = split::plan_link(
        std::move(a), [](const std::string&) -> const split::SplitObject* { return nullptr; },
        private_dir, split::LinkInputs::Present);
    if (!plan) return plan.error();
    if (!plan->split()) return Planned{std::nullopt, plan->analysis.decision.text};
    return Planned{to_jobs(in_private_tmp(std::move(plan->steps), private_dir),
                           plan->analysis.output, plan->analysis.command.cwd),
                   {}};
}

} // namespace phc::launch
