// `phc-ninja regen`: rewrite a configured Ninja build so that every multi-arch
// HIP compile becomes device, bundle and host edges that ninja schedules itself.
#pragma once

#include "probe/probe.h"
#include "regen/edges.h"
#include "split/guard.h"
#include "split/select.h"
#include "util/error.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace phc::regen {

/// What the user asked for. Paths are relative to the build directory, which
/// must be the current directory when run() is called (ninja's convention).
struct Options {
    std::string manifest = "build.ninja"; ///< the manifest to rewrite (-f)
    /// Write here instead of in place (-o); "" = in place, "-" = stdout (refused
    /// when included files need rewriting). Never a file regen reads or writes
    /// besides it: the manifest's files, CMake's original (FILE.cmake), `<file>.phc`.
    std::string output;
    int device_jobs = 0;  ///< >0: device edges share a pool of this depth
    bool dry_run = false; ///< decide and report, write nothing
    /// A compile whose compiler cannot be probed fails the run; without it the
    /// edge is left alone ("probe-failed") and the rest is split.
    bool strict = false;
    int threads = 0;       ///< planning threads; 0 = one per core, up to 8
    std::string self;      ///< absolute path of phc-ninja, for the re-run hook
    std::string build_dir; ///< absolute build directory, for the re-run hook
    /// Asks the compiler, with the plan-time guard (tests give recorded results).
    probe::Prober prober = split::guarded_prober();
    split::Selection select;   ///< which objects to split (--only, --skip)
    bool overlap_host = false; ///< host compiles beside the device compiles (plan.h)
    /// Distributed device compiles (split::PlanOptions::distribute, --distribute);
    /// nullopt: where the compile's launcher is icecc or distcc.
    std::optional<split::Engine> distribute;
    int remote_jobs = 0; ///< depth of the distributed compiles' pool (--remote-jobs)
    /// The steps' memory budget (--memory, checked), kept in .phc-ninja/memory
    /// for the steps to read; nullopt: none kept (PHC_MEMORY or the default).
    std::optional<std::string> memory;
};

/// What a run did.
struct Summary {
    size_t objects_split = 0;
    size_t device_edges = 0;
    size_t links_split = 0;                    ///< RDC links split per architecture
    size_t device_links = 0;                   ///< their device-link edges
    std::map<std::string, size_t> distributed; ///< device edges sent away, by engine
    /// Split objects whose device compiles stay local although an engine was
    /// asked for, by reason.
    std::map<std::string, size_t> kept_local;
    size_t other_edges = 0;             ///< edges that are not HIP compiles
    std::map<std::string, size_t> left; ///< HIP-looking edges left alone, by reason code
    size_t probes_run = 0;
    /// Deps records of split edges put back into .ninja_deps after a direct
    /// `cmake` run had dropped them (records.h).
    size_t deps_restored = 0;
    /// The project's step history (sched/history.h) that ordered the edges of
    /// a build directory without a .ninja_log; "" when none did.
    std::string history;
    /// No .ninja_log and no history: edges listed by their sources' sizes
    /// (split::guess_durations).
    bool guessed_order = false;
    /// No .ninja_log and no history, --overlap-host: the host compiles listed
    /// before every device compile (edges::FirstOrder::Hosts).
    bool hosts_first = false;
    std::vector<EdgeDecision> decisions; ///< every HIP-looking edge, in manifest order
    std::vector<std::string> written;    ///< files written (or that would be, on dry run)
    /// Top manifests rewritten: the manifest, and with CMake's Ninja Multi-Config
    /// generator every other build-<Config>.ninja (and build.ninja) CMake wrote.
    std::vector<std::string> manifests;
    /// Something the user should know that did not stop the run (one line each,
    /// without a "warning:" prefix): probes kept in memory only, ...
    std::vector<std::string> warnings;
    /// --overlap-host was asked but no objcopy keeps the bytes: why
    /// (probe::objcopy_refusal); the host compiles then run after the bundle.
    std::string overlap_refused;
};

/// Loads the manifest (from CMake's saved original when build.ninja was already
/// rewritten), plans every edge and writes the result atomically (util::
/// write_file_atomic: a device node or fifo is written through). Nothing is
/// written when any step fails; an output that is an input, or that cannot be
/// written, is refused before any work. In place in a build of CMake's Ninja
/// Multi-Config generator, the other top manifests CMake wrote (its generator
/// edge's build.ninja and build-<Config>.ninja) are rewritten in the same run,
/// so the included files they share (CMakeFiles/common.ninja) get one hook.
/// The hook re-runs regen after CMake; until that regen succeeds, each top
/// manifest is a stand-in (kMarker, kRetryRule) whose only edge retries it, so
/// every ninja run fails loudly instead of building unsplit.
Result<Summary> run(const Options& opts);

/// The one-line summary regen prints: what was split and left alone, or, when
/// no edge is a multi-architecture HIP compile (split::not_multi_arch), "no
/// multi-architecture HIP compiles among N edges" (N: every edge looked at,
/// phony and generator edges aside).
std::string summary_line(const Summary& s, bool dry_run);

} // namespace phc::regen
