// ProbeCache (declared in probe.h): memory first, then the JSON file, then the compiler.
#include "compile/analysis.h"
#include "compile/command.h"
#include "compile/options.h"
#include "probe/probe.h"
#include "util/file.h"
#include "util/lock.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::probe {

using compile::arch_set;
using compile::parse_args;
using compile::ParsedArg;

namespace {

using nlohmann::json;

/// 2: RDC entries name the host object by kHostToken; 3: device_takes_depfile;
/// 4: codegen (the new driver's per-architecture code generation); 5: embed_option
/// (the new driver's RDC packer) and uses_cuid; 6: device_libraries; 7: jobs_differ
/// and overlap_differs (the plan-time guard: entries made before it are probed again);
/// 8: distribute_differs and distribute_checked (the guard of the distributed shape).
constexpr int kFormat = 8;

std::string_view driver_name(DriverKind d) {
    return d == DriverKind::Old ? "old" : d == DriverKind::New ? "new" : "none";
}

json to_json(const ProbeResult& r) {
    return json{{"driver", driver_name(r.driver)},
                {"rdc", r.rdc},
                {"bundler", r.bundler},
                {"bundler_args", r.bundler_args},
                {"archs", r.archs},
                {"device_compiles", r.device_compiles},
                {"host_takes_cuid", r.host_takes_cuid},
                {"device_takes_depfile", r.device_takes_depfile},
                {"codegen", r.codegen},
                {"embed_option", r.embed_option},
                {"uses_cuid", r.uses_cuid},
                {"not_understood", r.not_understood},
                {"device_libraries", r.device_libraries},
                {"jobs_differ", r.jobs_differ},
                {"overlap_differs", r.overlap_differs},
                {"distribute_differs", r.distribute_differs},
                {"distribute_checked", r.distribute_checked}};
}

ProbeResult from_json(const json& j) {
    ProbeResult r;
    std::string d = j.at("driver").get<std::string>();
    r.driver = d == "old" ? DriverKind::Old : d == "new" ? DriverKind::New : DriverKind::None;
    r.rdc = j.at("rdc").get<bool>();
    r.bundler = j.at("bundler").get<std::string>();
    r.bundler_args = j.at("bundler_args").get<std::vector<std::string>>();
    r.archs = j.at("archs").get<std::vector<std::string>>();
    r.device_compiles = j.at("device_compiles").get<size_t>();
    r.host_takes_cuid = j.at("host_takes_cuid").get<bool>();
    r.device_takes_depfile = j.at("device_takes_depfile").get<bool>();
    r.codegen = j.at("codegen").get<std::vector<std::vector<std::string>>>();
    r.embed_option = j.at("embed_option").get<std::string>();
    r.uses_cuid = j.at("uses_cuid").get<bool>();
    r.not_understood = j.value("not_understood", ""); // entries of older versions have none
    r.device_libraries = j.at("device_libraries").get<std::vector<std::string>>();
    r.jobs_differ = j.at("jobs_differ").get<std::string>();
    r.overlap_differs = j.at("overlap_differs").get<std::string>();
    r.distribute_differs = j.at("distribute_differs").get<std::string>();
    r.distribute_checked = j.at("distribute_checked").get<bool>();
    return r;
}

/// A cache file larger than this is no cache of ours (a few hundred entries take
/// well under 1 MB); it is not read.
constexpr off_t kMaxFileBytes = 16 << 20;

/// Why a cache file that is there was not read.
enum class Unread {
    No,         ///< it was read (or is missing, or unreadable: rebuilt quietly)
    NotRegular, ///< a fifo would block, /dev/zero never ends: never read nor written
    TooLarge,   ///< over kMaxFileBytes: ignored, and replaced by the next save
};

/// Says what `why` means, for a warning.
const char* unread_text(Unread why) {
    return why == Unread::NotRegular ? "it is not a regular file" : "it is larger than 16 MB";
}

/// The text of the cache file, read only when it is a regular file (links
/// followed) of at most kMaxFileBytes; "" otherwise, with `why` set when it is there.
std::string read_text(const std::string& path, Unread& why) {
    why = Unread::No;
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return {};
    if (!S_ISREG(st.st_mode) || st.st_size > kMaxFileBytes) {
        why = S_ISREG(st.st_mode) ? Unread::TooLarge : Unread::NotRegular;
        return {};
    }
    // O_NONBLOCK: should the path have become a fifo since the stat, the open
    // does not wait for a writer; what was opened is checked again.
    util::Fd fd = util::open_fd(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (!fd.valid()) return {};
    std::string text;
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        why = Unread::NotRegular;
    } else {
        char buf[1 << 16];
        while (true) {
            ssize_t n = ::read(fd.get(), buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            text.append(buf, static_cast<size_t>(n));
            if (text.size() > static_cast<size_t>(kMaxFileBytes)) { // it grew meanwhile
                why = Unread::TooLarge;
                text.clear();
                break;
            }
        }
    }
    return text;
}

/// The entries of a cache file; empty when it is missing, unreadable, not read
/// (`why`) or of another format (a cache must never break a build: it is rebuilt
/// by probing again).
std::map<std::string, ProbeResult> read_entries(const std::string& path, Unread& why) {
    std::map<std::string, ProbeResult> out;
    std::string text = read_text(path, why);
    if (text.empty()) return out;
    json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || j.value("format", 0) != kFormat || !j.contains("probes") ||
        !j["probes"].is_object())
        return out;
    for (auto& [key, value] : j["probes"].items()) {
        try {
            out.emplace(key, from_json(value));
        } catch (const json::exception&) {
            // A malformed entry is dropped and probed again.
        }
    }
    return out;
}

std::string parent_dir(const std::string& path) {
    size_t slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

/// The lock a save holds while alive. Not held when the file cannot be opened
/// (a read-only folder: the save fails anyway) or the lock is not had within
/// 10 s (its holder stopped with ^Z): the save then goes ahead without it.
util::FileLock save_lock(const std::string& path) {
    auto lock = util::FileLock::open(path);
    if (!lock) return {};
    (void)lock->lock_within(std::chrono::seconds(10));
    return std::move(*lock);
}

/// The architectures `argv` names (--offload-arch= and --cuda-gpu-arch= values,
/// less --no-offload-arch= ones), as arch_set() gives them; empty when it names
/// none or "native" (the driver's choice, then).
std::vector<std::string> command_archs(const std::vector<std::string>& argv) {
    std::vector<std::string> archs;
    for (const ParsedArg& a : parse_args(argv)) {
        bool add = a.is("--offload-arch=") || a.is("--cuda-gpu-arch=");
        bool remove = a.is("--no-offload-arch=") || a.is("--no-cuda-gpu-arch=");
        if (!add && !remove) continue;
        for (const std::string& v : util::split_on(a.value, ',')) {
            if (add && v == "native") return {};
            if (add && !v.empty()) archs.push_back(v);
            if (remove && v == "all") archs.clear();
            if (remove) std::erase(archs, v);
        }
    }
    return arch_set(archs);
}

/// The GPU of a target ID ("gfx90a" of "gfx90a:xnack+").
std::string_view processor(std::string_view id) {
    return id.substr(0, id.find(':'));
}

size_t words_with(const std::vector<std::string>& words, std::string_view part) {
    return static_cast<size_t>(std::count_if(words.begin(), words.end(), [&](const std::string& w) {
        return w.find(part) != std::string::npos;
    }));
}

/// True when the packer arguments of `r` (the new driver's RDC) pack each
/// architecture's input as an image of that architecture into the one output.
bool packer_fits(const ProbeResult& r) {
    if (r.embed_option.empty() || r.embed_option.back() != '=' || !r.embed_option.starts_with("-f"))
        return false;
    size_t k = 0, outputs = 0;
    for (size_t i = 0; i < r.bundler_args.size(); ++i) {
        const std::string& a = r.bundler_args[i];
        if (a == ProbeResult::kOutputToken) {
            outputs += i > 0 && r.bundler_args[i - 1] == "-o";
        } else if (a.starts_with("--image=")) {
            const std::string token =
                std::string(ProbeResult::kInputToken) + std::to_string(k) + "@";
            if (k >= r.archs.size() || !a.starts_with("--image=file=" + token + ",") ||
                a.find(",arch=" + r.archs[k]) == std::string::npos)
                return false;
            ++k;
        }
    }
    return outputs == 1 && k == r.archs.size() &&
           words_with(r.bundler_args, ProbeResult::kInputToken) == k &&
           words_with(r.bundler_args, ProbeResult::kOutputToken) == 1 &&
           words_with(r.bundler_args, ProbeResult::kHostToken) == 0;
}

/// True when the bundler arguments of `r` bundle each architecture's input into
/// its own entry and the host's into the host entry, as parse_jobs writes them.
bool bundle_fits(const ProbeResult& r) {
    std::vector<std::string> targets, inputs;
    size_t target_args = 0, outputs = 0;
    for (const std::string& a : r.bundler_args) {
        if (a.starts_with("-targets=")) {
            ++target_args;
            for (size_t start = 9;;) {
                size_t comma = a.find(',', start);
                targets.push_back(a.substr(start, comma - start));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        } else if (a.starts_with("-input=")) {
            inputs.push_back(a.substr(7));
        } else if (a == "-output=" + std::string(ProbeResult::kOutputToken)) {
            ++outputs;
        }
    }
    if (target_args != 1 || outputs != 1 || targets.size() != r.archs.size() + 1 ||
        inputs.size() != targets.size())
        return false;
    // No placeholder anywhere else (the bundler would get it literally).
    if (words_with(r.bundler_args, ProbeResult::kInputToken) != r.archs.size() ||
        words_with(r.bundler_args, ProbeResult::kHostToken) != (r.rdc ? 1U : 0U) ||
        words_with(r.bundler_args, ProbeResult::kOutputToken) != 1)
        return false;
    size_t k = 0, hosts = 0;
    for (size_t i = 0; i < targets.size(); ++i) {
        if (targets[i].starts_with("host-")) {
            ++hosts;
            if (inputs[i] != (r.rdc ? std::string(ProbeResult::kHostToken) : "/dev/null"))
                return false;
        } else {
            if (k >= r.archs.size() || bundle_entry_arch(targets[i]) != r.archs[k] ||
                inputs[i] != std::string(ProbeResult::kInputToken) + std::to_string(k) + "@")
                return false;
            ++k;
        }
    }
    return hosts == 1 && k == r.archs.size();
}

/// An executable regular file (links followed).
bool executable(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

/// The program `name` (clang-offload-bundler, ...) that the clang driver of
/// `req` runs now, found as clang finds its tools (Driver::GetProgramPath):
/// in each -B prefix, in the folder the compiler was named from (its
/// InstalledDir: argv[0], looked up in PATH when it has no '/'), in the folder
/// of its real file, then in PATH. nullopt when the compiler is no clang (hipcc
/// runs a clang of its own choosing) or is not found; "" when no such program is.
std::optional<std::string> driver_program(const ProbeRequest& req, const std::string& name) {
    if (req.argv.empty() || compile::compiler_kind(req.argv[0]) != compile::CompilerKind::Clang)
        return std::nullopt;
    const std::string& cc = req.argv[0];
    const std::string named =
        cc.find('/') == std::string::npos ? util::find_program(cc) : util::join_path(req.cwd, cc);
    char real[PATH_MAX];
    if (named.empty() || !::realpath(named.c_str(), real)) return std::nullopt;
    std::vector<std::string> dirs;
    for (const ParsedArg& a : parse_args(req.argv)) {
        if (!a.is("-B")) continue;
        struct stat st {};
        if (::stat(util::join_path(req.cwd, a.value).c_str(), &st) == 0 && S_ISDIR(st.st_mode))
            dirs.push_back(a.value);
        else if (executable(util::join_path(req.cwd, a.value + name))) // a prefix: "-B/x/pre-"
            return a.value + name;
    }
    auto dir_of = [](const std::string& p) { return p.substr(0, p.rfind('/')); };
    dirs.push_back(dir_of(named));
    dirs.push_back(dir_of(real));
    for (const std::string& d : dirs)
        if (std::string p = util::join_path(req.cwd, d + "/" + name); executable(p)) return p;
    return util::find_program(name);
}

/// True when `bundler` (an entry's) is the program the driver of `req` would run
/// for it now: the same file as driver_program() finds by its name. A compiler
/// whose choice is not known here (hipcc) accepts any known tool's name.
bool bundler_fits(const std::string& bundler, const ProbeRequest& req) {
    const std::string name(compile::base_name(bundler));
    if (name != "clang-offload-bundler" && name != "clang-offload-packager" &&
        name != "llvm-offload-binary")
        return false;
    std::optional<std::string> now = driver_program(req, name);
    if (!now) return true;
    return !now->empty() && util::file_id(*now) == util::file_id(bundler);
}

/// True when `r`, a cache entry, can stand for what a probe of compile `req`
/// gives (see ProbeCache::get): checks what a careless edit, a truncated
/// or a foreign cache can get wrong, cheaply and without running anything.
bool fits(const ProbeResult& r, const ProbeRequest& req) {
    const std::vector<std::string>& argv = req.argv;
    if (r.driver == DriverKind::None ||
        (r.driver == DriverKind::New && r.codegen.empty() && r.embed_option.empty()))
        return r.archs.empty() && r.bundler_args.empty() && r.codegen.empty(); // nothing to split
    if (!r.embed_option.empty() && (r.driver != DriverKind::New || !r.codegen.empty() || !r.rdc))
        return false;
    if (r.archs.empty() || r.bundler.empty() || r.bundler[0] != '/') return false;
    if (!executable(r.bundler) || !bundler_fits(r.bundler, req)) return false;
    std::vector<std::string> sorted = r.archs;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;
    // The old driver bundles in sorted order (clang 15, 19 and 22: a std::set or a
    // sorted list); a reordered entry would not be byte-identical. The new
    // driver's wrapper has an order of its own: there only the pairing is checked.
    if (r.driver == DriverKind::Old && sorted != r.archs) return false;
    if (std::vector<std::string> named = command_archs(argv);
        !named.empty() && named != arch_set(r.archs))
        return false;
    if (r.embed_option.empty() ? !bundle_fits(r) : !packer_fits(r)) return false;
    if (!r.codegen.empty()) {
        if (r.codegen.size() != r.archs.size()) return false;
        for (size_t k = 0; k < r.codegen.size(); ++k) {
            const auto& job = r.codegen[k];
            if (words_with(job, ProbeResult::kInputToken) != 1 ||
                words_with(job, ProbeResult::kOutputToken) == 0)
                return false;
            for (const std::string& w : job)
                if (w.starts_with("-mcpu=") && processor(w.substr(6)) != processor(r.archs[k]))
                    return false;
        }
    }
    return true;
}

} // namespace

ProbeCache::ProbeCache(std::string path, Prober prober)
    : path_(std::move(path)), prober_(std::move(prober)) {}

void ProbeCache::warn(const std::string& text) {
    if (warned_) return;
    warned_ = true;
    std::fprintf(stderr, "%s: warning: %s\n", path_.c_str(), text.c_str());
}

void ProbeCache::load() {
    if (loaded_) return;
    loaded_ = true;
    if (path_.empty()) return;
    Unread why = Unread::No;
    entries_ = read_entries(path_, why);
    if (why == Unread::NotRegular) foreign_ = true;
    if (why != Unread::No) warn(std::string("probe cache ignored (") + unread_text(why) + ")");
}

Status ProbeCache::save(const std::string& key, const ProbeResult& r) {
    if (path_.empty() || foreign_) return Ok{};
    if (std::string dir = parent_dir(path_); !dir.empty())
        if (auto s = util::make_dirs(dir); !s) return s;
    // Only a regular file is replaced; a device or fifo is never written into.
    auto mode = util::write_mode(path_);
    if (!mode) return mode.error();
    if (*mode == util::WriteMode::Through) {
        foreign_ = true;
        return make_error("it is not a regular file");
    }
    // Merged with what the file holds now, under the lock: other processes
    // (parallel launchers) may have added entries since we read it.
    util::FileLock lock = save_lock(path_ + ".lock");
    Unread why = Unread::No;
    std::map<std::string, ProbeResult> all = read_entries(path_, why);
    if (why == Unread::NotRegular) {
        foreign_ = true;
        return make_error("it is not a regular file");
    }
    all[key] = r;
    json probes = json::object();
    for (const auto& [k, v] : all)
        probes[k] = to_json(v);
    json doc{{"format", kFormat}, {"probes", probes}};
    return util::write_file_atomic(path_, doc.dump(2) + "\n");
}

Result<ProbeResult> ProbeCache::get(const ProbeRequest& req) {
    std::lock_guard lock(mutex_);
    load();
    std::string who = req.cwd;
    for (const std::string& e : req.env)
        who.append(1, '\0').append(e);
    if (!req.argv.empty()) who.append(1, '\0').append(req.argv[0]);
    auto head = heads_.find(who);
    if (head == heads_.end()) head = heads_.emplace(who, prober_.key_head(req)).first;
    if (!head->second) return head->second.error();
    const std::string key = probe_key_with(*head->second, req.argv);
    if (auto it = entries_.find(key); it != entries_.end()) {
        // The architectures are part of the key, so one check per key suffices.
        // A farm request needs the guard's verdict on the distributed shape:
        // an entry without it is probed again (once: a prober without the
        // guard never gives one).
        if ((checked_.contains(key) || fits(it->second, req)) &&
            (!req.farm || it->second.distribute_checked || farm_probed_.contains(key))) {
            checked_.insert(key);
            return it->second;
        }
        entries_.erase(it); // probed again below, and replaced in the file
    }
    if (auto it = failures_.find(key); it != failures_.end()) return it->second;
    ++probes_run_;
    auto r = prober_.run(req);
    if (!r) {
        failures_.emplace(key, r.error());
        return r;
    }
    entries_[key] = *r;
    checked_.insert(key);
    if (req.farm) farm_probed_.insert(key);
    // A cache that cannot be written must never break a build: the probe stands.
    if (auto s = save(key, *r); !s) warn("probe cache not saved (" + s.error().message + ")");
    return r;
}

} // namespace phc::probe
