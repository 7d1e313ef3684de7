#include "split/link.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "util/file.h"

#include <algorithm>
#include <map>

namespace phc::split {

namespace {

/// The assembly that embeds a fat binary as the symbol __hip_fatbin, as clang's
/// driver writes it for llvm-mc (HIPUtility.cpp; its comment lines left out):
/// the tests check the linked output against the driver's own.
std::string fatbin_assembly(const std::string& hipfb) {
    return "  .protected __hip_fatbin\\n"
           "  .type __hip_fatbin,@object\\n"
           "  .section .hip_fatbin,\"a\",@progbits\\n"
           "  .globl __hip_fatbin\\n"
           "  .p2align 12\\n"
           "__hip_fatbin:\\n"
           "  .incbin \"" +
           hipfb + "\"\\n";
}

/// The first value of `prefix` in `job` ("" when none).
std::string value_of(const std::vector<std::string>& job, std::string_view prefix) {
    for (size_t i = 1; i < job.size(); ++i)
        if (job[i].starts_with(prefix)) return job[i].substr(prefix.size());
    return {};
}

bool has_word(const std::vector<std::string>& job, std::string_view w) {
    return std::find(job.begin() + 1, job.end(), w) != job.end();
}

/// Builds the steps, renaming the driver's temporary files as it goes.
class Planner {
public:
    Planner(LinkPlan& plan, const probe::DriverJobs& jobs, const FindSplitObject& find)
        : plan_(plan), temp_(jobs.temp_dir + "/"), find_(find) {}

    /// Plans every job; false (with `why`) at the first one it cannot reproduce.
    bool run(const std::vector<std::vector<std::string>>& jobs) {
        for (size_t j = 0; j < jobs.size(); ++j)
            if (!job(j, jobs[j])) return false;
        if (!final_) return fail("no job of the driver writes '" + plan_.analysis.output + "'");
        return true;
    }

    std::string why;

private:
    bool fail(std::string text) {
        why = std::move(text);
        return false;
    }

    /// Where the temporary file starts in `w` (whole word or after '='), or npos.
    size_t temp_at(const std::string& w) const {
        size_t at = w.find(temp_);
        if (at == std::string::npos || (at != 0 && w[at - 1] != '=')) return std::string::npos;
        return at;
    }

    Step base(StepKind kind, std::string description) const {
        Step s;
        s.kind = kind;
        s.cwd = plan_.analysis.command.cwd;
        s.env = plan_.analysis.command.env;
        s.description = std::move(description) + " " + plan_.analysis.output;
        return s;
    }

    /// `job` with every temporary file renamed: outputs (listed in `outs`, by
    /// temporary name) to their new names, inputs to the names earlier steps
    /// gave them. False when a temporary file is neither.
    bool rename(Step& s, std::vector<std::string> job,
                const std::map<std::string, std::string>& outs) {
        for (std::string& w : job) {
            size_t at = temp_at(w);
            if (at == std::string::npos) continue;
            std::string temp = w.substr(at);
            if (auto o = outs.find(temp); o != outs.end()) {
                w = w.substr(0, at) + o->second;
                s.outputs.push_back(o->second);
            } else if (auto r = renamed_.find(temp); r != renamed_.end()) {
                w = w.substr(0, at) + r->second;
                s.inputs.push_back(r->second);
            } else {
                return fail("the driver's job '" + std::string(compile::base_name(job[0])) +
                            "' reads a temporary file no earlier job writes");
            }
        }
        s.argv = std::move(job);
        for (const auto& [temp, name] : outs)
            renamed_[temp] = name;
        return true;
    }

