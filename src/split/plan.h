// The split plan: for one multi-architecture HIP object compile, one device
// step per architecture, one bundle step and one host step that together write
// the object the driver would have written, byte for byte (same -cuid).
// Without -fgpu-rdc the host step embeds the bundle of device code and writes
// the object; with it (RDC) the host step writes a host object that the bundle
// step combines with the device bitcode into the object.
// regen and gen turn the steps into ninja edges; the launcher runs them.
#pragma once

#include "compile/analysis.h"
#include "probe/probe.h"
#include "split/cuid.h"
#include "split/distribute.h"
#include "util/error.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

/// What a step does.
enum class StepKind {
    Device,       ///< compile: one architecture's device code
    Bundle,       ///< compile: clang-offload-bundler
    Host,         ///< compile: the host code
    Unbundle,     ///< link: an object's parts, for an object phc-ninja did not split
    DeviceLink,   ///< link: one architecture's device link (RDC: its code generation)
    Fatbin,       ///< link: the bundle of the linked device code
    FatbinObject, ///< link: the object that embeds the bundle
    HostLink,     ///< link: the host link writing the output
    Embed,        ///< compile (--overlap-host): the host object with the bundle put in
    Check,        ///< the driver's own whole compile, to compare with (reference_step)
    Preprocess,   ///< compile, distributed: one architecture's bundled device source (local)
    RemoteHost,   ///< compile (--overlap-host on icecc): the preprocessed host source, sent
    LinkPlan,     ///< link (new driver): which device code each architecture links, decided
                  ///< once the inputs exist (wrapper_plan.h)
};

/// "device", "bundle", "host", "unbundle", "device-link", "fatbin", "fatbin-object", "host-link",
/// "embed", "check", "preprocess", "remote-host", "link-plan".
std::string_view step_kind_name(StepKind k);
/// The kind of a step as `phc-ninja step --kind` names it (sched/steps.h), by
/// which its memory is estimated: "device", "host", "bundle", "devlink",
/// "link", "embed" or "other".
std::string_view budget_kind(StepKind k);

/// One process to run. Paths are as the command wrote them: relative to `cwd`.
struct Step {
    StepKind kind = StepKind::Device;
    std::string arch;                 ///< target ID for device steps, else ""
    std::string cwd;                  ///< directory to run in ("" = inherit)
    std::vector<std::string> env;     ///< NAME=value assignments
    std::vector<std::string> argv;    ///< the program and its arguments
    std::vector<std::string> outputs; ///< files it writes (depfile not included)
    std::vector<std::string> inputs;  ///< files it reads that other steps or the user write
    std::string depfile;              ///< the make-style depfile it writes, or ""
    std::string description;          ///< short text for progress output

    /// The step as one /bin/sh command: `cd DIR && NAME=value argv...`, quoted.
    std::string shell() const;
};

/// Choices the caller makes.
struct PlanOptions {
    std::string private_dir;      ///< per-object folder for device objects; "" = "<object>.phc"
    bool device_depfiles = false; ///< give device steps depfiles even if the compile has none
    /// Without -fgpu-rdc: the host compile runs beside the device compiles,
    /// embedding a placeholder, and an embed step puts the bundle into its
    /// object's .hip_fatbin section (`phc-ninja embed`, embed.h) to write the
    /// compile's output.
    bool overlap_host = false;
    std::string cuid_root; ///< CuidPlace::root (cuid.h); "" = the analysis' base_dir
    std::string tool;      ///< the phc-ninja the embed step runs; "" = this program
    /// Distributed device compiles (distribute.h): per architecture a local
    /// Preprocess step and a Device step compiling its output through the
    /// engine. nullopt: the engine the compile's launcher already is (icecc,
    /// distcc), if any; Engine::None: never.
    std::optional<Engine> distribute;
    /// The folder of the preprocessed files, relative to the compile's
    /// directory; "" = "cpp.phc/<private_dir>" (distcc sends a `-x` compile
    /// only when the word after it starts with 'c'), or the private folder
    /// itself when that is absolute.
    std::string preprocessed_dir;
    std::string host_triple; ///< the host section's triple (device-ii); "" = the compiler's
};

/// The decision for one compile and, when it is split, its steps.
struct Plan {
    compile::Analysis analysis; ///< the command, its facts and the decision
    std::string cuid;           ///< the CUID every step uses ("" for -fuse-cuid=none)
    std::string private_dir;    ///< folder of the device objects and the bundle (must exist)
    /// The bundle: the file the host step embeds; in RDC mode (the bundle holds
    /// the host object and the device bitcode) the compile's output itself.
    std::string bundle;
    std::vector<Step> steps; ///< device steps (bundle order), then bundle, then host
    bool rdc = false;        ///< relocatable device code: host object and bitcode bundled
    /// The engine the device compiles go to (each after its Preprocess step).
    Engine engine = Engine::None;
    /// Why the device compiles stay local although an engine was asked for
    /// (or the launcher is one); "" otherwise.
    std::string local_reason;
    /// --overlap-host on icecc: the host compile goes to the engine too (a
    /// local Host step preprocessing the source, a RemoteHost step compiling
    /// its output, then the embed step).
    bool host_remote = false;
    /// Why the host compile stays local although --overlap-host and an engine
    /// were asked for; "" otherwise.
    std::string host_local_reason;
    /// Why --overlap-host was asked for but the host compile embeds the bundle
    /// after the device compiles (the guard found the overlapped host step's
    /// jobs differ from the driver's); "" otherwise.
    std::string overlap_reason;

    bool split() const { return analysis.decision.split(); }
};

/// Whether `s` is a compile `plan` sends to an engine (a device compile, or
/// --overlap-host's host compile on icecc): its work runs on the farm.
bool is_remote(const Step& s, const Plan& plan);
/// budget_kind() of `s` in `plan`, "remote" for a step is_remote(): its local
/// cost is the engine's client (and the steps' records say the work ran elsewhere).
std::string_view budget_kind(const Step& s, const Plan& plan);

/// For a compile that read response files (Analysis::rsp): moves the compiler's
/// arguments out of `s.argv` (those after the word `compiler`), which then
/// names "@path" instead; returns the file's text (the arguments, quoted as
/// clang reads them). nullopt, `s` unchanged, when `s` does not run `compiler`.
std::optional<std::string> to_response_file(Step& s, const std::string& compiler,
                                            const std::string& path);

/// `arch` made safe for file names and depfiles: ':' becomes '-' ("gfx90a:xnack+" ->
/// "gfx90a-xnack+").
std::string safe_arch(std::string_view arch);

/// The driver's own compile of `a`: every option as written (the launcher left
/// out), the CUID `cuid` (none when ""), writing `output`, and `depfile` when
/// the compile writes one. What a split object must equal (phc-ninja check,
/// PHC_CHECK); the caller chooses where it writes.
Step reference_step(const compile::Analysis& a, const std::string& cuid, const std::string& output,
                    const std::string& depfile);

/// The positions in a.command.argv whose words make_cuid() (cuid.h) hashes, in order.
std::vector<size_t> cuid_word_positions(const compile::Analysis& a);

/// Builds the steps for an analysis whose decision is Split, from a probe result
/// that matches it (apply_probe already run).
Plan make_plan(compile::Analysis a, const probe::ProbeResult& probe, const PlanOptions& opts);

/// The whole pipeline for an analysed command: probe (through `probes`) when the
/// command line allows a split, then plan. An Error when the compiler cannot be probed.
Result<Plan> plan(compile::Analysis a, probe::ProbeCache& probes, const PlanOptions& opts = {});

} // namespace phc::split
