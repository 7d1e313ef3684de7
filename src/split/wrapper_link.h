// The new driver's host link when the link's architectures are target IDs
// with features (gfx90a:xnack+). clang-linker-wrapper names an image given
// with --override-image by the processor its ELF header says ("gfx90a"), so
// the fat binary it bundles from the split's images names its entries
// hip-amdgcn-amd-amdhsa--gfx90a, not --gfx90a:xnack+, and the program would
// differ from the driver's (scripts/repro-wrapper-target-id). The split
// instead:
//
//  1. bundles the images with the original link's own bundler job (the
//     driver's dry run names the entries by target ID): the right fat binary;
//  2. runs the wrapper given the images, its linker phc-ninja itself
//     (`wrapper-link`): the wrapper bundles (wrong names), wraps its bundle
//     into its registration object (the bundle verbatim in .hip_fatbin) and
//     runs "the linker" with that object;
//  3. the linker call checks that the object's .hip_fatbin is the wrapper's
//     bundle byte for byte, that the right fat binary has the same size and the
//     same images at the same places under names that add only features to
//     the wrapper's, puts the right fat binary in its place, and runs the real
//     linker with the wrapper's own arguments.
//
// Anything it cannot prove leaves the link to the wrapper: the wrapper's own
// job is run again, without the images (it links every architecture itself),
// and the program is the driver's.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phc::split {

/// One entry of an uncompressed clang-offload-bundler bundle.
struct BundleEntry {
    uint64_t offset = 0, size = 0;
    std::string triple; ///< "hip-amdgcn-amd-amdhsa--gfx90a:xnack+"
};

/// The entries of an uncompressed bundle ("__CLANG_OFFLOAD_BUNDLE__", a count,
/// then offset, size, triple size and triple of each). An Error for a
/// compressed bundle ("CCOB") or anything cut short or out of bounds.
Result<std::vector<BundleEntry>> bundle_entries(std::string_view bundle);

/// `object` (the wrapper's registration object) with the bundle `right` in
/// place of `wrapper_bundle` in its .hip_fatbin, when `right` is
/// `wrapper_bundle` but for names that add features to its entries' names
/// (the same size, entries, places and images). An Error saying what differs
/// otherwise.
Result<std::string> fatbin_swapped(std::string_view object, std::string_view wrapper_bundle,
                                   std::string_view right);

/// `phc-ninja wrapper-link --fatbin FILE -- JOB...` (run by the host link edge
/// of such a link): JOB is the wrapper's job with --override-image for each
/// image, FILE the right fat binary.
int wrapper_link_main(int argc, char** argv);

/// Whether a process called `argv0` is the linker wrapper-link gives the
/// wrapper (a link named phc-wrapper-ld to phc-ninja in its temporary
/// folder, beside what it needs to know), and that linker: main() asks first.
bool is_wrapper_linker(std::string_view argv0);
int wrapper_linker_main(int argc, char** argv);

/// `phc-ninja wrapper-image --arch ARCH -o IMAGE -- JOB` (run by the device
/// link edges of clang 19's new-driver RDC links, whose wrapper links the
/// device code in its own process): runs the wrapper's JOB, whose inputs hold
/// device code of ARCH alone, with itself as the linker, which copies the
/// image the wrapper linked for ARCH to IMAGE instead of linking.
int wrapper_image_main(int argc, char** argv);

/// The job that links without the images: `job` without its --override-image words.
std::vector<std::string> without_images(const std::vector<std::string>& job);

/// Whether an architecture of `archs` is a target ID with features.
bool has_features(const std::vector<std::string>& archs);

/// The wrapper's bundler job `job` (from its dry run, its temporary files in
/// `temp`) as the split runs it: each -input= that is a device link's
/// temporary output (`images`: that name, the split's image) the split's
/// image, the -output= `fatbin`. An Error when it compresses (the wrapper's
/// bundle could not be swapped), names another temporary file, or an image
/// is not read exactly once.
Result<std::vector<std::string>>
bundle_job(const std::vector<std::string>& job,
           const std::vector<std::pair<std::string, std::string>>& images, const std::string& temp,
           const std::string& fatbin);

/// The host link's command: `phc-ninja wrapper-link --fatbin FATBIN -- JOB`.
std::vector<std::string> wrapper_link_command(const std::string& fatbin,
                                              const std::vector<std::string>& job);

/// The wrapper's job a step runs: after `wrapper-link ... --` or
/// `wrapper-image ... --`, else `argv` itself.
std::vector<std::string> wrapped_job(const std::vector<std::string>& argv);

/// "" when `processor` (the bundler job the wrapper runs given the images,
/// as its dry run says) is `target_id` (the split's bundler job) but for
/// -output= and entries named without the features `target_id` names; else
/// the first difference.
std::string bundle_jobs_differ(const std::vector<std::string>& processor,
                               const std::vector<std::string>& target_id);

} // namespace phc::split
