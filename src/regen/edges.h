// A split plan as ninja statements: the rules and pool regen adds once, and the
// device, bundle and host edges that replace one compile edge.
#pragma once

#include "ninja/manifest.h"
#include "ninja/statements.h"
#include "split/graph.h"
#include "split/link.h"
#include "split/plan.h"
#include "util/error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace phc::regen {

/// Names of what regen adds to a manifest (chosen so they do not clash).
struct Names {
    std::string device = "PHC_HIP_DEVICE";
    std::string bundle = "PHC_HIP_BUNDLE";
    std::string host = "PHC_HIP_HOST";
    std::string pool = "phc_hip_device";
    std::string args = "PHC_ARGS";     ///< prefix of file variables (a unique hash follows)
    std::string step = "PHC_HIP_STEP"; ///< link steps: $PHC_COMMAND, $PHC_DESC
    /// Not a name: --overlap-host, which the plans of every edge follow.
    bool overlap_host = false;
    /// When not empty, the command ("PHC deps-set SETS", quoted) that each device
    /// edge runs after its compile, with its depfile, so that its deps record
    /// is one header set (depsets.h).
    std::string deps_set;
    /// Not a name: the last durations of the build's edges (.ninja_log), by which
    /// each object's edges are listed critical path first; null for none.
    const split::Durations* durations = nullptr;
};

/// `e` placed at the edge's line, unless it has a location of its own.
Error edge_error(const ninja::Manifest& m, const ninja::EdgeRef& edge, Error e);

/// Picks names that no rule or pool of `m` already uses.
Names unique_names(const ninja::Manifest& m);

/// The rules (and, when device_jobs > 0, the device pool) the split edges use.
std::vector<ninja::NewStatement> split_rules(const Names& names, int device_jobs);

/// What an original compile edge passes on to the edges that replace it.
struct Carry {
    std::vector<std::string> outputs, implicit_outputs;
    std::vector<std::string> inputs, implicit, order_only, validations;
    std::string pool;    ///< the edge's pool name, "" for none
    std::string deps;    ///< evaluated `deps`
    std::string depfile; ///< evaluated `depfile` (unescaped)
    std::string restat;  ///< evaluated `restat`
};

/// Reads the carry-over of an edge (evaluating its rule's bindings).
Result<Carry> carry_of(const ninja::EdgeRef& edge);

/// The device, bundle and host edges for `plan`, replacing the edge `carry`
/// came from. Device edges go to the device pool when `device_pool`. With
/// `shared`, output is more compact: the bundle edge uses a rule shared by all
/// objects with the same bundle command, and the start the device and host
/// commands share is a file variable named by its text, shared by all objects
/// with the same start (both added to `shared`; the caller declares each name
/// once, before any use). With `chain_ms`, the longest chain of the edges by
/// names.durations (split::GraphEdge::chain_ms) is stored there.
std::vector<ninja::NewStatement> split_edges(const split::Plan& plan, const Carry& carry,
                                             const Names& names, bool device_pool,
                                             std::vector<ninja::NewStatement>* shared = nullptr,
                                             int64_t* chain_ms = nullptr);

/// The decision for one edge whose command looks like a HIP compile.
struct EdgeDecision {
    std::string object; ///< the edge's first output
    bool split = false;
    std::string code;               ///< reason code ("split", "single-arch", ...)
    std::string text;               ///< human explanation
    std::vector<std::string> archs; ///< architectures, bundle order, when split
    /// An RDC compile split with its files in "<object>.phc/" (<arch>.o bitcode,
    /// host.o), where a split link reads them.
    bool rdc = false;
    bool link = false; ///< the edge is an RDC link (archs: its device links)
    /// Split compiles: the longest chain of its edges by what they took when
    /// they last ran (.ninja_log; an edge without a time counts as long), to
    /// list the objects whose work takes longest to finish first.
    int64_t chain_ms = 0;
};

/// Rules and variables shared between objects: name and text, to declare once at the top.
using SharedRules = std::vector<std::pair<std::string, std::string>>;

/// What the full way gives for one compile edge.
struct Rendered {
    EdgeDecision d;
    std::string text; ///< the split edges, when d.split
    /// Rules the edges use that are shared between objects: name and text, to
    /// declare once at the top of the manifest.
    SharedRules rules;
    /// Why the edge cannot be planned (e.g. a failed probe): regen fails. Not a
    /// reason for leaving it alone (those are decisions, in `d`).
    std::optional<Error> error;
};

/// The edges of a split RDC link replacing the edge `carry` came from: each
/// step keeps its own inputs; the host link takes over the original outputs,
/// inputs (as implicit ones), order-only dependencies, restat and pool; device
/// links go to the device pool when `device_pool`.
Rendered render_link(const split::LinkPlan& plan, const Carry& carry, const Names& names,
                     bool device_pool);

/// The full way for one edge: analyse its evaluated `command`, probe the
/// compiler, plan, and render the edges that replace the edge `carry` came
/// from. `plan_out`, when given, receives the plan of a split edge.
Rendered render_split(std::string_view command, const compile::AnalyzeInput& in, const Carry& carry,
                      probe::ProbeCache& probes, const Names& names, bool device_pool,
                      split::Plan* plan_out = nullptr);

} // namespace phc::regen
