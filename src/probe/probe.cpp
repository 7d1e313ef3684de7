#include "probe/probe.h"

#include "compile/analysis.h"
#include "compile/command.h"
#include "compile/options.h"
#include "compile/shell.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/subprocess.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <sys/stat.h>
#include <unistd.h>

namespace phc::probe {

using compile::base_name;
using compile::compiler_kind;
using compile::CompilerKind;
using compile::join_command;
using compile::kNotDriver;
using compile::parse_args;
using compile::ParsedArg;
using util::join_path;

bool ProbeResult::has_host_input() const {
    return std::any_of(bundler_args.begin(), bundler_args.end(), [](const std::string& a) {
        return a.find(kHostToken) != std::string::npos;
    });
}

std::vector<std::string> ProbeResult::bundler_argv(const std::vector<std::string>& inputs,
                                                   const std::string& output,
                                                   const std::string& host) const {
    std::vector<std::string> out{bundler};
    for (const std::string& a : bundler_args) {
        std::string s = a;
        if (size_t at = s.find(kInputToken); at != std::string::npos) {
            char* end = nullptr;
            size_t k = std::strtoul(s.c_str() + at + kInputToken.size(), &end, 10);
            std::string rest = *end == '@' ? std::string(end + 1) : std::string();
            s = s.substr(0, at) + (k < inputs.size() ? inputs[k] : std::string()) + rest;
        } else if (size_t o = s.find(kOutputToken); o != std::string::npos) {
            s = s.substr(0, o) + output + s.substr(o + kOutputToken.size());
        } else if (size_t h = s.find(kHostToken); h != std::string::npos) {
            s = s.substr(0, h) + host + s.substr(h + kHostToken.size());
        }
        out.push_back(std::move(s));
    }
    return out;
}

namespace {

/// Words of one `-###` job line: double-quoted, with \" \\ \$ escapes.
std::vector<std::string> job_words(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        if (line[i] != '"') {
            ++i;
            continue;
        }
        std::string w;
        for (++i; i < line.size() && line[i] != '"'; ++i) {
            if (line[i] == '\\' && i + 1 < line.size()) ++i;
            w += line[i];
        }
        ++i;
        out.push_back(std::move(w));
    }
    return out;
}

/// The words of every line of `text` that is a command (` "program" ...`), as
/// `words` reads them.
std::vector<std::vector<std::string>>
command_lines(std::string_view text, std::vector<std::string> (*words)(std::string_view)) {
    std::vector<std::vector<std::string>> jobs;
    for (size_t start = 0; start < text.size();) {
        size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view line = text.substr(start, nl - start);
        start = nl + 1;
        if (!line.starts_with(" \"")) continue;
        std::vector<std::string> job = words(line);
        if (!job.empty()) jobs.push_back(std::move(job));
    }
    return jobs;
}

/// The jobs `-###` printed: the words of every line that is a quoted command.
std::vector<std::vector<std::string>> jobs_of(std::string_view text) {
    return command_lines(text, job_words);
}

} // namespace

std::string bundle_entry_arch(std::string_view entry) {
    // "<kind>-<triple>-<target ID>", the triple of three or four parts
    // ("amdgcn-amd-amdhsa-", "amdgcn-amd-amdhsa-unknown"): the target ID starts
    // at the last part naming a GPU ("gfx906:xnack+", "gfx9-generic").
    std::string_view head = entry.substr(0, entry.find(':'));
    size_t at = std::string_view::npos;
    for (size_t k = head.find("-gfx"); k != std::string_view::npos; k = head.find("-gfx", k + 1))
        at = k + 1;
    return at == std::string_view::npos ? std::string() : std::string(entry.substr(at));
}

std::vector<std::string> bundle_targets(const std::vector<std::string>& job) {
    std::vector<std::string> out;
    for (size_t i = 1; i < job.size(); ++i) {
        if (!job[i].starts_with("-targets=")) continue;
        out.clear();
        std::string_view v = std::string_view(job[i]).substr(9);
        for (size_t start = 0; start <= v.size();) {
            size_t comma = std::min(v.find(',', start), v.size());
            out.emplace_back(v.substr(start, comma - start));
            start = comma + 1;
        }
    }
    return out;
}

