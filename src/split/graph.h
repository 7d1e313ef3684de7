// A plan as a graph of build edges: the one place that decides how a plan's
// steps connect. regen and gen both start from it and add only their policy
// (rule names, how commands are spelled, what the original edge passes on).
#pragma once

#include "split/plan.h"

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace phc::split {

/// One edge of a plan: a step and its files as the front end spells them.
struct GraphEdge {
    const Step* step = nullptr;
    /// The edge writes the plan's object (the original compile's output): it
    /// takes over the original edge's outputs, depfile and validations.
    bool final = false;
    /// The step reads files no other step writes (the source): it takes over
    /// the original edge's inputs and order-only dependencies.
    bool external = false;
    std::vector<std::string> outputs;  ///< the step's outputs
    std::vector<std::string> inputs;   ///< explicit inputs
    std::vector<std::string> implicit; ///< implicit inputs (other steps' outputs it reads)
    std::string depfile;               ///< the step's depfile, or ""
    /// With last durations: the longest chain of edges from this one to the
    /// end of the plan, its own time included (milliseconds; an edge without
    /// a time counts kUnknownMs); 0 without durations.
    int64_t chain_ms = 0;
};

/// What an edge without a last duration counts as: long, so that new work starts first.
inline constexpr int64_t kUnknownMs = int64_t{1} << 40;

/// What the edge writing `output` (as the ninja file spells it) took last
/// time, or kUnknownMs.
inline int64_t last_ms(const std::unordered_map<std::string, int64_t>& last,
                       const std::string& output) {
    auto it = last.find(output);
    return it == last.end() ? kUnknownMs : it->second;
}

/// How a front end spells a path of a step (relative to the step's cwd) in its
/// ninja file.
using SpellPath = std::function<std::string(const Step&, const std::string&)>;

/// How long each output's edge took when it last ran (milliseconds; from
/// .ninja_log), by the output's spelling in the ninja file.
using Durations = std::unordered_map<std::string, int64_t>;

/// The edges of `steps`, in order. A step's inputs that other steps write
/// become dependencies on those edges: explicit inputs when the step reads
/// nothing else (a bundle), implicit ones beside its external inputs (a host
/// compile reading the source and the bundle). The edge writing `object`
/// (relative to `cwd`) is the final one.
/// With `last`, the edges are listed by the longest chain each one starts
/// (chain_ms), longest first, ties in step order: ninja 1.11 starts the ready
/// edge it read first, so this is critical-path-first list scheduling: the
/// architecture whose compile and code generation take longest starts first,
/// and an overlapped host compile that takes longer than the device code
/// starts before it. ninja >= 1.12 ranks ready edges by its own priority first
/// (the longest chain counted in edges, each non-phony edge weighing 1:
/// build.cc's EdgeWeightHeuristic), and this order only breaks its ties.
/// Edges without a time count as long.
std::vector<GraphEdge> step_edges(const std::vector<Step>& steps, const std::string& cwd,
                                  const std::string& object, const SpellPath& spell,
                                  const Durations* last = nullptr);

/// A time for each edge of `plan` that needs no history, for a build with no
/// .ninja_log and no step history (the first build of a fresh build
/// directory): each compile step counts the size of its source file in bytes
/// (a larger source is guessed to compile longer; a missing one counts as
/// kUnknownMs, long), a local preprocess step a tenth of that, every other
/// step 1. Only an order follows from it: plan_edges() and the objects' order.
Durations guess_durations(const Plan& plan, const SpellPath& spell);

/// step_edges() of a split compile plan, whose final edge writes its object.
std::vector<GraphEdge> plan_edges(const Plan& plan, const SpellPath& spell,
                                  const Durations* last = nullptr);

} // namespace phc::split
