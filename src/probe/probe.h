// Asking the compiler, not guessing: run the compile with `-###`, read the jobs
// the driver would run, and keep what the split must reproduce (the bundler's
// path and arguments, the architectures in bundle order). Results are cached in
// memory and on disk, keyed by the compiler binary and the flags that can change
// the driver's decisions, so one probe serves every object of a build.
#pragma once

#include "compile/analysis.h"
#include "util/error.h"

#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace phc::probe {

/// Which offload driver produced the jobs.
enum class DriverKind {
    None, ///< no offload jobs at all (not a HIP compile)
    Old,  ///< device compiles + clang-offload-bundler + host with -fcuda-include-gpubinary
    New,  ///< clang-offload-packager / -fembed-offload-object / clang-linker-wrapper
};

/// What the driver plans for one compile, independent of its source and output
/// paths, so it can be re-applied to any compile with the same probe key.
struct ProbeResult {
    DriverKind driver = DriverKind::None;
    bool rdc = false;                      ///< the host object goes into the bundle (-fgpu-rdc)
    std::string bundler;                   ///< absolute path of clang-offload-bundler
    std::vector<std::string> bundler_args; ///< its arguments; see kInputToken / kOutputToken
    std::vector<std::string> archs;        ///< device architectures in bundle order
    size_t device_compiles = 0;            ///< device cc1 jobs seen
    /// A host-only compile passes -cuid= on to its cc1 job; when false (clang 15 and
    /// 19 drop it) the host step needs `-Xclang -cuid=...` to match the driver's host job.
    bool host_takes_cuid = false;
    /// The driver's own compile gives its cc1 jobs a CUID (-cuid=); clang 19's new
    /// driver gives none, and then neither do the steps.
    bool uses_cuid = true;
    /// A device-only compile passes -MD/-MF on to its cc1 job; when false (clang 22)
    /// device steps ask the cc1 job for their depfile with -Xclang.
    bool device_takes_depfile = true;
    /// The new offload driver without -fgpu-rdc (clang 22): the code generation
    /// the driver leaves to clang-linker-wrapper, read from the wrapper's own
    /// `--dry-run`, one command per architecture in `archs` order, with
    /// kInputToken (the architecture's bitcode) and kOutputToken (its image).
    /// The bundler then takes the images. Empty for the old driver.
    std::vector<std::vector<std::string>> codegen;
    /// The new offload driver with -fgpu-rdc: `bundler` and `bundler_args` are the
    /// offload packer's (llvm-offload-binary, clang-offload-packager) and the host
    /// compile embeds the packed file with this cc1 option, as its job spells it
    /// ("-fembed-offload-object="). Empty otherwise.
    std::string embed_option;
    /// The new offload driver's jobs not understood (no codegen, no
    /// embed_option): which phase of reading them gave up and why, for
    /// --explain ("the wrapper's dry run: ..."); "" otherwise or unknown.
    std::string not_understood;
    /// The device libraries (`-mlink-builtin-bitcode` files) the first device
    /// job links, in its order. `--overlap-host` on icecc embeds one of them
    /// as the host compile's placeholder: a file the farm's environment holds
    /// at the same path (phc-ninja icecc-env puts their folders there).
    std::vector<std::string> device_libraries;
    /// The plan-time guard's verdict (split/guard.h): "" when the split's own
    /// driver jobs are the original's, else the first difference ("clang -cc1
    /// (gfx906): -flto=full not carried"); the compile is then left alone.
    std::string jobs_differ;
    /// The same for the --overlap-host shape (its host step), when the plain
    /// shape agrees: such a compile is split without overlapping.
    std::string overlap_differs;
    /// The same for the distributed shape (each architecture's preprocess
    /// step and the farm's compile of its file, together), when the plain
    /// shape agrees: such a compile keeps its device compiles local.
    std::string distribute_differs;
    /// Whether distribute_differs was worked out: only for a request that
    /// asks for it (ProbeRequest::farm); a cached entry without it is probed
    /// again when a farm is asked for.
    bool distribute_checked = false;

