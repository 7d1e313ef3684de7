#include "regen/regen.h"

#include "compile/analysis.h"
#include "compile/shell.h"
#include "ninja/build_log.h"
#include "ninja/manifest.h"
#include "ninja/paths.h"
#include "ninja/writer.h"
#include "probe/probe.h"
#include "regen/depsets.h"
#include "regen/edges.h"
#include "regen/original.h"
#include "regen/records.h"
#include "split/link.h"
#include "split/plan.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>
#include <thread>
#include <unistd.h>

namespace phc::regen {

namespace {

constexpr const char* kProbeDir = ".phc-ninja";
constexpr const char* kProbeCache = ".phc-ninja/probes.json";

/// With PHC_REGEN_TIMING=1, how long each phase took, on stderr (benchmarks, profiling).
class PhaseTimer {
public:
    PhaseTimer() {
        const char* v = std::getenv("PHC_REGEN_TIMING");
        on_ = v && std::string_view(v) == "1";
    }
    void done(const char* phase) {
        if (!on_) return;
        auto now = std::chrono::steady_clock::now();
        std::fprintf(stderr, "phc-ninja regen: %-5s %7.1f ms\n", phase,
                     std::chrono::duration<double, std::milli>(now - last_).count());
        last_ = now;
    }

private:
    bool on_ = false;
    std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

/// Cheap test that a command may be an RDC HIP link (planned after the compiles).
bool looks_like_rdc_link(std::string_view cmd) {
    return cmd.find("-fgpu-rdc") != std::string_view::npos &&
           (cmd.find("--hip-link") != std::string_view::npos ||
            cmd.find("hipcc") != std::string_view::npos) &&
           cmd.find(" -c ") == std::string_view::npos && !cmd.ends_with(" -c");
}

/// Cheap test that a command may be a HIP compile worth analysing.
bool may_be_hip_compile(std::string_view cmd) {
    for (std::string_view needle :
         {"offload-arch", "cuda-gpu-arch", "hipcc", "-x hip", "-xhip", ".hip ", ".hip'", ".hip\""})
        if (cmd.find(needle) != std::string_view::npos) return true;
    return cmd.ends_with(".hip");
}

bool is_generator(const ninja::EdgeRef& e) {
    auto g = e.evaluate("generator");
    return g && !g->empty();
}

/// The statements that go first in the rewritten top file.
std::string marker_text(const std::string& original) {
    return fmt::format("{}multi-arch HIP compiles of {} split per architecture.\n{}\n\n", kMarker,
                       original, kGeneratedLine);
}

/// What the re-run hook needs to know of the run.
struct HookContext {
    std::vector<std::string> tops; ///< the top manifests rewritten, relative to build_dir
};

/// The command that runs regen again, as the hook and the stand-in run it.
std::string regen_again(const Options& o) {
    std::string again =
        compile::quote_word(o.self) + " regen -C " + compile::quote_word(o.build_dir);
    if (o.manifest != "build.ninja") again += " -f " + compile::quote_word(o.manifest);
    if (o.device_jobs > 0) again += fmt::format(" --device-jobs {}", o.device_jobs);
    if (o.strict) again += " --strict";
    if (!o.select.only().empty()) again += " --only " + compile::quote_word(o.select.only());
    if (!o.select.skip().empty()) again += " --skip " + compile::quote_word(o.select.skip());
    if (o.overlap_host) again += " --overlap-host";
    return again + " --quiet";
}

/// The stand-in for a top manifest while regen has not succeeded after CMake
/// re-ran: it starts with kMarker (so regen reads CMake's manifest from
/// FILE.cmake), and its one edge, which writes what CMake's generator edge
/// writes, depends on an always-dirty phony target: every ninja run retries
/// regen first, and stops (loudly) while regen fails.
std::string stand_in(const ninja::EdgeRef& generator, const std::string& again) {
    std::string out = fmt::format(
        "{}stands in for the split manifest: CMake re-ran, phc-ninja regen did not finish.\n"
        "# CMake wrote <this file>.cmake. Every ninja run retries regen first, and\n"
        "# stops while it fails; when it succeeds, it replaces this file.\n\n",
        kMarker);
    ninja::RuleStatement rule{std::string(kRetryRule),
                              {{"command", again, true},
                               {"description",
                                "Re-running phc-ninja regen, which failed after CMake re-ran "
                                "(nothing is built until it succeeds)",
                                true},
                               {"generator", "1"}}};
    ninja::BuildStatement always;
    always.outputs = {"phc_regen_always"};
    always.rule = "phony";
    ninja::BuildStatement retry;
    for (auto o : generator.outputs())
        retry.outputs.emplace_back(o);
    for (auto o : generator.implicit_outputs())
        retry.implicit_outputs.emplace_back(o);
    retry.rule = std::string(kRetryRule);
    retry.implicit = {"phc_regen_always"};
    for (const ninja::NewStatement& st :
         std::vector<ninja::NewStatement>{rule, ninja::RawStatement{"\n"}, always, retry})
        if (auto text = ninja::render(st)) out += *text;
    return out;
}

/// The generator edge again, with a command that, after CMake, replaces every
/// top manifest CMake wrote by a stand-in (CMake's goes to FILE.cmake) and
/// then runs regen, which replaces the stand-ins. The stand-ins are in place
/// before regen can fail (phc-ninja moved or deleted, an error, an interrupt),
/// so ninja never loads CMake's unsplit manifest without the hook: it retries
/// regen on every run until regen succeeds. A top that is already regen's own
/// (first line kMarker) is left as it is.
ninja::BuildStatement hooked_generator(const ninja::EdgeRef& e, const std::string& command,
                                       const Options& o, const HookContext& hook) {
    ninja::BuildStatement b;
    auto strings = [](const std::vector<std::string_view>& v) {
        return std::vector<std::string>(v.begin(), v.end());
    };
    b.outputs = strings(e.outputs());
    b.implicit_outputs = strings(e.implicit_outputs());
    b.rule = std::string(e.rule().name);
    b.inputs = strings(e.inputs());
    b.implicit = strings(e.implicit_inputs());
    b.order_only = strings(e.order_only());
    b.validations = strings(e.validations());
    for (const auto& eb : e.bindings())
        if (eb.name != "command")
            b.bindings.push_back({std::string(eb.name), std::string(eb.source), false});
    const std::string again = regen_again(o);
    // printf's arguments: the stand-in's lines (ninja text; the shell's quoting).
    std::string lines;
    const std::string text = stand_in(e, again);
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        lines += " " + compile::quote_word(std::string_view(text).substr(at, nl - at));
        at = nl + 1;
    }
    // Absolute paths: CMake's command may change directory ("cd DIR && cmake ...").
    std::string files;
    for (const std::string& top : hook.tops)
        files += " " + compile::quote_word(o.build_dir + "/" + top);
    const std::string marker = compile::quote_word(kMarker);
    const std::string install = fmt::format(
        "for f in{}; do [ -f \"$f\" ] || continue; l=; IFS= read -r l <\"$f\"; case \"$l\" in "
        "{}*) ;; *) printf '%s\\n'{} >\"$f.phc-stub\" && mv -f \"$f\" \"$f.cmake\" && "
        "mv -f \"$f.phc-stub\" \"$f\" || exit 1;; esac; done",
        files, marker, lines);
    b.bindings.push_back({"command", command + " && { " + install + "; } && " + again, true});
    return b;
}

/// Files that must be rewritten: the edited ones and every file including them.
std::set<uint32_t> files_to_write(const ninja::Manifest& m) {
    std::set<uint32_t> out{0};
    for (uint32_t f = 1; f < m.files().size(); ++f) {
        if (!m.edited(f)) continue;
        for (int32_t g = static_cast<int32_t>(f); g > 0; g = m.files()[g].parent)
            out.insert(static_cast<uint32_t>(g));
    }
    return out;
}

/// Points include/subninja statements at the rewritten copies of included files.
Status redirect_includes(ninja::Manifest& m, const std::set<uint32_t>& rewrite) {
    for (uint32_t f : rewrite) {
        const auto& stmts = m.files()[f].statements;
        for (uint32_t i = 0; i < stmts.size(); ++i) {
            const auto& s = stmts[i];
            bool inc = s.kind == ninja::StatementKind::Include;
            if ((!inc && s.kind != ninja::StatementKind::Subninja) || s.target <= 0) continue;
            if (!rewrite.count(static_cast<uint32_t>(s.target))) continue;
            std::string path = m.files()[s.target].path + ".phc";
            if (auto st = m.replace({f, i}, {ninja::IncludeStatement{path, !inc}}); !st) return st;
        }
    }
    return Ok{};
}

/// Writes the concatenation of `pieces` to `path` unless it already holds exactly that.
/// Rewritten manifests go without fsync, as CMake writes build.ninja: the rename
/// keeps readers and an interrupted regen safe, and a manifest lost to a power
/// cut is made again by cmake. CMake's saved original is synced (`sync`): it is
/// written once per CMake run and nothing could make it again.
Status write_if_changed(const std::string& path, std::span<const std::string_view> pieces,
                        Summary& sum, bool dry, util::Sync sync = util::Sync::None) {
    if (util::file_holds(path, pieces)) return Ok{};
    sum.written.push_back(path);
    if (dry) return Ok{};
    return util::write_file_atomic(path, pieces, sync);
}

/// Refuses an -o (not in place, not stdout) that regen cannot write, or that is a
/// file it reads or writes besides it: CMake's original (saved or to be saved),
/// any loaded manifest file, the rewritten copy of an included one. Files are
/// compared by identity where they exist, by normalised absolute path otherwise.
Status check_output(const ninja::Manifest& m, const Options& opts) {
    if (auto mode = util::write_mode(opts.output); !mode) return mode.error();
    const util::FileId out = util::file_id(opts.output);
    auto refuse = [&](const std::string& path, std::string_view what) {
        return error_at(opts.output,
                        fmt::format("refusing to write the output over {}: {}", path, what));
    };
    const std::string original = original_path(opts.manifest);
    if (out == util::file_id(original))
        return refuse(original, "regen keeps CMake's original manifest there");
    if (out == util::file_id(opts.manifest))
        return refuse(opts.manifest, "it is the manifest (rewrite it in place: no -o)");
    for (size_t f = 0; f < m.files().size(); ++f) {
        const std::string& path = m.files()[f].path;
        if (out == util::file_id(path)) return refuse(path, "regen reads it");
        if (f > 0 && out == util::file_id(path + ".phc"))
            return refuse(path + ".phc", "regen writes the rewritten included file there");
    }
    return Ok{};
}

/// Writes the top manifest to standard output (-o -).
Status write_stdout(std::span<const std::string_view> pieces, Summary& sum, bool dry) {
    sum.written.push_back("-");
    if (dry || util::write_all(1, pieces)) return Ok{};
    return error_at("-", fmt::format("cannot write to stdout: {}", std::strerror(errno)));
}

/// `e` placed at the edge's line, unless it has a location of its own.
Error edge_error(const ninja::Manifest& m, const ninja::EdgeRef& edge, Error e) {
    if (!e.where.empty()) return e;
    const auto& file = m.files()[edge.statement().file];
    e.where = fmt::format("{}:{}", file.path, m.statement(edge.statement()).line);
    return e;
}

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
    std::string text;                         ///< the rendered split edges, when d.split
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
        rules.reset();
    }
};