    bool job(size_t j, const std::vector<std::string>& job) {
        std::string_view prog = compile::base_name(job[0]);
        const std::string dir = plan_.private_dir + "/";
        const std::string index = std::to_string(j);
        if (prog.starts_with("clang-offload-bundler") && has_word(job, "-unbundle"))
            return unbundle(j, job);
        if (prog.starts_with("clang-offload-bundler")) {
            if (!hipfb_.empty()) return fail("the driver bundles twice");
            hipfb_ = dir + "fatbin.hipfb";
            Step s = base(StepKind::Fatbin, "HIP fatbin");
            if (!rename(s, job, {{value_of(job, "-output="), hipfb_}})) return false;
            plan_.steps.push_back(std::move(s));
            return true;
        }
        if ((prog == "lld" || prog.starts_with("lld-") || prog == "ld.lld") &&
            !value_of(job, "-plugin-opt=mcpu=").empty()) {
            std::string arch = value_of(job, "-plugin-opt=mcpu=");
            Step s = base(StepKind::DeviceLink, "HIP link " + arch);
            s.arch = arch;
            // Named by the architecture alone: adding another one leaves this
            // step's command as it was, so ninja does not run it again.
            std::string out = dir + safe_arch(arch) + ".out";
            if (std::find(plan_.archs.begin(), plan_.archs.end(), arch) != plan_.archs.end())
                out = dir + safe_arch(arch) + "-" + index + ".out";
            if (!rename(s, job, {{probe::job_word_after(job, "-o"), out}})) return false;
            if (s.outputs.empty()) return fail("the device link names no temporary output");
            plan_.archs.push_back(arch);
            plan_.steps.push_back(std::move(s));
            return true;
        }
        if (prog.starts_with("llvm-mc")) return fatbin_object(job);
        if (probe::job_word_after(job, "-o") == plan_.analysis.output) {
            Step s = base(StepKind::HostLink, "HIP host link");
            if (!rename(s, job, {})) return false;
            s.outputs.push_back(plan_.analysis.output);
            final_ = true;
            plan_.steps.push_back(std::move(s));
            return true;
        }
        return fail("the driver's link runs '" + std::string(prog) + "'");
    }

    /// An object's parts: from its split compile when there is one, else a step.
    bool unbundle(size_t j, const std::vector<std::string>& job) {
        const std::string input = value_of(job, "-input=");
        const std::vector<std::string> targets = probe::bundle_targets(job);
        std::vector<std::string> outs;
        for (size_t i = 1; i < job.size(); ++i)
            if (job[i].starts_with("-output=")) outs.push_back(job[i].substr(8));
        if (outs.size() != targets.size())
            return fail("an unbundle job's outputs and targets differ");
        std::vector<std::string> parts; // the split compile's file of each target
        if (const SplitObject* so = find_(input)) {
            for (const std::string& t : targets) {
                std::string arch = probe::bundle_entry_arch(t);
                if (t.starts_with("host-"))
                    parts.push_back(so->private_dir + "/host.o");
                else if (std::find(so->archs.begin(), so->archs.end(), arch) != so->archs.end())
                    parts.push_back(so->private_dir + "/" + safe_arch(arch) + ".o");
                else
                    break;
            }
        }
        if (parts.size() == targets.size()) {
            for (size_t k = 0; k < outs.size(); ++k)
                renamed_[outs[k]] = parts[k];
            return true;
        }
        Step s = base(StepKind::Unbundle, "HIP unbundle " + input + " for");
        std::map<std::string, std::string> names;
        for (size_t k = 0; k < outs.size(); ++k)
            names[outs[k]] =
                plan_.private_dir + "/u" + std::to_string(j) + "-" + std::to_string(k) + ".o";
        if (!rename(s, job, names)) return false;
        s.inputs.push_back(input);
        plan_.steps.push_back(std::move(s));
        return true;
    }

    /// The object embedding the fat binary: llvm-mc reads the driver's assembly
    /// from a pipe instead of its temporary .mcin file.
    bool fatbin_object(std::vector<std::string> job) {
        if (hipfb_.empty()) return fail("llvm-mc runs before the fat binary is made");
        for (char c : hipfb_)
            if (c == '\'' || c == '"' || c == '\\' || c == '%' || c == '\n')
                return fail("the fat binary's path needs quoting in assembly");
        size_t mcin = 0;
        for (size_t i = 1; i < job.size(); ++i)
            if (temp_at(job[i]) == 0 && job[i].ends_with(".mcin")) {
                job[i] = "-";
                ++mcin;
            }
        if (mcin != 1) return fail("llvm-mc does not read one assembly file");
        Step s = base(StepKind::FatbinObject, "HIP fatbin object");
        const std::string obj = plan_.private_dir + "/fatbin.o";
        if (!rename(s, job, {{probe::job_word_after(job, "-o"), obj}})) return false;
        if (s.outputs != std::vector<std::string>{obj})
            return fail("llvm-mc does not write one temporary object");
        s.inputs.push_back(hipfb_);
        std::string script =
            "printf '" + fatbin_assembly(hipfb_) + "' | " + compile::join_command(s.argv);
        s.argv = {"/bin/sh", "-c", script};
        plan_.steps.push_back(std::move(s));
        return true;
    }

