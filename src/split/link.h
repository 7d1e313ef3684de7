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
// The new offload driver's link is one clang-linker-wrapper job: its per-
// architecture device links (read from its --dry-run) become steps, and the
// wrapper itself, given their images (--override-image), bundles, wraps and
// links the host code. When its inputs are all split objects, the device
// links read their compiles' bitcode; otherwise (archives, other objects,
// `-l` libraries, and always in the launcher) a step decides when the link
// runs which device code each architecture links (wrapper_plan.h).
#pragma once

#include "compile/analysis.h"
#include "probe/probe.h"
#include "split/plan.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace phc::split {

/// An object of the link whose compile was split in RDC mode.
struct SplitObject {
    std::string private_dir; ///< its "<arch>.o" bitcode and "host.o", as the link spells paths
    std::vector<std::string> archs; ///< the architectures it holds
};

/// The split object a link input names (as the link spells it), or null.
using FindSplitObject = std::function<const SplitObject*(const std::string&)>;

/// What clang-linker-wrapper (the new offload driver's link) would run for a
/// link: the commands its --dry-run prints, with the temporary files it names.
struct WrapperRun {
    std::vector<std::vector<std::string>> jobs; ///< its commands, in order
    std::string temp_dir;                       ///< prefix of its temporary files
    /// Stand-in k (inputs named "phcobj<k>") is this split object's,
    std::vector<const SplitObject*> stand_ins;
    std::vector<std::string> inputs; ///< and stands for this input, as the link names it
};

/// The offload packer beside clang-linker-wrapper `wrapper` ("" when none).
std::string packer_beside(const std::string& wrapper);

/// Writes empty device bitcode, the stand-ins' code, to `path` with the clang
/// beside the offload packer `packer`.
Status write_stand_in_bitcode(const std::string& packer, const std::string& path);

/// Packs into `output`, with `packer`, an offload binary of the device
/// bitcode `bitcode` for each (triple, architecture) of `targets` (kind hip).
Status pack_stand_in(const std::string& packer, const std::string& bitcode,
                     const std::string& output,
                     const std::vector<std::pair<std::string, std::string>>& targets);

/// Every word of `jobs` naming a file of `names` (whole, or after '=') names
/// what it maps to: (file, what it maps to) pairs.
void rename_files(std::vector<std::vector<std::string>>& jobs,
                  const std::vector<std::pair<std::string, std::string>>& names);

/// How a link's inputs are known when it is planned.
enum class LinkInputs {
    Planned, ///< regen: not built yet; device code only from split objects' steps
    Present, ///< the launcher: built; its files in private_dir
};

/// The steps of one link.
struct LinkPlan {
    compile::LinkAnalysis analysis; ///< the command; its decision says whether it is split
    std::string private_dir;        ///< "<output>.phc": the link's own intermediate files
    std::vector<Step> steps;        ///< unbundles, device links, fat binary, its object, host link
    std::vector<std::string> archs; ///< the device links' architectures, in the driver's order

    bool split() const { return analysis.decision.split(); }
};

/// Whether the build makes a file, named as the link spells it (relative to
/// its working directory, or absolute).
using IsBuilt = std::function<bool(const std::string&)>;

/// Why a plan of link `a` made before the build cannot know which files its
/// `-l` libraries name when it runs, or "". The driver picks a static device
/// library for each `-l` when it runs (the first of LIBRARY_PATH, the -L
/// folders and its own library folder that holds one) and the linker its own
/// file: when the build makes a file the name may resolve to (`built`), or
/// several folders hold files of that name (which one each takes depends on
/// their search orders and on what exists then), a plan made now may unbundle
/// another archive than the one the link reads. `host_link` is the driver's
/// host link job (its -L folders are the linker's search), or empty.
std::string unknown_library(const compile::LinkAnalysis& a,
                            const std::vector<std::string>& host_link, const IsBuilt& built);

/// The plan for an analysed link from the driver's jobs for it. A job or a
/// temporary file the plan cannot reproduce leaves the link alone
/// (Reason::LinkUnmodelled, naming it).
LinkPlan make_link_plan(compile::LinkAnalysis a, const probe::DriverJobs& jobs,
                        const FindSplitObject& find, const std::string& private_dir = {},
                        const WrapperRun* wrapper = nullptr);

/// The plan-time guard of a link's plan (link_guard.cpp): "" when the jobs its
/// steps run are the driver's `driver` jobs, else the first difference, naming
/// the job and the argument. Only what the plan changes on purpose is mapped:
/// file names, an unbundle of a split object (its compile's files of the same
/// targets instead), the fat binary's assembly (piped or asked for when the
/// step runs). For the new driver the wrapper's job is compared as its dry runs
/// say: `wrapper`, of the original job, and `host`, of the host link step with
/// stand-ins of the device links' images.
std::string link_jobs_differ(const LinkPlan& plan, const probe::DriverJobs& driver,
                             const FindSplitObject& find, const WrapperRun* wrapper = nullptr,
                             const WrapperRun* host = nullptr);

/// Runs the driver's `-###` for a link analysed as Split (and, for the new
/// driver, clang-linker-wrapper's --dry-run) and plans it, its own files in
/// `private_dir` ("" = "<output>.phc"). Planned inputs: a link whose `-l`
/// libraries the plan cannot know (unknown_library, with `built`) is left
/// alone. An Error when the driver cannot be run.
Result<LinkPlan> plan_link(compile::LinkAnalysis a, const FindSplitObject& find,
                           const std::string& private_dir = {},
                           LinkInputs inputs = LinkInputs::Planned, const IsBuilt& built = {});

} // namespace phc::split
