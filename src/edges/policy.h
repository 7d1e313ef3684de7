// The one edge policy: how a split plan becomes ninja statements, for regen
// (edges that replace one edge of CMake's manifest) and gen (edges for one
// entry of a compilation database) alike. The front ends differ only in what
// they pass in: how a step's paths are spelled (Policy::spell), what the
// original compile hands on (Carry) and the names of the rules (Names).
//
// For one object the policy writes, in this order:
//   - the object's device rule, when one command template verifiably fits
//     every architecture (the edges then bind only PHC_ARCH, PHC_SAFE);
//     otherwise each device edge carries its own command;
//   - the start the device and host commands share (compiler, -D, -I, flags),
//     once, as a file variable named by its text, shared with every object of
//     the same start;
//   - the bundle edge by a rule shared by every object with the same bundle
//     command;
//   - each step kind's bindings: device edges carry the original inputs and
//     pool, the host edge the original outputs, inputs, pool, depfile, deps
//     and restat, with the bundle as an implicit input;
//   - distributed device compiles (split::Plan::engine): per architecture a
//     preprocess edge (local, reading the source, writing the depfile) by the
//     object's preprocess rule, and a compile edge reading only its output,
//     by the object's remote rule, in the remote pool; the bundle is never
//     wrapped;
//   - with a step runner (Policy::step), every command runs under
//     `phc-ninja step --kind KIND [OPTIONS] $out -- COMMAND` (sched/): the
//     runner is in the rules, so the edges bind only what differs
//     (PHC_OPTS: the step's folder and environment; PHC_KIND on the generic
//     step rule), and the memory estimates it reads are no part of any command;
//   - with header sets too (Policy::sets), the runner of each device and
//     gcc-deps host command makes the depfile's list one header set once the
//     compile succeeded, so that ninja records one set name instead of every
//     header (depsets/depsets.h).
#pragma once

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