std::string job_word_after(const std::vector<std::string>& job, std::string_view flag) {
    for (size_t i = 1; i + 1 < job.size(); ++i)
        if (job[i] == flag) return job[i + 1];
    return {};
}

std::string job_value(const std::vector<std::string>& job, std::string_view prefix) {
    for (size_t i = 1; i < job.size(); ++i)
        if (job[i].starts_with(prefix)) return job[i].substr(prefix.size());
    return {};
}

namespace {

/// The words of one `--wrapper-verbose` line: the program in double quotes,
/// then its arguments separated by spaces (quoted when they hold spaces).
std::vector<std::string> verbose_words(std::string_view line) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < line.size()) {
        if (line[i] == ' ') {
            ++i;
            continue;
        }
        std::string w;
        if (line[i] == '"') {
            for (++i; i < line.size() && line[i] != '"'; ++i) {
                if (line[i] == '\\' && i + 1 < line.size()) ++i;
                w += line[i];
            }
            ++i;
        } else {
            while (i < line.size() && line[i] != ' ')
                w += line[i++];
        }
        out.push_back(std::move(w));
    }
    return out;
}

} // namespace

std::vector<std::vector<std::string>> wrapper_jobs(std::string_view text) {
    return command_lines(text, verbose_words);
}

namespace {

/// Reads the bundler job into `r`: targets, inputs turned into placeholders.
Status read_bundler(const std::vector<std::string>& job, ProbeResult& r) {
    r.bundler = job[0];
    const std::vector<std::string> targets = bundle_targets(job);
    size_t input_no = 0;
    for (size_t i = 1; i < job.size(); ++i) {
        std::string a = job[i];
        if (a.starts_with("-input=")) {
            if (input_no >= targets.size())
                return make_error("the bundler job has more inputs than targets");
            const std::string& t = targets[input_no++];
            if (t.starts_with("host-")) {
                if (a != "-input=/dev/null") {
                    r.rdc = true;
                    a = "-input=" + std::string(ProbeResult::kHostToken);
                }
            } else {
                a = "-input=" + std::string(ProbeResult::kInputToken) +
                    std::to_string(r.archs.size()) + "@";
                r.archs.push_back(bundle_entry_arch(t));
            }
        } else if (a.starts_with("-output=")) {
            a = "-output=" + std::string(ProbeResult::kOutputToken);
        }
        r.bundler_args.push_back(std::move(a));
    }
    if (input_no != targets.size() || targets.empty())
        return make_error("the bundler job's -targets= and -input= do not match");
    return Ok{};
}

/// The new driver's RDC compile: reads the packer job into `r` (its --image=
/// files turned into placeholders, its output into kOutputToken) when a host cc1
/// job embeds the packed file; leaves `r` as it is otherwise.
Status read_packer(const std::vector<std::vector<std::string>>& jobs, ProbeResult& r) {
    for (const auto& job : jobs) {
        std::string_view prog = base_name(job[0]);
        if (!prog.starts_with("llvm-offload-binary") && !prog.starts_with("clang-offload-packager"))
            continue;
        const std::string out = job_word_after(job, "-o");
        if (out.empty()) return make_error("the offload packer's job names no -o file");
        std::string embed;
        for (const auto& other : jobs)
            for (size_t i = 1; i < other.size() && embed.empty(); ++i)
                if (other[i].size() > out.size() && other[i].ends_with(out) &&
                    other[i].starts_with("-f"))
                    embed = other[i].substr(0, other[i].size() - out.size());
        if (embed.empty() || embed.back() != '=') return Ok{}; // not embedded: the wrapper's
        ProbeResult p;
        p.bundler = job[0];
        for (size_t i = 1; i < job.size(); ++i) {
            std::string a = job[i];
            if (a == out && job[i - 1] == "-o") {
                a = std::string(ProbeResult::kOutputToken);
            } else if (a.starts_with("--image=")) {
                size_t file = a.find("file="), comma = a.find(',', file);
                size_t arch = a.find("arch="), arch_end = a.find(',', arch);
                if (file == std::string::npos || arch == std::string::npos ||
                    comma == std::string::npos)
                    return make_error("the offload packer's --image= names no file or "
                                      "arch: '" +
                                      a + "'");
                std::string token =
                    std::string(ProbeResult::kInputToken) + std::to_string(p.archs.size()) + "@";
                p.archs.push_back(a.substr(arch + 5, arch_end == std::string::npos
                                                         ? std::string::npos
                                                         : arch_end - arch - 5));
                a = a.substr(0, file + 5) + token + a.substr(comma);
            }
            p.bundler_args.push_back(std::move(a));
        }
        if (p.archs.empty()) return make_error("the offload packer's job packs no image");
        r.bundler = std::move(p.bundler);
        r.bundler_args = std::move(p.bundler_args);
        r.archs = std::move(p.archs);
        r.embed_option = std::move(embed);
        r.rdc = true;
        return Ok{};
    }
    return Ok{};
}

} // namespace

