#include "regen/regen.h"

#include "compile/analysis.h"
#include "compile/probe.h"
#include "compile/shell.h"
#include "ninja/manifest.h"
#include "ninja/writer.h"
#include "regen/edges.h"
#include "regen/original.h"
#include "regen/shapes.h"
#include "split/link.h"
#include "split/plan.h"
#include "util/file.h"
#include "util/text_arena.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <memory>
#include <optional>
#include <set>
#include <thread>

namespace phc::regen {

namespace {

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
bool looks_like_hip(std::string_view cmd) {
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
    return fmt::format("{}multi-arch HIP compiles of {} split per architecture.\n"
                       "# Generated; edit the original or re-run cmake, not this file.\n\n",
                       kMarker, original);
}

/// The generator edge again, with a command that re-runs regen after it.
ninja::BuildStatement hooked_generator(const ninja::EdgeRef& e, const std::string& command,
                                       const Options& o) {
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
    std::string again =
        compile::quote_word(o.self) + " regen -C " + compile::quote_word(o.build_dir);
    if (o.manifest != "build.ninja") again += " -f " + compile::quote_word(o.manifest);
    if (o.device_jobs > 0) again += fmt::format(" --device-jobs {}", o.device_jobs);
    b.bindings.push_back({"command", command + " && " + again + " --quiet", true});
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
        return make_error(fmt::format("{}: error: refusing to write the output over {}: {}",
                                      opts.output, path, what));
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
    return make_error(fmt::format("-: error: cannot write to stdout: {}", std::strerror(errno)));
}

Error edge_error(const ninja::Manifest& m, const ninja::EdgeRef& e, std::string_view what) {
    if (what.starts_with("error: ")) what.remove_prefix(7);
    const auto& file = m.files()[e.statement().file];
    return make_error(
        fmt::format("{}:{}: error: {}", file.path, m.statement(e.statement()).line, what));
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
    std::string text;          ///< the rendered split edges, when d.split (planned alone)
    std::string_view borrowed; ///< the same in a planning thread's arena (reused plans)
    std::shared_ptr<const SharedRules> rules; ///< see Rendered::rules; null for none
    std::optional<Error> error;               ///< the edge cannot be planned: regen fails
    bool reused = false;                      ///< planned from its shape (shapes.h)
};

/// What planning reads; shared by the planning threads.
struct Context {
    const ninja::Manifest& m;
    compile::ProbeCache& probes;
    const Names& names;
    bool device_pool;
    bool verify; ///< check every reused plan against the full way
};

/// What one planning thread keeps between edges.
struct Worker {
    std::unique_ptr<ShapeCache> shapes; ///< null: every edge is planned on its own
    util::TextArena* arena;             ///< where reused plans' text goes
    std::string scratch;                ///< reused plans are rendered here first
};

Outcome plan_one(const Context& c, size_t edge, Worker& w) {
    Outcome o;
    ninja::EdgeRef e = c.m.edge(edge);
    if (e.is_phony()) return o;
    if (is_generator(e)) {
        o.kind = Outcome::Kind::Generator;
        return o;
    }
    auto command = e.evaluate("command");
    if (!command) {
        o.error = edge_error(c.m, e, command.error().message);
        return o;
    }
    if (looks_like_rdc_link(*command)) {
        o.kind = Outcome::Kind::Link;
        return o;
    }
    if (!looks_like_hip(*command)) {
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
        o.error = edge_error(c.m, e, carry.error().message);
        return o;
    }
    w.scratch.clear();
    const bool reused = w.shapes && in.rspfile.empty() &&
                        w.shapes->render(*command, *carry, w.scratch, o.rules, o.d);
    o.reused = reused;
    if (reused) o.borrowed = w.arena->add(w.scratch);
    if (reused && !c.verify) return o;
    Rendered r = render_split(*command, in, *carry, c.probes, c.names, c.device_pool);
    if (!r.error.empty()) {
        o.error = edge_error(c.m, e, r.error);
    } else if (!reused) {
        o.d = std::move(r.d);
        o.text = std::move(r.text);
        if (!r.rules.empty()) o.rules = std::make_shared<const SharedRules>(std::move(r.rules));
    } else if (r.text != o.borrowed || r.rules != (o.rules ? *o.rules : SharedRules{}) ||
               r.d.code != o.d.code || r.d.text != o.d.text || r.d.archs != o.d.archs ||
               r.d.object != o.d.object) {
        o.error = edge_error(c.m, e,
                             "internal error: the plan reused from an edge of the same shape "
                             "differs from this edge's own plan; run regen with "
                             "PHC_REGEN_SHAPES=0 and report it");
    }
    return o;
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
        o.error = edge_error(c.m, e, !command ? command.error().message : carry.error().message);
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
    auto plan = split::plan_link(std::move(a), find);
    if (!plan) {
        split::LinkPlan left;
        left.analysis.decision = {compile::Reason::LinkUnmodelled, plan.error().message};
        plan = std::move(left);
    }
    Rendered r = render_link(*plan, *carry, c.names, c.device_pool);
    if (!r.error.empty()) o.error = edge_error(c.m, e, r.error);
    o.d = std::move(r.d);
    o.text = std::move(r.text);
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
/// one for small builds); planning only reads the manifest, ProbeCache locks
/// itself, each thread has its own ShapeCache and text arena (`arenas` gets
/// them: the outcomes borrow from them). Results do not depend on the threads.
std::vector<Outcome> plan_all(const Context& c, bool use_shapes, int threads_wanted,
                              std::vector<util::TextArena>& arenas) {
    const size_t n = c.m.edge_count();
    std::vector<Outcome> out(n);
    unsigned threads = threads_wanted > 0
                           ? static_cast<unsigned>(threads_wanted)
                           : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    if (threads_wanted <= 0 && n < 256) threads = 1;
    arenas.resize(threads);
    std::atomic<size_t> next{0};
    auto work = [&](unsigned t) {
        Worker w{nullptr, &arenas[t], {}};
        if (use_shapes) w.shapes = std::make_unique<ShapeCache>(c.probes, c.names, c.device_pool);
        constexpr size_t kChunk = 32;
        for (size_t from = next.fetch_add(kChunk); from < n; from = next.fetch_add(kChunk))
            for (size_t k = from; k < std::min(from + kChunk, n); ++k)
                out[k] = plan_one(c, k, w);
    };
    std::vector<std::thread> helpers;
    for (unsigned t = 1; t < threads; ++t)
        helpers.emplace_back(work, t);
    work(0);
    for (auto& h : helpers)
        h.join();
    return out;
}

} // namespace

Result<Summary> run(const Options& opts) {
    PhaseTimer timer;
    auto src = locate_original(opts.manifest);
    if (!src) return src.error();
    auto loaded = ninja::load_manifest(src->path);
    timer.done("load");
    if (!loaded) return loaded.error();
    ninja::Manifest& m = *loaded;
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    const bool to_stdout = opts.output == "-";
    if (!in_place && !to_stdout) {
        if (auto st = check_output(m, opts); !st) return st.error();
    }
    // CMake's bytes, to keep as the original: the loaded text before any edit
    // (views into the manifest, which keeps them while it lives).
    const std::vector<std::string_view> original = m.pieces(0);

    Names names = unique_names(m);
    compile::ProbeCache probes(opts.dry_run ? std::string() : std::string(kProbeCache));
    if (!opts.dry_run) {
        if (auto st = util::make_dirs(".phc-ninja"); !st) return st.error();
    }
    Summary sum;
    std::optional<uint32_t> generator;
    std::vector<ninja::NewStatement> shared_rules; // declared at the top, in order of first use
    std::set<std::string> declared;
    // Evaluation, analysis, planning and rendering only read the manifest: they
    // run in parallel. The results are applied in manifest order, so the first
    // edge that fails is the one reported.
    const Context context{m, probes, names, opts.device_jobs > 0, opts.verify_shapes};
    std::vector<util::TextArena> arenas;
    std::vector<Outcome> done = plan_all(context, opts.shapes, opts.threads, arenas);
    plan_links(context, done);
    timer.done("plan");
    sum.decisions.reserve(static_cast<size_t>(std::count_if(
        done.begin(), done.end(), [](const Outcome& o) { return o.kind == Outcome::Kind::Hip; })));
    for (size_t i = 0; i < done.size(); ++i) {
        Outcome& o = done[i];
        if (o.error) return *o.error;
        switch (o.kind) {
        case Outcome::Kind::Skip:
            continue;
        case Outcome::Kind::Generator:
            for (auto out : m.edge(i).outputs())
                if (out == opts.manifest) generator = static_cast<uint32_t>(i);
            continue;
        case Outcome::Kind::Other:
            ++sum.other_edges;
            continue;
        case Outcome::Kind::Hip:
        case Outcome::Kind::Link:
            break;
        }
        if (o.d.split && o.d.link) {
            m.replace_text(m.edge(i).statement(), std::move(o.text));
            ++sum.links_split;
            sum.device_links += o.d.archs.size();
        } else if (o.d.split) {
            if (o.rules)
                for (const auto& [name, text] : *o.rules)
                    if (declared.insert(name).second)
                        shared_rules.push_back(ninja::RawStatement{text});
            if (o.reused)
                m.replace_borrowed(m.edge(i).statement(), o.borrowed);
            else
                m.replace_text(m.edge(i).statement(), std::move(o.text));
            ++sum.objects_split;
            sum.device_edges += o.d.archs.size();
            sum.reused += o.reused;
        } else {
            ++sum.left[o.d.code];
        }
        sum.decisions.push_back(std::move(o.d));
    }
    sum.probes_run = probes.probes_run();

    const std::string origin = in_place ? original_path(opts.manifest) : src->path;
    std::vector<ninja::NewStatement> head{ninja::RawStatement{marker_text(origin)}};
    if (sum.objects_split > 0 || sum.links_split > 0) {
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
        if (!cmd) return edge_error(m, g, cmd.error().message);
        if (auto st = m.replace(g.statement(), {hooked_generator(g, *cmd, opts)}); !st)
            return edge_error(m, g, st.error().message);
    }
    Status placed =
        m.files()[0].statements.empty() ? m.append(0, head) : m.insert_before({0, 0}, head);
    if (!placed) return placed.error();

    timer.done("apply");
    std::set<uint32_t> rewrite = files_to_write(m);
    if (auto st = redirect_includes(m, rewrite); !st) return st.error();
    // Stdout holds one file: the top manifest, which names no rewritten copies.
    for (uint32_t f : rewrite)
        if (to_stdout && f != 0)
            return make_error(
                fmt::format("{}: error: -o - writes only the top manifest to stdout, but this "
                            "included file needs rewriting (as {}.phc); use -o FILE",
                            m.files()[f].path, m.files()[f].path));
    // Included files first, then CMake's original, then the top file: an
    // interruption leaves the old top file, which still names the old files.
    for (uint32_t f : rewrite) {
        if (f == 0) continue;
        const std::string path = m.files()[f].path + ".phc";
        if (auto st = write_if_changed(path, m.pieces(f), sum, opts.dry_run); !st)
            return st.error();
    }
    if (in_place && src->needs_save) {
        if (auto st = write_if_changed(original_path(opts.manifest), original, sum, opts.dry_run,
                                       util::Sync::Disk);
            !st)
            return st.error();
    }
    const std::string target = in_place ? opts.manifest : opts.output;
    if (auto st = to_stdout ? write_stdout(m.pieces(0), sum, opts.dry_run)
                            : write_if_changed(target, m.pieces(0), sum, opts.dry_run);
        !st)
        return st.error();
    timer.done("write");
    struct Retained {
        ninja::Manifest manifest;
        std::vector<Outcome> outcomes;
        std::vector<util::TextArena> arenas;
    };
    sum.retained =
        std::make_shared<Retained>(Retained{std::move(m), std::move(done), std::move(arenas)});
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
    return line;
}

} // namespace phc::regen
