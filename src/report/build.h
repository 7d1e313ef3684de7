// The last build as steps: each measured edge with its times, what kind of
// step it is (from the rules and descriptions regen writes), its GPU
// architecture and object, and the measured steps it waited for.
#pragma once

#include "ninja/build_log.h"
#include "ninja/manifest.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phc::report {

/// What a step does. The HIP kinds are the edges regen and gen write.
enum class Kind : uint8_t {
    Device,       ///< one architecture's device compile (PHC_HIP_DEVICE*)
    Bundle,       ///< clang-offload-bundler (PHC_HIP_BUNDLE*)
    Host,         ///< the host compile that embeds the bundle (PHC_HIP_HOST)
    DeviceLink,   ///< one architecture's device link (PHC_HIP_STEP "HIP link gfxA out")
    Fatbin,       ///< the fat binary of a link ("HIP fatbin")
    FatbinObject, ///< its object ("HIP fatbin object")
    Unbundle,     ///< an RDC object's unbundling ("HIP unbundle")
    HostLink,     ///< the host link ("HIP host link")
    HipCompile,   ///< a HIP compile left whole (all its architectures in one step)
    Compile,      ///< any other compile (an output ending in .o or .obj)
    Other,        ///< links and everything else
};

/// The name of a kind in the summary, the JSON and the trace ("HIP device", ...).
std::string_view kind_name(Kind k);

/// The key of a step in the per-kind table: the kind's name, with the
/// architecture for per-architecture kinds ("HIP device gfx906").
std::string kind_key(Kind k, std::string_view arch);

struct Step;

/// A step's kind in a word or two, with its architecture when it has one
/// ("gfx906", "link gfx906", "bundle", "host", "compile").
std::string short_label(const Step& s);

/// One measured edge of the last build.
struct Step {
    int64_t start = 0, end = 0; ///< ms since the build started (end = start + time)
    int64_t time = 0;           ///< the longest end - start of its outputs
    std::string output;         ///< its first logged output
    int32_t edge = -1;          ///< its manifest edge, -1 when the manifest has none
    Kind kind = Kind::Other;
    std::string arch;           ///< the GPU architecture of per-architecture steps
    std::string object;         ///< the object (or linked file) the step is part of
    std::vector<uint32_t> deps; ///< the measured steps it waited for (direct producers)
    int offload_archs = 0;      ///< a HIP compile left whole: its --offload-arch count
    int64_t cpu_ms = -1;        ///< user + system time phc-ninja step recorded; -1: none
    int64_t wait_ms = 0;        ///< how long phc-ninja step waited for memory before it
    uint64_t peak = 0;          ///< the peak resident bytes recorded; 0: none
    uint64_t reserved = 0;      ///< the bytes it reserved of the budget (its estimate); 0: none
    int64_t cost = 0; ///< what the step cost a core, in ms: cpu_ms, else its core share (model.h)
    bool remote = false; ///< its record says its work ran on a farm (kind "remote"): cost = time
};

/// The last build of a log, read against its manifest.
struct Build {
    std::vector<Step> steps;
    int64_t first_start = 0; ///< the earliest start
    int64_t wall_ms = 0;     ///< last end - first start
    size_t runs = 0;         ///< builds in the log
    int max_running = 0;     ///< the most steps that ran at once
    double mean_running = 0; ///< the steps running at once, on average over the wall time
    size_t cpu_steps = 0;    ///< steps with a recorded CPU time
    size_t remote_steps = 0; ///< steps whose work ran on a farm (Step::remote)
    /// The memory budget the steps choose (sched/memory.h), as they would now:
    /// PHC_MEMORY, else regen's or gen's --memory, else the default; 0: unknown.
    uint64_t budget = 0;
    std::string budget_from; ///< where the budget comes from
};

/// The memory of the recorded steps over the build: the most they reserved
/// at once, the most their recorded peaks summed to at once, and how long
/// they waited for memory in all.
struct MemoryLevels {
    uint64_t most_reserved = 0, most_measured = 0;
    int64_t most_measured_at = 0; ///< ms since the build started
    int64_t waited_ms = 0;
};
MemoryLevels memory_levels(const Build& b);

/// The running sum of `bytes(step)` over the build: (ms since its start, the
/// bytes from then on), one point per change.
std::vector<std::pair<int64_t, int64_t>> level_steps(const Build& b,
                                                     uint64_t (*bytes)(const Step&));

/// Classifies one edge from its rule name, its evaluated description (only
/// needed for PHC_HIP_* rules), its first output and its command's count of
/// --offload-arch values (for HIP compiles left whole); fills kind, arch, object.
void classify(Step& s, std::string_view rule, std::string_view description, int offload_archs);

/// Joins the log's entries with the manifest's edges: one step per edge (an
/// edge with several outputs logs each; it counts once, with its longest
/// time), its dependencies the measured producers of its inputs (explicit,
/// implicit and order-only), as `ninja -t graph` draws them.
Build make_build(const ninja::Manifest& m, const ninja::BuildLog& log);

/// The number of --offload-arch= (or --offload-arch X, --cuda-gpu-arch=) values in `command`.
int count_offload_archs(std::string_view command);

} // namespace phc::report