/// What planning reads; shared by the planning threads.
struct Context {
    const ninja::Manifest& m;
    probe::ProbeCache& probes;
    const Names& names;
    bool device_pool;
    const split::Selection& select;
};

/// The output paths of the build statements in `text` (rendered split edges).
std::vector<std::string> build_outputs(std::string_view text) {
    std::vector<std::string> out;
    for (size_t at = 0; at < text.size();) {
        size_t nl = text.find('\n', at);
        std::string_view line = text.substr(at, nl == std::string_view::npos ? nl : nl - at);
        at = nl == std::string_view::npos ? text.size() : nl + 1;
        if (!line.starts_with("build ")) continue;
        std::string path;
        for (size_t i = 6; i <= line.size(); ++i) {
            char ch = i < line.size() ? line[i] : ' ';
            if (ch == '$' && i + 1 < line.size()) {
                path += line[++i]; // "$ ", "$:", "$$": the writer's only escapes in paths
            } else if (ch == ' ' || ch == ':') {
                if (!path.empty() && path != "|") out.push_back(path);
                path.clear();
                if (ch == ':') break;
            } else {
                path += ch;
            }
        }
    }
    return out;
}

/// Why the split edges in `text` cannot replace edge `edge`: a file they write
/// is already an output of another edge (ninja would reject the manifest) or a
/// file the manifest reads; "" when none is.
std::string output_clash(const ninja::Manifest& m, size_t edge, std::string_view text) {
    for (const std::string& path : build_outputs(text)) {
        auto node = m.find_node(path);
        if (!node) continue;
        int32_t by = m.producer(*node);
        if (by == static_cast<int32_t>(edge)) continue;
        if (by < 0)
            return fmt::format("the split would write {}, which the manifest already reads as an "
                               "input",
                               path);
        const auto& where = m.edge(static_cast<size_t>(by)).statement();
        return fmt::format("the split would write {}, which the edge at {}:{} already writes", path,
                           m.files()[where.file].path, m.statement(where).line);
    }
    return {};
}

