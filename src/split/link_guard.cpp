// The plan-time guard of an RDC link (link.h's link_jobs_differ): the jobs the
// plan's steps run against the driver's own, with guard.h's comparison. What
// the plan changes on purpose is mapped on both sides, each from what it
// knows: an unbundled part of an object whose compile was split is read from
// that compile's file of the same architecture (the original: the unbundle
// job's output for that target; the plan: the split object's file), and the
// fat binary's assembly is piped or asked for when the step runs (the
// original's temporary .mcin). Every other word of every job must be carried.
#include "compile/command.h"
#include "compile/shell.h"
#include "split/guard.h"
#include "split/link.h"
#include "split/wrapper_link.h"

#include <algorithm>
#include <utility>

namespace phc::split {

namespace {

constexpr const char* kMcin = "@MCIN";

/// Names of files and what they stand for, as rename_files() takes them.
using Names = std::vector<std::pair<std::string, std::string>>;

/// The token of a split object's part: its input's name and the architecture
/// ("host" for the host object), the same on both sides.
std::string part_token(const std::string& input, const std::string& arch) {
    return "@PART<" + input + "><" + arch + ">";
}

/// The job a step runs: its argv, or for a shell script (the fat binary's
/// object) the command after its last operator. Empty when it cannot be read.
Job step_job(const Step& s) {
    if (s.argv.size() != 3 || s.argv[0] != "/bin/sh" || s.argv[1] != "-c") return s.argv;
    compile::ShellSplit split = compile::split_shell(s.argv[2]);
    if (!split.unsupported.empty()) return {};
    Job job;
    for (const compile::ShellToken& t : split.tokens) {
        if (t.kind == compile::ShellToken::Kind::Operator)
            job.clear();
        else
            job.push_back(t.text);
    }
    return job;
}

/// The device code the wrapper extracts from each stand-in object in its dry
/// run ("<temp>/phcobj<k>-<triple>-<arch>-<hash>.o"), named for the input and
/// the architecture its name says.
Names extracted_parts(const WrapperRun& run) {
    Names out;
    const std::string triple = "-amdgcn-amd-amdhsa-";
    for (const Job& job : run.jobs)
        for (const std::string& w : job) {
            if (!w.starts_with(run.temp_dir + "/phcobj")) continue;
            std::string name = w.substr(run.temp_dir.size() + 7);
            size_t used = 0, k = 0;
            while (used < name.size() && used < 9 && name[used] >= '0' && name[used] <= '9')
                k = k * 10 + static_cast<size_t>(name[used++] - '0');
            if (used == 0 || k >= run.inputs.size()) continue;
            name = name.substr(used);
            size_t hash = name.rfind('-');
            if (!name.starts_with(triple) || hash == std::string::npos || hash < triple.size())
                continue;
            out.emplace_back(
                w, part_token(run.inputs[k], name.substr(triple.size(), hash - triple.size())));
        }
    return out;
}

bool is_unbundle(const Job& job) {
    return !job.empty() && compile::base_name(job[0]).starts_with("clang-offload-bundler") &&
           std::find(job.begin(), job.end(), "-unbundle") != job.end();
}

} // namespace

std::string link_jobs_differ(const LinkPlan& plan, const probe::DriverJobs& driver,
                             const FindSplitObject& find, const WrapperRun* wrapper,
                             const WrapperRun* host) {
    // Each split object's files, named for what they hold.
    Names names;
    for (const compile::ParsedArg& p : plan.analysis.args) {
        const SplitObject* so = p.input ? find(p.value) : nullptr;
        if (!so) continue;
        names.emplace_back(so->private_dir + "/host.o", part_token(p.value, "host"));
        for (const std::string& arch : so->archs)
            names.emplace_back(so->private_dir + "/" + safe_arch(arch) + ".o",
                               part_token(p.value, arch));
    }
    JobSet original, split;
    original.temp_dirs.push_back(driver.temp_dir);
    // The original: the driver's jobs; an unbundle of a split object is the
    // split compile's files (its outputs named for their targets).
    Names unbundled;
    for (const Job& job : driver.jobs) {
        const std::string input = probe::job_value(job, "-input=");
        if (is_unbundle(job) && find(input)) {
            std::vector<std::string> outs;
            for (const std::string& w : job)
                if (w.starts_with("-output=")) outs.push_back(w.substr(8));
            const std::vector<std::string> targets = probe::bundle_targets(job);
            if (outs.size() == targets.size()) {
                for (size_t k = 0; k < outs.size(); ++k)
                    unbundled.emplace_back(
                        outs[k], part_token(input, targets[k].starts_with("host-")
                                                       ? "host"
                                                       : probe::bundle_entry_arch(targets[k])));
                continue;
            }
        }
        original.jobs.push_back(job);
    }
    rename_files(original.jobs, unbundled);
    for (Job& job : original.jobs) {
        for (std::string& w : job)
            if (w.starts_with(driver.temp_dir + "/") && w.ends_with(".mcin")) w = kMcin;
    }
    // The split: each step's job, its outputs the files it shares.
    for (const Step& s : plan.steps) {
        Job job = step_job(s);
        if (job.empty()) return "the fat binary's object step cannot be read back";
        if (s.kind == StepKind::FatbinObject)
            for (std::string& w : job)
                if (w == "-" || w == plan.private_dir + "/fatbin.mcin") w = kMcin;
        if (s.kind == StepKind::HostLink && wrapper) {
            // The wrapper's own jobs, as it says it runs them given the images.
            if (!host)
                return "clang-linker-wrapper: its jobs given the device links' images are not "
                       "known";
            // With target IDs the split bundles by target ID in a step of its
            // own, compared with the wrapper's bundler job below; the bundle the
            // wrapper makes given the images is then that one, but for the
            // features its entries' names leave out (wrapper_link.h).
            auto fatbin = std::find_if(plan.steps.begin(), plan.steps.end(),
                                       [](const Step& f) { return f.kind == StepKind::Fatbin; });
            int bundles = 0;
            for (const Job& h : host->jobs) {
                if (fatbin != plan.steps.end() && !h.empty() &&
                    compile::base_name(h[0]).starts_with("clang-offload-bundler")) {
                    if (std::string d = bundle_jobs_differ(h, fatbin->argv); !d.empty()) return d;
                    ++bundles;
                    continue;
                }
                split.jobs.push_back(h);
            }
            if (fatbin != plan.steps.end() && bundles != 1)
                return "clang-linker-wrapper given the images bundles " + std::to_string(bundles) +
                       " times, not once";
            split.temp_dirs.push_back(host->temp_dir);
            continue;
        }
        split.jobs.push_back(std::move(job));
        for (const std::string& out : s.outputs)
            if (out != plan.analysis.output) split.files.push_back(out);
    }
    if (wrapper) {
        // The new driver: the wrapper's jobs stand for its one job; its device
        // links read what it extracts from each (stand-in) object.
        original.jobs.erase(std::remove_if(original.jobs.begin(), original.jobs.end(),
                                           [](const Job& j) {
                                               return !j.empty() &&
                                                      compile::base_name(j[0]).starts_with(
                                                          "clang-linker-wrapper");
                                           }),
                            original.jobs.end());
        std::vector<Job> jobs = wrapper->jobs;
        rename_files(jobs, extracted_parts(*wrapper));
        original.jobs.insert(original.jobs.end(), jobs.begin(), jobs.end());
        original.temp_dirs.push_back(wrapper->temp_dir);
    }
    rename_files(split.jobs, names);
    return compare_jobs(original, split);
}

} // namespace phc::split