Result<ProbeResult> parse_jobs(std::string_view text) {
    ProbeResult r;
    bool any_job = false, gpubinary = false, bundler_seen = false, cuid_seen = false;
    for (const std::vector<std::string>& job : jobs_of(text)) {
        any_job = true;
        std::string_view prog = base_name(job[0]);
        if (prog.starts_with("clang-offload-packager") || prog.starts_with("clang-linker-wrapper"))
            r.driver = DriverKind::New;
        for (size_t i = 1; i < job.size(); ++i) {
            if (job[i].starts_with("-fembed-offload-object")) r.driver = DriverKind::New;
            if (job[i] == "-fcuda-include-gpubinary") gpubinary = true;
            if (job[i].starts_with("-cuid=")) cuid_seen = true;
            if (job[i] == "-triple" && i + 1 < job.size() && job[i + 1].starts_with("amdgcn")) {
                if (r.device_compiles++ == 0)
                    for (size_t k = 1; k + 1 < job.size(); ++k)
                        if (job[k] == "-mlink-builtin-bitcode")
                            r.device_libraries.push_back(job[k + 1]);
            }
        }
        if (prog.starts_with("clang-offload-bundler") && !bundler_seen) {
            bundler_seen = true;
            if (auto s = read_bundler(job, r); !s) return s.error();
        }
    }
    if (!any_job) return make_error("the driver printed no jobs for -###");
    r.uses_cuid = cuid_seen;
    if (r.driver == DriverKind::New) {
        if (auto st = read_packer(jobs_of(text), r); !st) return st.error();
        return r;
    }
    if (!bundler_seen) return r; // DriverKind::None: no offloading at all
    r.driver = DriverKind::Old;
    if (!gpubinary) r.rdc = true;
    if (r.bundler.empty() || r.bundler[0] != '/')
        return make_error("the driver names its bundler '" + r.bundler +
                          "' without a path: it could not run it either (is it installed?)");
    return r;
}

namespace {

/// Calls `take(word)` for each word of argv that goes into the key, in order (see
/// probe_key_flags).
template <typename Take> void for_each_key_flag(const std::vector<std::string>& argv, Take take) {
    for (const ParsedArg& a : parse_args(argv)) {
        if (a.input) { // its name does not matter, but its suffix picks the language
            take(std::string_view("<input>" + std::string(util::extension(a.value))));
            continue;
        }
        if (a.option && (a.option->flags & kNotDriver)) continue;
        const std::string& w = argv[a.index];
        if (!a.option && (w.starts_with("-O") || w.starts_with("-g") || w.starts_with("-W") ||
                          w.starts_with("-std=")))
            continue;
        for (size_t k = 0; k < a.count; ++k)
            take(std::string_view(argv[a.index + k]));
    }
}

/// The compiler's resolved path, for the key and for messages.
Result<std::string> resolve_compiler(const ProbeRequest& req) {
    if (req.argv.empty()) return make_error("empty compile command");
    const std::string& cc = req.argv[0];
    std::string found =
        cc.find('/') == std::string::npos ? util::find_program(cc) : join_path(req.cwd, cc);
    char buf[PATH_MAX];
    if (found.empty() || !::realpath(found.c_str(), buf))
        return make_error("compiler '" + cc + "' not found");
    return std::string(buf);
}

} // namespace

std::vector<std::string> probe_key_flags(const std::vector<std::string>& argv) {
    std::vector<std::string> out;
    for_each_key_flag(argv, [&](std::string_view w) { out.emplace_back(w); });
    return out;
}