/// Why the compiler of a HIP compile cannot be probed, when that is what stops
/// its plan; nullopt when it probes fine (the ProbeCache remembers failures,
/// so this runs nothing again). The cache remembers the message of the first
/// command of its key (another edge's, on any thread): a command it quotes is
/// replaced by this edge's own.
std::optional<Error> probe_failure(std::string_view command, const compile::AnalyzeInput& in,
                                   probe::ProbeCache& probes) {
    compile::Analysis a = compile::analyze_string(command, in);
    if (!a.decision.split()) return std::nullopt;
    auto probe = probes.get({a.command.env, a.expanded, a.work_dir()});
    if (probe) return std::nullopt;
    Error e = probe.error();
    std::string& msg = e.message;
    size_t open = msg.find("probe `");
    size_t close = open == std::string::npos ? open : msg.find('`', open + 7);
    if (close != std::string::npos) {
        open += 7;
        std::string own = compile::join_command(a.expanded) + " -###";
        constexpr size_t kMax = 200; // as probe.cpp cuts it
        if (own.size() > kMax)
            own = own.substr(0, kMax - kMax / 4 - 5) + " ... " + own.substr(own.size() - kMax / 4);
        msg.replace(open, close - open, own);
    }
    return e;
}

/// True when a HIP-looking command left alone for `code` is no HIP compile at
/// all (a link, a custom command): it counts as one of the other edges, not as
/// a HIP edge left alone.
bool not_a_compile(std::string_view code, std::string_view command) {
    if (code == "no-compile") return true; // a link
    if (code != "not-simple" && code != "unknown-compiler") return false;
    // Shell structure regen does not model, or a program that is not a known
    // compiler (cmake -E, a script): a compile only if a word is -c.
    for (size_t at = command.find("-c"); at != std::string_view::npos;
         at = command.find("-c", at + 1)) {
        bool starts = at == 0 || command[at - 1] == ' ' || command[at - 1] == '\t';
        bool ends = at + 2 == command.size() || command[at + 2] == ' ' || command[at + 2] == '\t' ||
                    command[at + 2] == ';';
        if (starts && ends) return false;
    }
    return true;
}

