// The new offload driver's RDC link when its device code is known only when
// the link runs: static archives, objects whose compile was not split, `-l`
// libraries. clang-linker-wrapper picks the archive members whose device code
// it links by symbol resolution, so which files each architecture's device
// link reads depends on the inputs' contents. The manifest keeps one device
// link edge per architecture; a step that runs once the inputs exist
// (`phc-ninja link-plan`) asks the wrapper itself (--dry-run, in the link's
// directory, its temporary files in a private folder), extracts each device
// input it names from the input or archive member it came from, and writes
// one small plan per architecture and one for the host link. The edges run
// `phc-ninja planned PLAN`. A plan is rewritten only when it changes (the
// step is restat), so a link input whose device code did not change relinks
// no architecture, and one that changed relinks only the architectures whose
// inputs changed.
//
// Whatever the step cannot reproduce exactly (the wrapper links in its own
// process, a name two inputs could hold, a thin archive, a response file, an
// architecture it does not link, its dry run failing) leaves that link's
// device code to the wrapper: the device link plans run nothing and the host
// link plan is the driver's own wrapper job, so the program is the driver's.
//
// The old driver's links take the same shape (`link-plan --driver`) when the
// static device libraries its `-l` names are known only when the link runs
// (the build makes one, several folders hold one): the step runs the driver's
// `-###` then, plans its jobs as link.h does, runs the unbundling itself and
// plans each architecture's lld and, for the host link, the fat binary, its
// object and the host link; what it cannot plan runs the driver's own link.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

/// The plan file of architecture `arch`'s device link in `dir`, and of the host link.
std::string device_link_plan(const std::string& dir, const std::string& arch);
std::string host_link_plan(const std::string& dir);
/// The image architecture `arch`'s device link writes in `dir`: the wrapper's
/// "<arch>.img", or the old driver's lld output "<arch>.out".
std::string device_link_image(const std::string& dir, const std::string& arch);
std::string driver_device_link_output(const std::string& dir, const std::string& arch);

/// One image of an offload binary (clang-offload-packager's format).
struct OffloadImage {
    std::string triple, arch;
    std::string_view image;  ///< a view into the section given
    std::string_view binary; ///< the whole offload binary holding it (header, entry, strings)
};

/// The images of a `.llvm.offloading` section: offload binaries one after
/// another, each a 32-byte header (magic 10 ff 10 ad, version 1, size, entry
/// offset and size), an entry (image kind, offload kind, flags, string table
/// offset and count, image offset and size) and its strings ("triple",
/// "arch"). An Error for another version or anything out of bounds.
Result<std::vector<OffloadImage>> offload_images(std::string_view section);

/// What the step decided for one link.
struct LinkPlanFiles {
    /// Per architecture (in the order asked): its device link, or empty when
    /// the wrapper links the device code itself.
    std::vector<std::vector<std::string>> device;
    std::vector<std::string> device_inputs_hash; ///< per architecture: its inputs' contents
    std::vector<std::vector<std::string>> host;  ///< the host link's commands, in order
    std::string why; ///< why the wrapper (the driver) links the device code itself, or ""
};

/// The decision from the wrapper's dry-run output `dry_run` (its temporary
/// folder `temp`) for the link `job` asked for `archs`, extracting device
/// inputs into "<dir>/x" (files rewritten only when they change). Paths are
/// relative to the current directory, as the link's.
Result<LinkPlanFiles> decide_link_plan(const std::vector<std::string>& job,
                                       const std::vector<std::string>& archs,
                                       const std::string& dir, std::string_view dry_run,
                                       const std::string& temp);

struct LinkPlan;

/// The old driver's decision from its plan `p` of the link `link` (link.h,
/// made from the driver's `-###` with the inputs present, its files in
/// `dir`): runs its unbundle steps, plans each of `archs`' device link, and
/// the rest as the host link's commands. What does not fit leaves the link
/// to the driver (`link` itself, as the host link's one command).
Result<LinkPlanFiles> decide_driver_plan(const LinkPlan& p, const std::vector<std::string>& link,
                                         const std::vector<std::string>& archs,
                                         const std::string& dir);

/// `phc-ninja link-plan [--driver] --dir DIR --archs A,B,... -- JOB...` (run by the edges of
/// a split RDC link, in the link's directory): JOB is the wrapper's job, or with --driver
/// the old driver's link command.
int link_plan_main(int argc, char** argv);
/// `phc-ninja planned PLAN`: runs the commands the plan names, in order (or
/// writes its empty image when it names none).
int planned_main(int argc, char** argv);

} // namespace phc::split