Result<std::vector<std::string>> probe_key_head(const ProbeRequest& req) {
    auto path = resolve_compiler(req);
    if (!path) return path.error();
    struct stat st {};
    if (::stat(path->c_str(), &st) != 0) return make_error("cannot stat compiler '" + *path + "'");
    std::vector<std::string> head{"phc-probe-v1", *path, std::to_string(st.st_size)};
    head.push_back(std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec));
    head.push_back(req.argv[0]);
    for (const std::string& e : req.env)
        head.insert(head.end(), {"env", e});
    // hipcc (a Perl wrapper) also reads its configuration from the environment.
    if (compiler_kind(req.argv[0]) == CompilerKind::Hipcc) {
        for (const char* name :
             {"HIP_PATH", "ROCM_PATH", "HIP_CLANG_PATH", "HIP_PLATFORM", "HIP_COMPILER",
              "HIP_RUNTIME", "HIP_ROCCLR_HOME", "HIP_LIB_PATH", "DEVICE_LIB_PATH",
              "HCC_AMDGPU_TARGET", "HIPCC_COMPILE_FLAGS_APPEND", "HIP_CLANG_HCC_COMPAT_MODE"}) {
            const char* v = std::getenv(name);
            head.insert(head.end(), {name, v ? v : "\x01unset"});
        }
    }
    return head;
}

std::string probe_key_with(const std::vector<std::string>& head,
                           const std::vector<std::string>& argv) {
    util::Hasher h;
    for (const std::string& part : head)
        h.add(part);
    for_each_key_flag(argv, [&](std::string_view w) { h.add(w); });
    return h.hex128();
}

Result<std::string> probe_key(const ProbeRequest& req) {
    auto head = probe_key_head(req);
    if (!head) return head.error();
    return probe_key_with(*head, req.argv);
}

namespace {

/// Longest command line a probe error quotes, and longest compiler line.
constexpr size_t kShownMax = 200;

/// `text` cut to about `max` characters: its start and its end, "..." between.
std::string cut(std::string text, size_t max) {
    if (text.size() <= max) return text;
    const size_t tail = max / 4;
    return text.substr(0, max - tail - 5) + " ... " + text.substr(text.size() - tail);
}

/// The probe as the user would type it, for messages: the compile command
/// (not the scratch copy with TMPDIR and stand-in inputs), `extra` and -###,
/// cut to kShownMax characters.
std::string shown_probe(const ProbeRequest& req, const std::vector<std::string>& extra) {
    std::vector<std::string> argv = req.argv;
    argv.insert(argv.end(), extra.begin(), extra.end());
    return cut(join_command(argv) + " -###", kShownMax);
}

/// Compiler arguments longer than this (in bytes, with their NULs) go to the
/// driver in a response file: the kernel refuses an argv over ARG_MAX (2 MB
/// with an 8 MB stack, shared with the environment) or one word over 128 KB
/// ("Argument list too long"), which the build's own compile, reading its
/// response file, never meets.
constexpr size_t kMaxArgBytes = 96 << 10;

/// `words` as a response file clang reads back word for word (GNU rules: in
/// double quotes, a backslash takes the next character as it is).
std::string rsp_text(std::span<const std::string> words) {
    std::string out;
    for (const std::string& w : words) {
        out += '"';
        for (char c : w) {
            if (c == '"' || c == '\\') out += '\\';
            out += c;
        }
        out += "\"\n";
    }
    return out;
}

/// Runs `req.argv extra... -###` and returns what it printed; messages show
/// `original`, the request as the caller made it. Arguments over kMaxArgBytes
/// are passed in a response file in `rsp_dir` (the probe's scratch folder).
Result<std::string> run_jobs(const ProbeRequest& req, const std::vector<std::string>& extra,
                             const ProbeRequest& original, const std::string& rsp_dir) {
    if (req.argv.empty()) return make_error("empty compile command");
    std::vector<std::string> argv;
    if (!req.env.empty()) {
        argv.push_back("env");
        argv.insert(argv.end(), req.env.begin(), req.env.end());
    }
    std::vector<std::string> args(req.argv.begin() + 1, req.argv.end());
    args.insert(args.end(), extra.begin(), extra.end());
    args.push_back("-###");
    size_t bytes = 0;
    for (const std::string& a : args)
        bytes += a.size() + 1;
    argv.push_back(req.argv[0]);
    if (bytes > kMaxArgBytes && !rsp_dir.empty()) {
        const std::string rsp = rsp_dir + "/probe-" + std::to_string(extra.size()) + ".rsp";
        if (auto st = util::write_file_atomic(rsp, rsp_text(args)); !st)
            return make_error("cannot run the compiler probe `" + shown_probe(original, extra) +
                              "`: " + st.error().text());
        argv.push_back("@" + rsp);
    } else {
        argv.insert(argv.end(), args.begin(), args.end());
    }
    auto done = util::run_capture(argv, req.cwd);
    if (!done)
        return make_error("cannot run the compiler probe `" + shown_probe(original, extra) +
                          "`: " + done.error().message);
    if (done->exit_code != 0) {
        std::string all = done->err + done->out;
        size_t at = all.find("error:");
        size_t from = at == std::string::npos ? 0 : all.rfind('\n', at);
        from = from == std::string::npos || at == std::string::npos ? 0 : from + 1;
        std::string first = all.substr(from, all.find('\n', from) - from);
        return make_error("compiler probe `" + shown_probe(original, extra) + "` failed (exit " +
                          std::to_string(done->exit_code) +
                          "): " + cut(std::move(first), kShownMax));
    }
    return done->err + done->out;
}

/// True when the first device (amdgcn) cc1 job of the `-###` text `jobs`, or
/// with `device` false the first host cc1 job, carries `flag`.
bool cc1_job_has(std::string_view jobs, bool device, std::string_view flag) {
    for (const std::vector<std::string>& job : jobs_of(jobs)) {
        if (job.size() < 2 || job[1] != "-cc1") continue;
        if (job_word_after(job, "-triple").starts_with("amdgcn") != device) continue;
        return std::find(job.begin() + 1, job.end(), flag) != job.end();
    }
    return false;
}

} // namespace