Outcome plan_one(const Context& c, size_t edge) {
    Outcome o;
    ninja::EdgeRef e = c.m.edge(edge);
    if (e.is_phony()) return o;
    if (is_generator(e)) {
        o.kind = Outcome::Kind::Generator;
        return o;
    }
    auto command = e.evaluate("command");
    if (!command) {
        o.error = edge_error(c.m, e, command.error());
        return o;
    }
    if (looks_like_rdc_link(*command)) {
        o.kind = Outcome::Kind::Link;
        return o;
    }
    if (!may_be_hip_compile(*command)) {
        o.kind = Outcome::Kind::Other;
        return o;
    }
    o.kind = Outcome::Kind::Hip;
    compile::AnalyzeInput in;
    auto rsp = e.evaluate_unescaped("rspfile");
    if (rsp && !rsp->empty()) {
        in.rspfile = *rsp;
        auto content = e.evaluate("rspfile_content");
        if (content) in.rspfile_content = *content;
    }
    auto carry = carry_of(e);
    if (!carry) {
        o.error = edge_error(c.m, e, carry.error());
        return o;
    }
    Rendered r = render_split(*command, in, *carry, c.probes, c.names, c.device_pool);
    if (r.error) {
        if (auto failed = probe_failure(*command, in, c.probes)) {
            // One compiler that cannot be probed (not built yet, a flag it does
            // not know) leaves its edges alone; the rest is split.
            std::string why = failed->message;
            o.d = {};
            o.d.object = carry->outputs.empty() ? std::string() : carry->outputs[0];
            o.d.code = "probe-failed";
            o.d.text = why;
            o.probe_error = edge_error(c.m, e, *failed);
        } else {
            o.error = edge_error(c.m, e, *r.error);
        }
    } else {
        o.d = std::move(r.d);
        o.text = std::move(r.text);
        if (!r.rules.empty()) o.rules = std::make_shared<const SharedRules>(std::move(r.rules));
    }
    if (!o.d.split && !o.probe_error && not_a_compile(o.d.code, *command))
        o.kind = Outcome::Kind::Other;
    // An object the user's --only/--skip leave out, or a split whose files an
    // existing edge already writes (or reads), is left alone.
    if (!o.d.split && !o.probe_error) return o;
    if (std::string why = c.select.why_not(o.d.object); !why.empty()) {
        o.probe_error.reset(); // not the user's concern: the object stays as it is
        o.leave(std::string(compile::reason_code(compile::Reason::NotSelected)), why);
        return o;
    }
    if (o.d.split)
        if (auto clash = output_clash(c.m, edge, o.text); !clash.empty())
            o.leave("output-clash", clash);
    return o;
}

/// True when an edge of `m` writes `path` (relative to the build directory,
/// regen's current one, or absolute).
bool built_here(const ninja::Manifest& m, const std::string& path) {
    std::string p = ninja::canonicalize_path(path);
    if (p.starts_with("/")) {
        std::error_code ec;
        std::string here = std::filesystem::current_path(ec).string() + "/";
        if (ec || !p.starts_with(here)) return false;
        p.erase(0, here.size());
    }
    auto node = m.find_node(p);
    return node && m.producer(*node) >= 0;
}

/// Plans the RDC link `edge` once the compiles are planned: `find` names the
/// objects whose split wrote per-architecture files. A link that is not an RDC
/// HIP link is Other; one whose driver cannot be asked is left alone.
Outcome plan_link_edge(const Context& c, size_t edge, const split::FindSplitObject& find) {
    Outcome o;
    o.kind = Outcome::Kind::Link;
    ninja::EdgeRef e = c.m.edge(edge);
    auto command = e.evaluate("command");
    auto carry = carry_of(e);
    if (!command || !carry) {
        o.error = edge_error(c.m, e, !command ? command.error() : carry.error());
        return o;
    }
    compile::LinkAnalysis a = compile::analyze_link_string(*command, {});
    if (a.decision.reason == compile::Reason::LinkNotRdc ||
        a.decision.reason == compile::Reason::NoCompile) {
        o.kind = Outcome::Kind::Other;
        return o;
    }
    auto rsp = e.evaluate_unescaped("rspfile");
    if (a.decision.split() && rsp && !rsp->empty())
        a.decision = {compile::Reason::LinkUnmodelled, "the link reads a ninja rspfile"};
    if (a.decision.split() && !a.command.cwd.empty())
        a.decision = {compile::Reason::LinkUnmodelled, "the link runs in another directory"};
    auto plan = split::plan_link(std::move(a), find, {}, split::LinkInputs::Planned,
                                 [&](const std::string& path) { return built_here(c.m, path); });
    if (!plan) {
        split::LinkPlan left;
        left.analysis.decision = {compile::Reason::LinkUnmodelled, plan.error().message};
        plan = std::move(left);
    }
    Rendered r = render_link(*plan, *carry, c.names, c.device_pool);
    if (r.error) o.error = edge_error(c.m, e, *r.error);
    o.d = std::move(r.d);
    o.text = std::move(r.text);
    if (o.d.split)
        if (auto clash = output_clash(c.m, edge, o.text); !clash.empty())
            o.leave("output-clash", clash);
    return o;
}

/// plan_link_edge() for every link plan_all() put aside, with the RDC objects
/// its compile edges were split into.
void plan_links(const Context& c, std::vector<Outcome>& done) {
    std::map<std::string, split::SplitObject> objects;
    for (const Outcome& o : done)
        if (o.kind == Outcome::Kind::Hip && o.d.split && o.d.rdc)
            objects[o.d.object] = split::SplitObject{o.d.object + ".phc", o.d.archs};
    auto find = [&](const std::string& path) -> const split::SplitObject* {
        auto it = objects.find(path);
        return it == objects.end() ? nullptr : &it->second;
    };
    for (size_t i = 0; i < done.size(); ++i)
        if (done[i].kind == Outcome::Kind::Link) done[i] = plan_link_edge(c, i, find);
}

