// From a compilation database to the text of a standalone ninja file: split
// HIP compiles become device/bundle/host edges, everything else one plain
// compile edge; every edge runs in its entry's directory and has header deps.
#pragma once

#include "gen/compdb.h"
#include "probe/probe.h"
#include "split/graph.h"
#include "split/guard.h"
#include "split/select.h"
#include "util/error.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace phc::gen {

/// What `phc-ninja gen` was asked for.
struct GenOptions {
    std::string ninja_path;    ///< the file to write; absolute
    int device_jobs = 0;       ///< depth of the device-compile pool; 0: no pool
    bool overlap_host = false; ///< host compiles beside the device compiles (plan.h)
    /// Distributed device compiles (split::PlanOptions::distribute); nullopt:
    /// where the entry's launcher is icecc or distcc.
    std::optional<split::Engine> distribute;
    int remote_jobs = 0;        ///< depth of the distributed compiles' pool
    std::string private_dir;    ///< absolute dir for split intermediates and the probe cache
    std::string generated_from; ///< the database's name, for the header comment
    /// Asks the compiler, with the plan-time guard (tests give recorded results).
    probe::Prober prober = split::guarded_prober();
    split::Selection select; ///< which objects to split (--only, --skip)
    /// What each edge took when the ninja file was last built (its .ninja_log):
    /// each object's edges, and the objects, are written critical path first
    /// (split::step_edges); empty keeps the database's order, unless
    /// guess_order.
    split::Durations durations;
    /// Without durations, the split objects' edges and the objects by their
    /// sources' sizes (edges::Policy::guess_order, PHC_FIRST_ORDER).
    bool guess_order = false;
    /// Without durations: host compiles that wait for nothing first
    /// (edges::Policy::hosts_first, PHC_FIRST_ORDER=hosts).
    bool hosts_first = false;
    /// The step runner of the split edges (edges::Policy::step), "" for none.
    std::string step;
    /// When `sets` is not empty, split edges record header sets
    /// (edges::Policy::sets) in `sets_file` (an absolute path), which the
    /// ninja file includes.
    std::string sets;
    std::string sets_file;
    /// An entry whose compiler cannot be probed fails the run (its index and
    /// the reason); without it the entry is left alone ("probe-failed").
    bool strict = false;
};

/// What became of one entry, for `gen --explain`.
struct EntryDecision {
    std::size_t index = 0;          ///< the entry's index in the database
    std::string object;             ///< its output, as the ninja file spells it
    bool split = false;             ///< device/bundle/host edges; else one plain edge
    std::string code;               ///< reason code ("split", "single-arch", "probe-failed", ...)
    std::string text;               ///< human explanation
    std::vector<std::string> archs; ///< architectures, bundle order, when split
    std::string engine;             ///< split: the engine its device compiles go to, or ""
    std::string local_reason;       ///< split: why they stay local although one was asked for
    /// split, --overlap-host with an engine: "icecc" when the host compile goes
    /// there too, else "local: WHY"; "" otherwise.
    std::string host;
};

/// The generated file and what went into it.
struct Generated {
    std::string text; ///< the whole ninja file
    std::size_t entries = 0;
    std::size_t split = 0;                ///< entries turned into device/bundle/host edges
    std::size_t plain = 0;                ///< entries kept as one compile edge
    std::size_t edges = 0;                ///< build statements written
    std::size_t distributed = 0;          ///< device compiles sent to an engine
    std::vector<std::string> notes;       ///< entries left alone for a reason worth telling
    std::vector<EntryDecision> decisions; ///< every entry, in database order
};

/// Builds the ninja text for `db`. Deterministic: the same database and
/// options give the same bytes.
Result<Generated> generate(const Database& db, const GenOptions& options);

} // namespace phc::gen