    /// Placeholder in bundler_args: kInputToken + "<k>@" is archs[k]'s object ("-input=..."
    /// for the bundler, "--image=file=...,arch=..." for the packer).
    static constexpr std::string_view kInputToken = "@PHC_INPUT_";
    /// Placeholder in bundler_args for the bundle file.
    static constexpr std::string_view kOutputToken = "@PHC_OUTPUT@";
    /// Placeholder in bundler_args for the host object (RDC only: the host
    /// object goes into the bundle, which is the object the compile writes).
    static constexpr std::string_view kHostToken = "@PHC_HOST@";

    /// True when bundler_args take the host object (kHostToken).
    bool has_host_input() const;

    /// The bundler argv for the given per-architecture objects, bundle path and,
    /// in RDC mode, host object.
    std::vector<std::string> bundler_argv(const std::vector<std::string>& inputs,
                                          const std::string& output,
                                          const std::string& host = {}) const;
};

/// The architecture (target ID) of a bundle entry such as
/// "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+" or "hip-amdgcn-amd-amdhsa-gfx906".
std::string bundle_entry_arch(std::string_view entry);

/// The entries of a bundler job's -targets= list, in order.
std::vector<std::string> bundle_targets(const std::vector<std::string>& job);

/// The word after `flag` (e.g. "-o") in a job's words, or "".
std::string job_word_after(const std::vector<std::string>& job, std::string_view flag);

/// The rest of a job's first word (after the program) that starts with
/// `prefix` (e.g. "-mcpu="), or "".
std::string job_value(const std::vector<std::string>& job, std::string_view prefix);

/// The commands clang-linker-wrapper's --dry-run (or --wrapper-verbose) printed:
/// the program in double quotes, then its arguments separated by spaces.
std::vector<std::vector<std::string>> wrapper_jobs(std::string_view text);

/// Parses the job lines that `clang -###` prints. An Error when they make no sense.
Result<ProbeResult> parse_jobs(std::string_view text);

/// One probe: the compiler argv (launcher stripped, response files expanded).
struct ProbeRequest {
    std::vector<std::string> env;  ///< NAME=value assignments to run it with
    std::vector<std::string> argv; ///< the compile command
    std::string cwd;               ///< where it runs ("" = current directory)
    /// The device compiles may go to a farm: the guard checks that shape too
    /// (it costs two driver runs per architecture, so only when asked).
    bool farm = false;
};

/// The probe key: compiler path, size and mtime, plus driver-relevant flags (and,
/// for hipcc, the HIP_* / ROCM_PATH variables of this process that hipcc reads).
/// An Error when the compiler cannot be found.
Result<std::string> probe_key(const ProbeRequest& req);

/// The parts of the probe key that depend on the compiler binary and the
/// environment only (resolved path, size, mtime, argv[0], env, hipcc's
/// variables), in key order. An Error when the compiler cannot be found.
Result<std::vector<std::string>> probe_key_head(const ProbeRequest& req);

/// The key from a probe_key_head() and the argv's flags:
/// probe_key(req) == probe_key_with(*probe_key_head(req), req.argv).
std::string probe_key_with(const std::vector<std::string>& head,
                           const std::vector<std::string>& argv);

/// The flags of argv that go into the key. Inputs count by their suffix only (it
/// picks the language); -o, the -MD family, -D/-I and similar, -O/-g/-W/-std= are
/// left out: they cannot change the job structure.
std::vector<std::string> probe_key_flags(const std::vector<std::string>& argv);

/// Runs `argv -###` and parses it; for an old-driver compile also runs the
/// host-only variant to see whether it passes -cuid on. It runs with TMPDIR set to a
/// scratch directory that is removed afterwards; inputs that do not exist yet
/// (generated sources) are replaced there by empty files with the same suffix.
/// An Error when it cannot run or fails.
Result<ProbeResult> run_probe(const ProbeRequest& original);