/// plan_one() for every edge, on `threads_wanted` threads (0: a core each, up to 8,
/// one for small builds); planning only reads the manifest and ProbeCache locks
/// itself. Results do not depend on the threads.
std::vector<Outcome> plan_all(const Context& c, int threads_wanted) {
    const size_t n = c.m.edge_count();
    std::vector<Outcome> out(n);
    unsigned threads = threads_wanted > 0
                           ? static_cast<unsigned>(threads_wanted)
                           : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    if (threads_wanted <= 0 && n < 256) threads = 1;
    std::atomic<size_t> next{0};
    auto work = [&](unsigned) {
        constexpr size_t kChunk = 32;
        for (size_t from = next.fetch_add(kChunk); from < n; from = next.fetch_add(kChunk))
            for (size_t k = from; k < std::min(from + kChunk, n); ++k)
                out[k] = plan_one(c, k);
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < threads; ++t)
        helpers.emplace_back(work, t);
    work(0);
    for (auto& h : helpers)
        h.join();
    return out;
}

/// One top manifest being rewritten, with everything its edits borrow from.
struct Top {
    std::string manifest; ///< relative to the build directory
    OriginalSource src;
    ninja::Manifest m;
    std::vector<std::string_view> original; ///< CMake's bytes (views into `m`)
    std::vector<Outcome> done;
    std::set<uint32_t> rewrite; ///< files of `m` to write
};

/// The generator edges of `m` whose command already runs regen (carries_hook).
bool hooked(const ninja::Manifest& m) {
    for (size_t i = 0; i < m.edge_count(); ++i) {
        ninja::EdgeRef e = m.edge(i);
        if (!is_generator(e)) continue;
        if (auto cmd = e.evaluate("command"); cmd && carries_hook(*cmd)) return true;
    }
    return false;
}

/// Loads the original of `manifest`. A manifest that looks fresh by its first
/// bytes but whose generator edge already runs regen is regen's output with its
/// first lines removed: its original is FILE.cmake too.
Result<std::unique_ptr<Top>> load_top(const std::string& manifest) {
    auto top = std::make_unique<Top>();
    top->manifest = manifest;
    auto src = locate_original(manifest);
    if (!src) return src.error();
    auto loaded = ninja::load_manifest(src->path);
    if (!loaded) return loaded.error();
    if (src->needs_save && hooked(*loaded)) {
        src->path = original_path(manifest);
        src->needs_save = false;
        if (!util::file_exists(src->path))
            return error_at(manifest,
                            fmt::format("rewritten by phc-ninja (its generator edge runs "
                                        "phc-ninja regen), but its original {} is missing; "
                                        "re-run cmake",
                                        src->path));
        loaded = ninja::load_manifest(src->path);
        if (!loaded) return loaded.error();
    }
    top->src = std::move(*src);
    top->m = std::move(*loaded);
    // CMake's bytes, to keep as the original: the loaded text before any edit.
    top->original = top->m.pieces(0);
    return top;
}

/// The value of `name` in CMakeCache.txt text ("NAME:TYPE=value"), or "".
std::string cache_value(std::string_view cache, std::string_view name) {
    for (size_t at = 0; at < cache.size();) {
        size_t nl = cache.find('\n', at);
        std::string_view line = cache.substr(at, nl == std::string_view::npos ? nl : nl - at);
        at = nl == std::string_view::npos ? cache.size() : nl + 1;
        if (!line.starts_with(name) || line.size() <= name.size() || line[name.size()] != ':')
            continue;
        size_t eq = line.find('=');
        if (eq != std::string_view::npos) return std::string(line.substr(eq + 1));
    }
    return {};
}

/// The other top manifests of a build of CMake's Ninja Multi-Config generator
/// (CMakeCache.txt says so): build.ninja and each build-<Config>.ninja that
/// CMake's generator edge writes (one per configuration CMake wrote), besides
/// `manifest`, that exist. Empty for any other build.
std::vector<std::string> multi_config_tops(const ninja::Manifest& m, const std::string& manifest) {
    std::vector<std::string> out;
    if (manifest.find('/') != std::string::npos) return out;
    auto cache = util::read_file("CMakeCache.txt");
    if (!cache || cache_value(*cache, "CMAKE_GENERATOR") != "Ninja Multi-Config") return out;
    for (size_t i = 0; i < m.edge_count(); ++i) {
        ninja::EdgeRef e = m.edge(i);
        if (!is_generator(e)) continue;
        auto outputs = e.outputs();
        if (std::find(outputs.begin(), outputs.end(), manifest) == outputs.end()) continue;
        for (std::string_view o : outputs) {
            bool top = o == "build.ninja" || (o.starts_with("build-") && o.ends_with(".ninja") &&
                                              o.find('/') == std::string_view::npos);
            if (top && o != manifest && util::file_exists(std::string(o)) &&
                std::find(out.begin(), out.end(), o) == out.end())
                out.emplace_back(o);
        }
    }
    return out;
}

/// True when two lists of pieces spell the same bytes.
bool same_text(std::span<const std::string_view> a, std::span<const std::string_view> b) {
    size_t i = 0, j = 0, x = 0, y = 0;
    while (true) {
        while (i < a.size() && x == a[i].size())
            ++i, x = 0;
        while (j < b.size() && y == b[j].size())
            ++j, y = 0;
        if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
        size_t n = std::min(a[i].size() - x, b[j].size() - y);
        if (a[i].substr(x, n) != b[j].substr(y, n)) return false;
        x += n;
        y += n;
    }
}

/// The probe cache file, or "" (memory only) when its folder cannot be made
/// or written: the cache must never stop a run (a read-only build directory
/// with -o elsewhere). Says so once in `sum`.
std::string probe_cache_path(const Options& opts, Summary& sum) {
    if (opts.dry_run) return {};
    auto made = util::make_dirs(kProbeDir);
    if (made && ::access(kProbeDir, W_OK) == 0) return kProbeCache;
    std::string why = made ? std::strerror(errno) : made.error().message;
    sum.warnings.push_back(fmt::format("{}/{}: cannot be used ({}); compiler probes are kept in "
                                       "memory for this run",
                                       opts.build_dir.empty() ? "." : opts.build_dir, kProbeDir,
                                       why));
    return {};
}