    LinkPlan& plan_;
    std::string temp_;
    const FindSplitObject& find_;
    std::map<std::string, std::string> renamed_; ///< temporary file -> its name in the plan
    std::string hipfb_;
    bool final_ = false;
};

/// The first `-l` library of `argv` that no -L folder nor the system's library
/// folders hold now ("" when all are found). The driver looks for static
/// device libraries when it plans the link: one that the build makes later
/// would be missing from a plan made now.
std::string missing_library(const std::vector<std::string>& argv, const std::string& cwd) {
    std::vector<std::string> dirs, names;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        for (auto [flag, into] : {std::pair{"-L", &dirs}, {"-l", &names}}) {
            if (!w.starts_with(flag)) continue;
            if (w.size() > 2)
                into->push_back(w.substr(2));
            else if (i + 1 < argv.size())
                into->push_back(argv[++i]);
        }
    }
    for (const char* d : {"/usr/lib", "/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/lib",
                          "/usr/local/lib", "/usr/lib64", "/lib64"})
        dirs.emplace_back(d);
    for (const std::string& n : names) {
        std::vector<std::string> files;
        if (n.starts_with(":"))
            files = {n.substr(1)};
        else
            files = {"lib" + n + ".a", "lib" + n + ".so"};
        bool found = false;
        for (const std::string& d : dirs)
            for (const std::string& f : files)
                found = found || util::file_exists(compile::join_path(cwd, d + "/" + f));
        if (!found) return n;
    }
    return {};
}

} // namespace

LinkPlan make_link_plan(compile::LinkAnalysis a, const probe::DriverJobs& jobs,
                        const FindSplitObject& find, const std::string& private_dir) {
    LinkPlan plan;
    plan.analysis = std::move(a);
    if (!plan.analysis.decision.split()) return plan;
    plan.private_dir = private_dir.empty() ? plan.analysis.output + ".phc" : private_dir;
    if (jobs.clang_major >= 19) {
        // clang 19's driver writes the fat binary's assembly from the symbols
        // the host objects leave undefined (__hip_fatbin_<id>): it reads the
        // objects, which do not exist when the build is planned.
        plan.analysis.decision = {compile::Reason::LinkUnmodelled,
                                  "clang " + std::to_string(jobs.clang_major) +
                                      " derives the fat binary's object from the host objects' "
                                      "symbols, which the split does not model yet"};
        return plan;
    }
    Planner p(plan, jobs, find);
    if (!p.run(jobs.jobs)) {
        plan.steps.clear();
        plan.archs.clear();
        plan.analysis.decision = {compile::Reason::LinkUnmodelled, p.why};
    } else if (plan.archs.size() < 2) {
        plan.steps.clear();
        plan.analysis.decision = {compile::Reason::SingleArch,
                                  "the driver links fewer than two architectures"};
    }
    return plan;
}

Result<LinkPlan> plan_link(compile::LinkAnalysis a, const FindSplitObject& find,
                           const std::string& private_dir) {
    if (!a.decision.split()) {
        LinkPlan p;
        p.analysis = std::move(a);
        return p;
    }
    if (std::string lib = missing_library(a.command.argv, a.work_dir()); !lib.empty()) {
        LinkPlan p;
        p.analysis = std::move(a);
        p.analysis.decision = {compile::Reason::LinkUnmodelled,
                               "-l" + lib +
                                   " is not there yet: the driver looks for static "
                                   "device libraries when the link is planned"};
        return p;
    }
    probe::ProbeRequest req{a.command.env, a.command.argv, a.work_dir()};
    auto jobs = probe::run_driver_jobs(req);
    if (!jobs) return jobs.error();
    return make_link_plan(std::move(a), *jobs, find, private_dir);
}

} // namespace phc::split