namespace phc::edges {

/// Names of the rules and pool the split edges use (regen picks ones that do
/// not clash with the manifest's).
struct Names {
    std::string device = "PHC_HIP_DEVICE";
    std::string bundle = "PHC_HIP_BUNDLE";
    std::string host = "PHC_HIP_HOST";
    std::string pool = "phc_hip_device";
    std::string remote_pool = "phc_hip_remote"; ///< distributed device compiles (--remote-jobs)
    std::string args = "PHC_ARGS";     ///< prefix of file variables (a unique hash follows)
    std::string step = "PHC_HIP_STEP"; ///< link and embed steps: $PHC_COMMAND, $PHC_DESC
};

/// How a front end wants its edges.
struct Policy {
    Names names;
    bool device_pool = false; ///< device edges go to names.pool (--device-jobs)
    /// Distributed device compiles (split::Plan::engine) go to names.remote_pool
    /// (--remote-jobs); their preprocess edges are local, as device edges.
    bool remote_pool = false;
    /// What the front end plans with (split::PlanOptions::distribute), carried
    /// here to the planning threads with the rest of the policy.
    std::optional<split::Engine> distribute;
    /// When not empty, the step runner every command runs under: "PHC step
    /// --records DIR" (shell words, quoted), with DIR absolute; "": commands
    /// run as they are (and without header sets).
    std::string step;
    /// With `step`: the header sets file (depsets/depsets.h) into which the
    /// runner of each device edge, and each host edge with gcc deps, makes
    /// its depfile's list, so that its deps record is one header set. Only
    /// for steps that run where ninja runs (an empty cwd).
    std::string sets;
    /// The last durations of the build's edges (.ninja_log), by which each
    /// object's edges are listed critical path first; null for none.
    const split::Durations* durations = nullptr;
    /// Without durations, list each object's edges by split::guess_durations
    /// (its source's size) instead of the plan's order.
    bool guess_order = false;
    /// Without durations (a first build): an object's host compile that waits
    /// for no other edge (--overlap-host) goes to Edges::lead, which the
    /// caller lists before every object's other edges. The host compiles are
    /// the longest steps and need nothing else: started first, they no longer
    /// end the build, whatever the order of the objects.
    bool hosts_first = false;
    /// How a step's path (relative to the step's cwd) is spelled in the ninja
    /// file; null: the cwd joined with the path (regen: ninja runs where the
    /// build's commands start).
    split::SpellPath spell;
};

/// What the original compile passes on to the edges that replace it: an edge
/// of CMake's manifest (regen/edges.h: carry_of), or a database entry (gen).
struct Carry {
    std::vector<std::string> outputs, implicit_outputs;
    std::vector<std::string> inputs, implicit, order_only, validations;
    std::string pool;    ///< the edge's pool name, "" for none
    std::string deps;    ///< evaluated `deps` of the host edge ("gcc", or "" to read in place)
    std::string depfile; ///< the host edge's `depfile`, as ninja reads it (unescaped)
    std::string restat;  ///< evaluated `restat`
    /// Shell text around the host step's command (outside its runner, in
    /// ninja's folder; both name absolute paths): before it (gen: making the
    /// folder of a depfile no edge's output lies in) and after it (gen:
    /// copying make's depfile for ninja).
    std::string host_before, host_after;
};

/// How a first build (no .ninja_log, no step history) lists its edges
/// (PHC_FIRST_ORDER).
enum class FirstOrder {
    Hosts, ///< "hosts", the default: the generator's order, and each host compile
           ///< that waits for nothing (--overlap-host) first (Policy::hosts_first)
    Size,  ///< "size": by each source's size, largest first (Policy::guess_order)
    Given, ///< "given": the generator's order, nothing moved
};

/// PHC_FIRST_ORDER read; an error naming the variable for a value it is not.
Result<FirstOrder> first_order();

/// Policy::step for phc-ninja at `self` keeping its records and budget in the
/// folder `records` (absolute); "" when `self` is "" or PHC_REGEN_STEPS=0.
std::string step_runner(const std::string& self, const std::string& records);

/// The rules (and, when device_jobs > 0, the device pool; when remote_jobs > 0,
/// the pool of distributed device compiles) every split edge uses, to declare
/// once before any of them: policy.names' rules, under policy.step's runner.
std::vector<ninja::NewStatement> split_rules(const Policy& policy, int device_jobs,
                                             int remote_jobs = 0);

/// Rules and variables shared between objects: name and text, to declare once at the top.
using SharedRules = std::vector<std::pair<std::string, std::string>>;

/// One object's (or link's) edges as ninja text.
struct Edges {
    std::string text;   ///< the edges and the object's own device rule
    std::string lead;   ///< edges to list before every object's `text` (Policy::hosts_first)
    SharedRules shared; ///< what they use that other objects may share
    size_t count = 0;   ///< build statements in `text`
    /// With Policy::durations (or guess_order), the longest chain of the edges
    /// (split::GraphEdge::chain_ms); else 0.
    int64_t chain_ms = 0;
};

/// The device, bundle and host edges (and any other steps) of the split
/// compile `plan`, with the object's device rule first when it has one. What
/// other objects may share (the bundle rule, the commands' shared start) is
/// added to `shared`; the caller declares each name once, before any use.
std::vector<ninja::NewStatement>
compile_statements(const split::Plan& plan, const Carry& carry, const Policy& policy,
                   std::vector<ninja::NewStatement>& shared, int64_t* chain_ms = nullptr,
                   std::vector<ninja::NewStatement>* lead = nullptr);

/// compile_statements() as text.
Result<Edges> compile_edges(const split::Plan& plan, const Carry& carry, const Policy& policy);

/// The edges of a split RDC link: each step keeps its own inputs; the host
/// link takes over the original outputs, inputs (as implicit ones),
/// order-only dependencies, restat and pool; device links go to the device
/// pool when there is one.
Result<Edges> link_edges(const split::LinkPlan& plan, const Carry& carry, const Policy& policy);

} // namespace phc::edges