/// The major and minor version `ninja --version` prints ("1.11.1"), or {0, 0}.
std::pair<int, int> ninja_version(const std::string& program) {
    auto run = util::run_capture({program, "--version"});
    if (!run || run->exit_code != 0) return {0, 0};
    int major = 0, minor = 0;
    if (std::sscanf(run->out.c_str(), "%d.%d", &major, &minor) != 2) return {0, 0};
    return {major, minor};
}

/// The command device edges run after their compile to record a header set
/// (depsets.h), or "" to keep whole records: when PHC_REGEN_DEPSETS=0, without
/// a writable .phc-ninja/ (`no_dir`), or when the ninja that builds (CMake's
/// CMAKE_MAKE_PROGRAM, else `ninja` in PATH) is older than 1.11 (a phony's
/// time is its newest input's only since 1.11) or unknown. The rewritten
/// manifest requires 1.11 when sets are used, so an older ninja stops loudly.
std::string deps_set_command(const Options& opts, bool no_dir,
                             const std::vector<std::unique_ptr<Top>>& tops) {
    const char* env = std::getenv("PHC_REGEN_DEPSETS");
    if ((env && std::string_view(env) == "0") || opts.self.empty() || no_dir) return {};
    std::string program;
    if (auto cache = util::read_file("CMakeCache.txt"))
        program = cache_value(*cache, "CMAKE_MAKE_PROGRAM");
    if (program.empty()) program = util::find_program("ninja");
    if (program.empty() || ninja_version(program) < std::pair{1, 11}) return {};
    if (!opts.dry_run) {
        std::vector<std::string> outputs; // headers an edge writes are not declared
        for (const auto& top : tops)
            for (size_t i = 0; i < top->m.edge_count(); ++i) {
                ninja::EdgeRef e = top->m.edge(i);
                for (auto o : e.outputs())
                    outputs.emplace_back(o);
                for (auto o : e.implicit_outputs())
                    outputs.emplace_back(o);
            }
        if (auto st = prepare_sets(kSetsFile, std::move(outputs)); !st) return {};
    }
    return compile::quote_word(opts.self) + " deps-set " + compile::quote_word(kSetsFile);
}

/// Plans every edge of `top`, applies the results to its manifest (the hook
/// included) and works out which files to write. Edges of files an earlier top
/// included too (`counted`) are rewritten alike but counted once.
/// True when `text` (an object's split edges) names a pool the manifest declares
/// (not regen's own, not console): such an object stays in place, after it.
bool uses_pool_of_manifest(std::string_view text, const Names& names) {
    for (size_t at = text.find("\n  pool = "); at != std::string_view::npos;
         at = text.find("\n  pool = ", at + 1)) {
        std::string_view rest = text.substr(at + 10);
        std::string_view pool = rest.substr(0, rest.find('\n'));
        if (pool != names.pool && pool != "console") return true;
    }
    return false;
}

/// Writes the split compiles of the top file (`objects`, edge indexes in file
/// order) where the first of them stood, the one whose edges' longest chain
/// took longest first (objects without times first, then in file order):
/// ninja 1.11 starts the ready edge it read first, so the objects that take
/// longest to finish start first. Their text needs nothing defined between the first one and its
/// own place: its rules are its own or at the top, its paths are spelled out, and an object that
/// names a pool of the manifest is not among them.
void place_by_device_work(ninja::Manifest& m, std::vector<Outcome>& done,
                          const std::vector<size_t>& objects) {
    if (objects.empty()) return;
    std::vector<size_t> order = objects;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return done[a].d.chain_ms > done[b].d.chain_ms; });
    std::string text;
    for (size_t i : order)
        text += done[i].text;
    m.replace_text(m.edge(objects[0]).statement(), std::move(text));
    for (size_t k = 1; k < objects.size(); ++k)
        m.replace_text(m.edge(objects[k]).statement(), std::string());
}

/// Where ninja keeps `name` (.ninja_log, .ninja_deps) for manifest `m`: in
/// its `builddir` when the manifest sets one, else in the directory ninja runs
/// in, the build directory (regen's current directory).
std::string ninja_log_path(const ninja::Manifest& m, std::string_view name) {
    auto dir = m.variable("builddir");
    if (!dir || dir->empty()) return std::string(name);
    return fmt::format("{}/{}", *dir, name);
}

/// The durations the manifest's .ninja_log records (none without one).
split::Durations last_durations(const ninja::Manifest& m) {
    auto text = util::read_file(ninja_log_path(m, ".ninja_log"));
    return text ? ninja::last_durations(*text) : split::Durations{};
}

