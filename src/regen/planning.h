// Planning every edge of a manifest: each one on its own (evaluated, analysed,
// probed, planned and rendered as split edges, or left alone with its reason),
// on a thread per core; then the RDC links, once the compiles they link are
// known; and the order in which the split objects of the top file are written.
#pragma once

#include "ninja/manifest.h"
#include "probe/probe.h"
#include "regen/edges.h"
#include "split/select.h"
#include "util/error.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::regen {

/// What planning one edge gave.
struct Outcome {
    enum class Kind : uint8_t {
        Skip,      ///< phony
        Generator, ///< a generator edge (regen may hook it)
        Other,     ///< not a HIP compile
        Hip,       ///< looks like a HIP compile: `d` says what became of it
        Link,      ///< looks like an RDC link: planned after the compiles (plan_links)
    } kind = Kind::Skip;
    EdgeDecision d;
    std::string text; ///< the rendered split edges, when d.split
    std::string lead; ///< edges to list before every object's (edges::Edges::lead)
    std::shared_ptr<const SharedRules> rules; ///< see Rendered::rules; null for none
    std::optional<Error> error;               ///< the edge cannot be planned: regen fails
    /// Its compiler cannot be probed: left alone ("probe-failed"), or with
    /// Options::strict, regen fails with this.
    std::optional<Error> probe_error;

    /// Leaves a split edge alone after all, for `code`: `text`.
    void leave(std::string code, std::string why) {
        d.split = false;
        d.rdc = false;
        d.archs.clear();
        d.code = std::move(code);
        d.text = std::move(why);
        text.clear();
        lead.clear();
        rules.reset();
    }
};

/// What planning reads; shared by the planning threads.
struct Context {
    const ninja::Manifest& m;
    probe::ProbeCache& probes;
    const edges::Policy& policy;
    bool overlap_host; ///< --overlap-host: host compiles beside the device compiles
    const split::Selection& select;
};

/// plan_one() for every edge, on `threads_wanted` threads (0: a core each, up to 8,
/// one for small builds); planning only reads the manifest and ProbeCache locks
/// itself. Results do not depend on the threads.
std::vector<Outcome> plan_all(const Context& c, int threads_wanted);

/// plan_link_edge() for every link plan_all() put aside, with the RDC objects
/// its compile edges were split into.
void plan_links(const Context& c, std::vector<Outcome>& done);

/// True when `text` (an object's split edges) names a pool the manifest declares
/// (not regen's own, not console): such an object stays in place, after it.
bool uses_pool_of_manifest(std::string_view text, const Names& names);

/// Writes the split compiles of the top file (`objects`, edge indexes in file
/// order) where the first of them stood, the one whose edges' longest chain
/// took longest first (objects without times first, then in file order):
/// ninja 1.11 starts the ready edge it read first, so the objects that take
/// longest to finish start first. Their text needs nothing defined between the first one and its
/// own place: its rules are its own or at the top, its paths are spelled out, and an object that
/// names a pool of the manifest is not among them.
void place_by_device_work(ninja::Manifest& m, std::vector<Outcome>& done,
                          const std::vector<size_t>& objects);

/// The output paths of the build statements in `text` (rendered split edges).
std::vector<std::string> build_outputs(std::string_view text);

} // namespace phc::regen