namespace {

/// A private scratch directory for one probe: clang creates temporary directories
/// even for -### (clang-15 HIP leaves them behind), and inputs that do not exist yet
/// (generated sources) get empty stand-ins with the same suffix there, since the
/// driver checks that inputs exist and the probe depends only on their suffix.
/// Everything is removed when this goes out of scope.
class Scratch {
public:
    explicit Scratch(const ProbeRequest& req) : req_(req) {
        const char* tmp = std::getenv("TMPDIR");
        std::string base = tmp && *tmp ? tmp : "/tmp";
        std::string dir = base + "/phc-probe-XXXXXX";
        if (::mkdtemp(dir.data())) dir_ = dir;
        if (dir_.empty()) return; // probe without it: clang falls back to its own temp dir
        req_.env.push_back("TMPDIR=" + dir_);
        for (const ParsedArg& a : parse_args(req.argv)) {
            if (!a.input || a.value == "-" || util::file_exists(join_path(req.cwd, a.value)))
                continue;
            std::string path =
                dir_ + "/input" + std::to_string(a.index) + std::string(util::extension(a.value));
            if (util::write_file_atomic(path, "").ok()) {
                req_.argv[a.index] = path;
                stand_ins_[path] = a.value;
            }
        }
    }
    ~Scratch() {
        std::error_code ec;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

    /// The request to run: TMPDIR set, missing inputs replaced.
    const ProbeRequest& request() const { return req_; }
    /// The scratch directory ("" when none could be made).
    const std::string& dir() const { return dir_; }
    /// Stand-in path -> the input it stands for, as written.
    const std::map<std::string, std::string>& stand_ins() const { return stand_ins_; }

private:
    ProbeRequest req_;
    std::string dir_;
    std::map<std::string, std::string> stand_ins_;
};

} // namespace

namespace {

/// Why running `program` failed, for a reason: it could not start, or its exit
/// status and the first line it printed.
std::string failure(const std::string& program, const Result<util::Completed>& ran) {
    if (!ran) return ran.error().message;
    const std::string all = ran->err + ran->out;
    const std::string first = cut(all.substr(0, all.find('\n')), kShownMax);
    return std::string(base_name(program)) + " failed (exit " + std::to_string(ran->exit_code) +
           ")" + (first.empty() ? "" : ": " + first);
}

/// For the new driver without -fgpu-rdc: fills r.codegen, r.bundler, its
/// arguments and r.archs from what clang-linker-wrapper would run (its
/// --dry-run on stand-in images packed as the driver packs them). Leaves r
/// as it is when the jobs are not that (RDC) or the wrapper's are not
/// understood, and returns which phase gave up and why (the compile is then
/// left alone; ProbeResult::not_understood); "" when r was filled.
std::string probe_wrapper(std::string_view text, const std::string& scratch, ProbeResult& r) {
    std::vector<std::string> wrapper, packer;
    for (const auto& job : jobs_of(text)) {
        std::string_view prog = base_name(job[0]);
        if (prog.starts_with("clang-linker-wrapper") &&
            std::find(job.begin(), job.end(), "--emit-fatbin-only") != job.end())
            wrapper = job;
        if (prog.starts_with("llvm-offload-binary") || prog.starts_with("clang-offload-packager"))
            packer = job;
    }
    if (wrapper.empty()) return "the driver runs no clang-linker-wrapper --emit-fatbin-only";
    if (packer.empty()) return "the driver runs no offload packer";
    if (scratch.empty()) return "no scratch folder for the wrapper's dry run";
    // Pack stand-in images like the driver's (its --image= specs, other files)
    // and let the wrapper say what it would run for them.
    std::vector<std::string> pack{packer[0], "-o", scratch + "/phc-probe.out"};
    for (size_t i = 1; i < packer.size(); ++i) {
        const std::string& w = packer[i];
        size_t file = w.find("file="), comma = w.find(',', file);
        if (!w.starts_with("--image=") || file == std::string::npos) continue;
        std::string image = scratch + "/phc-image" + std::to_string(pack.size()) + ".o";
        if (!util::write_file_atomic(image, "phc probe stand-in\n").ok())
            return "packing stand-in images: cannot write " + image;
        pack.push_back(w.substr(0, file + 5) + image +
                       (comma == std::string::npos ? "" : w.substr(comma)));
    }
    auto packed = util::run_capture(pack);
    if (!packed || packed->exit_code != 0)
        return "packing stand-in images: " + failure(pack[0], packed);
    // The packed file by its name, wherever it stands: options may follow it
    // (clang 22 puts --compress last).
    const std::string packed_by_driver = job_word_after(packer, "-o");
    std::vector<std::string> dry = wrapper;
    bool reads_packed = false;
    for (size_t i = 1; i < dry.size(); ++i)
        if (dry[i] == packed_by_driver && dry[i - 1] != "-o") {
            dry[i] = scratch + "/phc-probe.out";
            reads_packed = true;
        }
    if (!reads_packed) return "the wrapper does not read the packer's output " + packed_by_driver;
    for (size_t i = 1; i + 1 < dry.size(); ++i)
        if (dry[i] == "-o") dry[i + 1] = scratch + "/phc-probe.hipfb";
    dry.insert(dry.begin(), {"env", "TMPDIR=" + scratch});
    dry.insert(dry.end(), {"--dry-run", "--wrapper-verbose"});
    auto ran = util::run_capture(dry);
    if (!ran || ran->exit_code != 0) return "the wrapper's dry run: " + failure(wrapper[0], ran);
    const std::string temp = scratch + "/";
    std::vector<std::vector<std::string>> compiles;
    std::vector<std::string> bundler;
    for (std::vector<std::string>& job : wrapper_jobs(ran->err + ran->out)) {
        if (base_name(job[0]).starts_with("clang-offload-bundler"))
            bundler = job;
        else
            compiles.push_back(std::move(job));
    }
    if (bundler.empty()) return "the wrapper's dry run runs no clang-offload-bundler";
    if (compiles.empty()) return "the wrapper's dry run runs no code generation";
    // The bundler's k-th input is the image one of the compiles writes.
    std::vector<std::string> inputs;
    for (const auto& w : bundler)
        if (w.starts_with("-input=") && w != "-input=/dev/null") inputs.push_back(w.substr(7));
    ProbeResult b;
    if (auto st = read_bundler(bundler, b); !st)
        return "the wrapper's bundler job: " + st.error().message;
    if (b.archs.size() != inputs.size())
        return "the wrapper's bundler job bundles " + std::to_string(b.archs.size()) +
               " architectures from " + std::to_string(inputs.size()) + " inputs";
    std::vector<std::vector<std::string>> codegen(inputs.size());
    for (auto job : compiles) {
        const std::string out = job_word_after(job, "-o");
        auto k = std::find(inputs.begin(), inputs.end(), out) - inputs.begin();
        if (static_cast<size_t>(k) == inputs.size())
            return "the wrapper's code generation writes " + out + ", which it does not bundle";
        if (!codegen[k].empty()) return "the wrapper's code generation writes " + out + " twice";
        size_t temps = 0;
        for (size_t i = 1; i < job.size(); ++i) {
            if (job[i - 1] == "-dumpdir") {
                job[i] = std::string(ProbeResult::kOutputToken) + ".";
            } else if (job[i] == out) {
                job[i] = std::string(ProbeResult::kOutputToken);
            } else if (job[i].starts_with(temp)) {
                job[i] = std::string(ProbeResult::kInputToken) + "0@";
                ++temps;
            } else if (job[i].find(scratch) != std::string::npos) {
                return "the wrapper's code generation names a temporary file in a form not "
                       "known: " +
                       job[i];
            }
        }
        if (temps != 1)
            return "the wrapper's code generation of " + out + " reads " + std::to_string(temps) +
                   " temporary files, not one";
        codegen[k] = std::move(job);
    }
    for (size_t k = 0; k < codegen.size(); ++k)
        if (codegen[k].empty()) return "the wrapper generates no code for " + inputs[k];
    r.bundler = b.bundler;
    r.bundler_args = b.bundler_args;
    r.archs = b.archs;
    r.codegen = std::move(codegen);
    return {};
}

} // namespace

Result<ProbeResult> run_probe(const ProbeRequest& original) {
    Scratch scratch(original);
    const ProbeRequest& req = scratch.request();
    auto jobs = run_jobs(req, {}, original, scratch.dir());
    if (!jobs) return jobs.error();
    auto r = parse_jobs(*jobs);
    if (!r) return make_error(r.error().message + " (probe `" + shown_probe(original, {}) + "`)");
    if (r->driver == DriverKind::New) {
        std::string why = probe_wrapper(*jobs, scratch.dir(), *r);
        if (r->codegen.empty() && r->embed_option.empty()) { // not understood
            r->not_understood = std::move(why);
            return r;
        }
    }
    if (r->driver == DriverKind::Old || !r->codegen.empty() || !r->embed_option.empty()) {
        auto host =
            run_jobs(req, {"--offload-host-only", "-cuid=phcprobecuid"}, original, scratch.dir());
        if (!host) return host.error();
        r->host_takes_cuid = cc1_job_has(*host, false, "-cuid=phcprobecuid");
        // clang 22 writes no depfile for a device-only compile (-MD is ignored).
        // One architecture: an RDC device-only compile of several cannot take -o.
        std::vector<std::string> one = {"--offload-device-only", "-MD", "-MF", "phcprobe.d"};
        if (!r->archs.empty())
            one.insert(one.end(), {"--no-offload-arch=all", "--offload-arch=" + r->archs[0]});
        if (r->driver == DriverKind::New) one.push_back("-emit-llvm");
        auto device = run_jobs(req, one, original, scratch.dir());
        if (!device) return device.error();
        r->device_takes_depfile = cc1_job_has(*device, true, "-dependency-file");
    }
    return r;
}

Result<DriverJobs> run_driver_jobs(const ProbeRequest& original) {
    Scratch scratch(original);
    if (scratch.dir().empty())
        return make_error("cannot create a scratch directory for the driver's temporary files");
    auto text = run_jobs(scratch.request(), {}, original, scratch.dir());
    if (!text) return text.error();
    DriverJobs d;
    d.jobs = jobs_of(*text);
    if (size_t at = text->find("clang version "); at != std::string::npos)
        d.clang_major = std::atoi(text->c_str() + at + 14);
    d.temp_dir = scratch.dir();
    for (auto& job : d.jobs)
        for (std::string& w : job)
            for (const auto& [path, word] : scratch.stand_ins()) {
                if (size_t at = w.find(path); at != std::string::npos &&
                                              at + path.size() == w.size() &&
                                              (at == 0 || w[at - 1] == '='))
                    w = w.substr(0, at) + word;
                // -main-file-name names the input by its base name: a stand-in's
                // ("input7.hip") depends on its place in the command.
                else if (w == base_name(path))
                    w = std::string(base_name(word));
            }
    if (d.jobs.empty()) return make_error("the driver printed no jobs for -###");
    return d;
}

} // namespace phc::probe
