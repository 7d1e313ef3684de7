// The plan-time guard: the split's own jobs against the driver's.
//
// A split is trusted only when the jobs its steps make the driver run are the
// jobs the original compile makes it run, argument for argument. The guard asks
// the driver for both (`-###` of the original with the split's CUID, `-###` of
// each step that runs the driver, the steps that run a tool directly as they
// are, and the new driver's clang-linker-wrapper expanded by its own
// `--dry-run`) and compares them after mapping only what the split changes on
// purpose:
//   - temporary files and the split's own intermediate files become tokens
//     named by the job that writes them (so which job reads whose output is
//     compared too);
//   - device compile jobs' depfile options (each device step writes a depfile
//     of its own; they name side outputs and change no object);
//   - the wrapper's `-dumpdir` (it names auxiliary files only);
//   - --overlap-host: the host step's object and placeholder stand for the
//     compile's output and the bundle the embed step puts in.
// It does not depend on knowing any option: an argument of an original job that
// the split's jobs drop, add or change is a difference, whatever it is.
#pragma once

#include "probe/probe.h"
#include "split/plan.h"

#include <string>
#include <vector>

namespace phc::split {

/// One job as the guard compares it: its words, with the files it shares with
/// other jobs of its set already mapped (see canonical_jobs).
using Job = std::vector<std::string>;

/// A set of jobs that together make one compile's outputs, in the order they
/// run. `temp_dirs`: the folders of temporary files (each -### ran with its
/// own TMPDIR); `files`: the split's intermediate files (step outputs that
/// are not the compile's).
struct JobSet {
    std::vector<Job> jobs;
    std::vector<std::string> temp_dirs;
    std::vector<std::string> files;
};

/// Each job of `set` as one string: purposeful differences mapped (see the
/// file comment), each shared file replaced by "@OUT" in the job that first
/// names it and by "@IN<hash of that job>" elsewhere.
std::vector<std::string> canonical_jobs(const JobSet& set);

/// "" when the two sets are the same multiset of canonical jobs; else the
/// first difference, naming the job and the argument ("clang-offload-bundler:
/// -compress not carried").
std::string compare_jobs(const JobSet& original, const JobSet& split);

/// The guard for one compile: "" when the split's jobs are the driver's, else
/// why not (a job, an argument, or a step the driver refused). Plans `a` (whose
/// decision must be Split and probe applied) the way regen does, and with
/// `overlap_host` also the --overlap-host shape. Runs the driver several times.
std::string jobs_differ(const compile::Analysis& a, const probe::ProbeResult& probe,
                        bool overlap_host);

/// run_probe followed by the guard (ProbeResult::jobs_differ), for a compile
/// the command line allows to split: the prober every front end uses.
Result<probe::ProbeResult> run_guarded_probe(const probe::ProbeRequest& req);

/// A Prober whose run is run_guarded_probe.
probe::Prober guarded_prober();

} // namespace phc::split
