// The split of an RDC link (`clang++ -fgpu-rdc --hip-link --offload-arch=...`):
// the driver links each architecture's device bitcode with lld (its code
// generation, the heavy part), bundles the results into a fat binary, wraps
// that in an object with llvm-mc and links the host objects with it. The plan
// replays those jobs as steps, read from the driver's own `-###`, with its
// temporary files placed in "<output>.phc/", so each architecture's device
// link is a step of its own. For objects whose compile phc-ninja split, the
// device links read the per-architecture bitcode and the host link the host
// object that the compile's steps wrote, instead of unbundling the object:
// adding an architecture then relinks only that architecture's device code.
#pragma once

#include "compile/analysis.h"
#include "probe/probe.h"
#include "split/plan.h"

#include <functional>
#include <string>
#include <vector>

namespace phc::split {

/// An object of the link whose compile was split in RDC mode.
struct SplitObject {
    std::string private_dir; ///< its "<arch>.o" bitcode and "host.o", as the link spells paths
    std::vector<std::string> archs; ///< the architectures it holds
};

/// The split object a link input names (as the link spells it), or null.
using FindSplitObject = std::function<const SplitObject*(const std::string&)>;

/// The steps of one link.
struct LinkPlan {
    compile::LinkAnalysis analysis; ///< the command; its decision says whether it is split
    std::string private_dir;        ///< "<output>.phc": the link's own intermediate files
    std::vector<Step> steps;        ///< unbundles, device links, fat binary, its object, host link
    std::vector<std::string> archs; ///< the device links' architectures, in the driver's order

    bool split() const { return analysis.decision.split(); }
};

/// The plan for an analysed link from the driver's jobs for it. A job or a
/// temporary file the plan cannot reproduce leaves the link alone
/// (Reason::LinkUnmodelled, naming it).
LinkPlan make_link_plan(compile::LinkAnalysis a, const probe::DriverJobs& jobs,
                        const FindSplitObject& find, const std::string& private_dir = {});

/// Runs the driver's `-###` for a link analysed as Split and plans it, its own
/// files in `private_dir` ("" = "<output>.phc"). An Error when the driver
/// cannot be run.
Result<LinkPlan> plan_link(compile::LinkAnalysis a, const FindSplitObject& find,
                           const std::string& private_dir = {});

} // namespace phc::split
