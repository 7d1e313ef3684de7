// regen's front end to the edge policy (edges/policy.h): what an edge of the
// manifest passes on, the names regen adds, and one edge planned and rendered.
#pragma once

#include "edges/policy.h"
#include "ninja/manifest.h"
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

/// Names of what regen adds: the policy's, renamed where `m` already uses one.
using Names = edges::Names;
/// What an original compile edge passes on to the edges that replace it.
using Carry = edges::Carry;
using SharedRules = edges::SharedRules;

/// `e` placed at the edge's line, unless it has a location of its own.
Error edge_error(const ninja::Manifest& m, const ninja::EdgeRef& edge, Error e);

/// Picks names that no rule or pool of `m` already uses.
Names unique_names(const ninja::Manifest& m);

/// Reads the carry-over of an edge (evaluating its rule's bindings).
Result<Carry> carry_of(const ninja::EdgeRef& edge);

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
    bool link = false;        ///< the edge is an RDC link (archs: its device links)
    std::string engine;       ///< split: the engine its device compiles go to, or ""
    std::string local_reason; ///< split: why they stay local although one was asked for
    /// split, --overlap-host with an engine: "icecc" when the host compile goes
    /// there too, else "local: WHY"; "" otherwise.
    std::string host;
    /// Split compiles: the longest chain of its edges by what they took when
    /// they last ran (.ninja_log; an edge without a time counts as long), to
    /// list the objects whose work takes longest to finish first.
    int64_t chain_ms = 0;
};

/// What the full way gives for one compile edge.
struct Rendered {
    EdgeDecision d;
    std::string text; ///< the split edges, when d.split
    std::string lead; ///< edges to list before every object's (edges::Edges::lead)
    /// Rules the edges use that are shared between objects: name and text, to
    /// declare once at the top of the manifest.
    SharedRules rules;
    /// Why the edge cannot be planned (e.g. a failed probe): regen fails. Not a
    /// reason for leaving it alone (those are decisions, in `d`).
    std::optional<Error> error;
};

/// The edges of a split RDC link replacing the edge `carry` came from
/// (edges::link_edges).
Rendered render_link(const split::LinkPlan& plan, const Carry& carry, const edges::Policy& policy);

/// The full way for one edge: analyse its evaluated `command`, probe the
/// compiler, plan (with --overlap-host when `overlap_host`), and render the
/// edges that replace the edge `carry` came from (edges::compile_edges).
/// `plan_out`, when given, receives the plan of a split edge.
Rendered render_split(std::string_view command, const compile::AnalyzeInput& in, const Carry& carry,
                      probe::ProbeCache& probes, const edges::Policy& policy, bool overlap_host,
                      split::Plan* plan_out = nullptr);

} // namespace phc::regen
