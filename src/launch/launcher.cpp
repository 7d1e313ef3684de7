#include "launch/launcher.h"

#include "launch/output.h"
#include "launch/trace.h"
#include "split/reference.h"
#include "util/elf.h"
#include "util/file.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::launch {

namespace {

/// Appends one trace line per finished job; warns once if the log cannot be written.
class Tracer {
public:
    /// `path` empty: tracing is off.
    explicit Tracer(const std::string& path) : path_(path) {}
    /// Logs `r`, a run of `job`, under `name` if it ran.
    void record(const JobResult& r, const std::string& name, const Job& job) {
        if (path_.empty() || r.state == JobResult::State::NotRun || warned_) return;
        if (auto st = append_trace(path_, trace_line(r.start_ms, r.end_ms, name,
                                                     fmt::format("{}", fmt::join(job.argv, " "))));
            !st) {
            write_all(2, "phc-launch: warning: " + st.error().text() + "\n");
            warned_ = true;
        }
    }

private:
    const std::string& path_;
    bool warned_ = false;
};

/// The output of a wave of several jobs (the device compiles), held back
/// until the host compile's is known, so that a diagnostic both print is
/// shown once (merge_outputs).
class HeldOutput {
public:
    /// Holds what the jobs of `wave` that ran to the end printed.
    void hold(const std::vector<Job>& wave, const RunReport& rep) {
        flush();
        for (size_t i = 0; i < wave.size(); ++i) {
            const JobResult& r = rep.jobs[i];
            if (r.state != JobResult::State::Exited && r.state != JobResult::State::SpawnFailed) {
                complete_ = false;
                continue; // stopped by us, or never ran: its output is not news
            }
            outs_.push_back({wave[i].label, r.out});
            errs_.push_back({wave[i].label, r.err});
        }
    }
    /// Prints one job's output: with what is held when it is the host
    /// compile's (or prints nothing), else after it.
    void print(const Job& job, const JobResult& r) {
        if (r.state == JobResult::State::Stopped) return flush();
        if (job.label != kHostLabel && r.out.empty() && r.err.empty()) return;
        if (job.label != kHostLabel || outs_.empty()) {
            flush();
            write_all(1, r.out);
            write_all(2, r.err);
            return;
        }
        outs_.push_back({job.label, r.out});
        errs_.push_back({job.label, r.err});
        flush();
    }
    /// Prints what is held.
    void flush() {
        if (outs_.empty()) return;
        write_all(1, merge_outputs(outs_, complete_));
        write_all(2, merge_outputs(errs_, complete_));
        outs_.clear();
        errs_.clear();
        complete_ = true;
    }

private:
    std::vector<LabeledOutput> outs_, errs_;
    bool complete_ = true;
};

/// Runs one job (bundle or host) in the implicit slot, printing its output
/// through `held`.
RunReport run_one(const Job& job, Jobserver& js, SignalPipe& signals, const LaunchOptions& opt,
                  Tracer& tracer, const std::string& trace_name, HeldOutput& held) {
    RunOptions ro;
    ro.grace_ms = opt.grace_ms;
    ro.on_done = [&](size_t, const JobResult& r) { tracer.record(r, trace_name, job); };
    RunReport rep = run_jobs({job}, js, signals, ro);
    held.print(job, rep.jobs[0]);
    return rep;
}

/// The outcome of a phase that did not succeed, or nothing (exit 0) if it did.
Outcome outcome_of(const RunReport& rep) {
    if (rep.signal) return {128 + rep.signal, rep.signal};
    if (rep.first_failure >= 0) {
        int status = rep.jobs[static_cast<size_t>(rep.first_failure)].exit_status();
        return {status == 0 ? 1 : status, 0};
    }
    return {};
}

/// PHC_CHECK=1: the object against the driver's own; an error line when they
/// differ, a warning when the driver differs from itself.
Outcome compare_with_reference(const SplitJobs& jobs) {
    auto mine = util::read_file(jobs.object);
    if (!mine) {
        write_all(2, "phc-launch: error: " + mine.error().text() + "\n");
        return {1, 0};
    }
    auto v = split::compare_with_driver(*mine, jobs.check, {}, jobs.reference, jobs.private_dir);
    if (!v) v = split::Verdict{split::Verdict::Kind::Failed, v.error().text()};
    if (v->kind == split::Verdict::Kind::Identical) return {};
    if (v->kind == split::Verdict::Kind::Unstable) {
        write_all(2, "phc-launch: warning: " + jobs.name + " (PHC_CHECK=1): " + v->text + "\n");
        return {};
    }
    write_all(2, "phc-launch: error: " + jobs.name +
                     " is not the driver's own compile (PHC_CHECK=1): " + v->text + "\n");
    return {1, 0};
}

/// Removes the command's outputs after a failure, as the compiler would: only
/// regular files (a failed `-o /dev/null` compile must not delete /dev/null).
void remove_outputs(const std::vector<std::string>& outputs) {
    for (const auto& f : outputs) {
        struct stat st {};
        if (::lstat(f.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(f.c_str());
    }
}

} // namespace

Outcome run_split(const SplitJobs& jobs, Jobserver& js, SignalPipe& signals,
                  const LaunchOptions& opt) {
    Tracer tracer(opt.trace_path);
    HeldOutput held;
    Outcome o;
    for (const std::vector<Job>& wave : jobs.waves) {
        if (wave.size() == 1) {
            // The host compile's line is the object's own, as ninja would log it.
            const std::string name =
                wave[0].label == kHostLabel ? jobs.name : jobs.name + "::" + wave[0].label;
            o = outcome_of(run_one(wave[0], js, signals, opt, tracer, name, held));
        } else {
            RunOptions ro;
            ro.grace_ms = opt.grace_ms;
            ro.on_done = [&](size_t i, const JobResult& r) {
                tracer.record(r, jobs.name + "::" + wave[i].label, wave[i]);
            };
            RunReport rep = run_jobs(wave, js, signals, ro);
            if (!rep.signal) held.hold(wave, rep);
            o = outcome_of(rep);
        }
        if (o.exit_code == 0) {
            if (int s = signals.first_forwarded()) o = {128 + s, s};
        }
        if (o.exit_code != 0) break;
    }
    held.flush();
    if (o.exit_code == 0 && !jobs.check.argv.empty()) {
        o = compare_with_reference(jobs);
        // A stop signal during the comparison is the command's outcome.
        if (int sig = signals.first_forwarded()) o = {128 + sig, sig};
    }
    if (o.exit_code != 0) remove_outputs(jobs.outputs);
    return o;
}

} // namespace phc::launch