/// Puts back the deps records of the split edges that a direct `cmake` run
/// dropped from .ninja_deps (records.h); a failure is a warning: the build
/// then recompiles what has no record, as it would without this.
void restore_split_deps(const std::vector<std::unique_ptr<Top>>& tops, Summary& sum) {
    const std::string records = std::string(kSetsFile) + ".records";
    if (::access(records.c_str(), F_OK) != 0) return;
    std::vector<std::string> outputs;
    for (const auto& top : tops)
        for (const Outcome& o : top->done)
            if (o.d.split)
                for (std::string& path : build_outputs(o.text))
                    outputs.push_back(std::move(path));
    std::sort(outputs.begin(), outputs.end());
    outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
    // No record may name a path an edge writes: the split edges' outputs and
    // those of the manifests (SETS.outputs, which deps_set_command just wrote).
    std::vector<std::string> written = outputs;
    if (auto listed = util::read_file(std::string(kSetsFile) + ".outputs"))
        for (std::string& path : util::split_on(*listed, '\n'))
            if (!path.empty()) written.push_back(std::move(path));
    std::sort(written.begin(), written.end());
    // Outputs are spelled, and the records file named, from the build
    // directory: what ninja uses when it runs there. When ninja itself runs
    // regen (the hooked generator edge), nothing is missing (CMake skips its
    // clean-up inside a build) and the manifest is rewritten, so ninja reloads
    // its logs before it writes another record: appends never race its ids.
    // Another ninja building here meanwhile would (restore_deps waits for none).
    auto r =
        restore_deps(ninja_log_path(tops.front()->m, ".ninja_deps"), records, outputs, written);
    if (!r) {
        sum.warnings.push_back(r.error().text());
        return;
    }
    sum.deps_restored = r->records;
    if (r->waiting > 0)
        sum.warnings.push_back(fmt::format(
            "{} deps record{} that a direct cmake run dropped not put back while ninja (process "
            "{}) builds in this directory; run `phc-ninja regen` again once it is done",
            r->waiting, r->waiting == 1 ? "" : "s", r->ninja));
}

Status rewrite_top(Top& top, const Options& opts, const HookContext& hook,
                   probe::ProbeCache& probes, const std::string& deps_set,
                   const split::Durations& durations, std::set<std::string>& counted, Summary& sum,
                   PhaseTimer& timer) {
    ninja::Manifest& m = top.m;
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    Names names = unique_names(m);
    names.overlap_host = opts.overlap_host;
    names.deps_set = deps_set;
    names.durations = &durations;
    std::optional<uint32_t> generator;
    std::vector<ninja::NewStatement> shared_rules; // declared at the top, in order of first use
    std::set<std::string> declared;
    // Evaluation, analysis, planning and rendering only read the manifest: they
    // run in parallel. The results are applied in manifest order, so the first
    // edge that fails is the one reported.
    const Context context{m, probes, names, opts.device_jobs > 0, opts.select};
    top.done = plan_all(context, opts.threads);
    plan_links(context, top.done);
    timer.done("plan");
    size_t splits = 0, links = 0;
    std::vector<size_t> top_objects; // split compiles of the top file, in file order
    for (size_t i = 0; i < top.done.size(); ++i) {
        Outcome& o = top.done[i];
        if (o.error) return *o.error;
        if (o.probe_error && opts.strict) return *o.probe_error;
        const bool count = !counted.count(m.files()[m.edge(i).statement().file].path);
        switch (o.kind) {
        case Outcome::Kind::Skip:
            continue;
        case Outcome::Kind::Generator:
            for (auto out : m.edge(i).outputs())
                if (out == top.manifest) generator = static_cast<uint32_t>(i);
            continue;
        case Outcome::Kind::Other:
            sum.other_edges += count;
            continue;
        case Outcome::Kind::Hip:
        case Outcome::Kind::Link:
            break;
        }
        if (o.d.split && o.d.link) {
            m.replace_text(m.edge(i).statement(), std::move(o.text));
            ++links;
            if (count) {
                ++sum.links_split;
                sum.device_links += o.d.archs.size();
            }
        } else if (o.d.split) {
            if (o.rules)
                for (const auto& [name, text] : *o.rules)
                    if (declared.insert(name).second)
                        shared_rules.push_back(ninja::RawStatement{text});
            if (m.edge(i).statement().file == 0 && !uses_pool_of_manifest(o.text, names))
                top_objects.push_back(i); // placed below, longest chain first
            else
                m.replace_text(m.edge(i).statement(), std::move(o.text));
            ++splits;
            if (count) {
                ++sum.objects_split;
                sum.device_edges += o.d.archs.size();
            }
        } else if (count) {
            ++sum.left[o.d.code];
        }
        if (count) sum.decisions.push_back(o.d);
    }

    place_by_device_work(m, top.done, top_objects);

    const std::string origin = in_place ? original_path(top.manifest) : top.src.path;
    std::vector<ninja::NewStatement> head{ninja::RawStatement{marker_text(origin)}};
    if (splits > 0 && !deps_set.empty())
        head.push_back(ninja::RawStatement{fmt::format(
            "# Device edges record one header set each (phony phc_s_*), which needs ninja 1.11.\n"
            "ninja_required_version = 1.11\ninclude {}\n\n",
            kSetsFile)});
    if (splits > 0 || links > 0) {
        for (auto& r : split_rules(names, opts.device_jobs)) {
            head.push_back(std::move(r));
            head.push_back(ninja::RawStatement{"\n"});
        }
        for (auto& r : shared_rules)
            head.push_back(std::move(r));
        if (!shared_rules.empty()) head.push_back(ninja::RawStatement{"\n"});
    }
    if (in_place && generator && !opts.self.empty()) {
        ninja::EdgeRef g = m.edge(*generator);
        auto cmd = g.evaluate("command");
        if (!cmd) return edge_error(m, g, cmd.error());
        if (auto st = m.replace(g.statement(), {hooked_generator(g, *cmd, opts, hook)}); !st)
            return edge_error(m, g, st.error());
    }
    Status placed =
        m.files()[0].statements.empty() ? m.append(0, head) : m.insert_before({0, 0}, head);
    if (!placed) return placed.error();
    timer.done("apply");
    top.rewrite = files_to_write(m);
    if (auto st = redirect_includes(m, top.rewrite); !st) return st.error();
    for (const auto& f : m.files())
        counted.insert(f.path);
    return Ok{};
}

} // namespace