/// The jobs the driver plans for one command, with every temporary file it
/// would use inside `temp_dir` (the driver ran with TMPDIR there) and inputs
/// that did not exist yet spelled as the command wrote them.
struct DriverJobs {
    std::vector<std::vector<std::string>> jobs; ///< each job's words, in order
    std::string temp_dir;                       ///< prefix of every temporary file
    int clang_major = 0; ///< from the "clang version N.M" line; 0 when there is none
};

/// Runs `argv -###` once, uncached (links: their jobs name every input).
Result<DriverJobs> run_driver_jobs(const ProbeRequest& original);

/// Confirms or overturns a Split decision with the driver's own job list.
void apply_probe(compile::Analysis& a, const ProbeResult& probe);

/// How a ProbeCache asks the compiler: by default the real one (probe_key_head,
/// run_probe). Tests give recorded results instead, so they need no compiler.
struct Prober {
    /// The key's compiler part (probe_key_head): the compiler's identity.
    std::function<Result<std::vector<std::string>>(const ProbeRequest&)> key_head = probe_key_head;
    /// The probe itself (run_probe).
    std::function<Result<ProbeResult>(const ProbeRequest&)> run = run_probe;
};

/// Probe results by key, in memory and optionally in a JSON file. get() may be
/// called from several threads (one at a time runs, the others wait), and several
/// processes may share one file (parallel launchers, regen beside them).
class ProbeCache {
public:
    /// `path` is the JSON file to load and update; "" keeps the cache in memory only.
    /// `prober` asks the compiler (the real one unless a test gives another).
    explicit ProbeCache(std::string path = {}, Prober prober = {});

    /// The cached result for `req`, probing the compiler when there is none. A failed
    /// probe is remembered for this cache's lifetime (not on disk) and not re-run.
    /// The compiler's identity (path, size, mtime) is read once per cache: a compiler
    /// replaced during the cache's lifetime is not noticed.
    ///
    /// An entry from the file is checked against `req` before its first use (the
    /// file may be edited, corrupted or restored from elsewhere): its architectures
    /// are the command's (as sets of canonical target IDs), each once and, for the
    /// old driver, in the driver's bundle order (sorted: clang 15 to 22 sort them);
    /// the bundler's targets name them in that order, with exactly one input per
    /// architecture (its placeholder, in order) and one for the host (/dev/null, or
    /// the host object's placeholder exactly when `rdc`), and one output; the
    /// bundler is an absolute path to an executable file; new-driver code
    /// generation has one command per architecture. An entry that fails is probed
    /// again and replaced, in memory and in the file.
    ///
    /// The file is read only when it is a regular file (also through links) of at
    /// most 16 MB; anything else (a fifo, /dev/zero) is ignored with one warning
    /// on stderr and never written. A new entry is merged into the file's current
    /// content under an flock(2) on "<path>.lock", then the file is replaced
    /// atomically, so concurrent probes by several processes all stay. A cache
    /// file that cannot be written is reported once on stderr as a warning, never
    /// as an error.
    Result<ProbeResult> get(const ProbeRequest& req);

    /// How many times this cache ran the compiler.
    size_t probes_run() const { return probes_run_; }

private:
    void load();
    Status save(const std::string& key, const ProbeResult& r);
    /// Says `text` about the cache file on stderr, once per cache.
    void warn(const std::string& text);

    std::mutex mutex_; ///< held by get()
    std::string path_;
    Prober prober_;
    bool loaded_ = false;
    std::map<std::string, ProbeResult> entries_;
    std::map<std::string, Error> failures_; ///< failed probes, remembered in memory only
    /// probe_key_head() by compiler, cwd and env: one stat of the compiler per cache.
    std::map<std::string, Result<std::vector<std::string>>> heads_;
    /// Keys whose entry fits (checked, or probed by this cache): not checked again.
    std::set<std::string> checked_;
    std::set<std::string> farm_probed_; ///< keys probed for a farm request in this process
    bool warned_ = false;               ///< something was said about the cache file (once)
    bool foreign_ = false;              ///< the cache file is not a regular file: never written
    size_t probes_run_ = 0;
};

} // namespace phc::probe