Result<Summary> run(const Options& opts) {
    PhaseTimer timer;
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    const bool to_stdout = opts.output == "-";
    std::vector<std::unique_ptr<Top>> tops;
    auto first = load_top(opts.manifest);
    if (!first) return first.error();
    tops.push_back(std::move(*first));
    timer.done("load");
    if (!in_place && !to_stdout) {
        if (auto st = check_output(tops[0]->m, opts); !st) return st.error();
    }
    // Ninja Multi-Config: every configuration's top manifest in this one run.
    if (in_place)
        for (const std::string& other : multi_config_tops(tops[0]->m, opts.manifest)) {
            auto top = load_top(other);
            if (!top) return top.error();
            tops.push_back(std::move(*top));
        }

    Summary sum;
    HookContext hook;
    for (const auto& top : tops) {
        hook.tops.push_back(top->manifest);
        sum.manifests.push_back(top->manifest);
    }
    const std::string cache_path = probe_cache_path(opts, sum);
    probe::ProbeCache probes(cache_path, opts.prober);
    const std::string deps_set = deps_set_command(opts, cache_path.empty(), tops);
    // What each edge took last time, so that the longest architectures start first.
    const split::Durations durations = last_durations(tops.front()->m);
    std::set<std::string> counted;
    for (auto& top : tops)
        if (auto st =
                rewrite_top(*top, opts, hook, probes, deps_set, durations, counted, sum, timer);
            !st)
            return st.error();
    sum.probes_run = probes.probes_run();

    // Included files the tops share (CMakeFiles/common.ninja) are written once:
    // every top must want the same bytes there.
    struct Include {
        std::string path;
        const Top* top;
        uint32_t file;
    };
    std::vector<Include> includes;
    std::map<std::string, size_t> by_path;
    for (const auto& top : tops)
        for (uint32_t f : top->rewrite) {
            if (f == 0) continue;
            const std::string& path = top->m.files()[f].path;
            // Stdout holds one file: the top manifest, which names no rewritten copies.
            if (to_stdout)
                return error_at(path, fmt::format("-o - writes only the top manifest to stdout, "
                                                  "but this included file needs rewriting (as "
                                                  "{}.phc); use -o FILE",
                                                  path));
            auto [it, fresh] = by_path.emplace(path, includes.size());
            if (fresh) {
                includes.push_back({path, top.get(), f});
                continue;
            }
            const Include& was = includes[it->second];
            if (!same_text(was.top->m.pieces(was.file), top->m.pieces(f)))
                return error_at(path, fmt::format("{} and {} include this file, and their "
                                                  "rewritten copies would differ; rewrite them "
                                                  "one at a time with -f and -o",
                                                  was.top->manifest, top->manifest));
        }
    // Included files first, then CMake's originals, then the top files: an
    // interruption leaves old top files, which still name the old files.
    for (const Include& inc : includes)
        if (auto st =
                write_if_changed(inc.path + ".phc", inc.top->m.pieces(inc.file), sum, opts.dry_run);
            !st)
            return st.error();
    for (const auto& top : tops)
        if (in_place && top->src.needs_save)
            if (auto st = write_if_changed(original_path(top->manifest), top->original, sum,
                                           opts.dry_run, util::Sync::Disk);
                !st)
                return st.error();
    for (const auto& top : tops) {
        const std::string target = in_place ? top->manifest : opts.output;
        if (auto st = to_stdout ? write_stdout(top->m.pieces(0), sum, opts.dry_run)
                                : write_if_changed(target, top->m.pieces(0), sum, opts.dry_run);
            !st)
            return st.error();
    }
    if (in_place && !opts.dry_run && !deps_set.empty()) restore_split_deps(tops, sum);
    timer.done("write");
    sum.retained = std::make_shared<std::vector<std::unique_ptr<Top>>>(std::move(tops));
    return sum;
}

std::string summary_line(const Summary& s, bool dry_run) {
    std::string left;
    size_t n_left = 0;
    for (const auto& [code, n] : s.left) {
        left += fmt::format("{}{}: {}", left.empty() ? "" : ", ", code, n);
        n_left += n;
    }
    std::string line =
        fmt::format("phc-ninja regen: {} {} objects into {} device edges",
                    dry_run ? "would split" : "split", s.objects_split, s.device_edges);
    if (s.links_split > 0)
        line += fmt::format("; split {} RDC link{} into {} device links", s.links_split,
                            s.links_split == 1 ? "" : "s", s.device_links);
    if (n_left > 0) line += fmt::format("; left alone {} HIP edges ({})", n_left, left);
    line += fmt::format("; {} other edges; {} compiler probe{}", s.other_edges, s.probes_run,
                        s.probes_run == 1 ? "" : "s");
    if (!s.written.empty())
        line +=
            fmt::format("; {} {}", dry_run ? "would write" : "wrote", fmt::join(s.written, ", "));
    else
        line += "; up to date";
    if (s.deps_restored > 0)
        line += fmt::format("; put back {} header record{} a direct cmake run dropped",
                            s.deps_restored, s.deps_restored == 1 ? "" : "s");
    return line;
}

} // namespace phc::regen
