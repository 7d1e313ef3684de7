#include "regen/regen.h"

#include "depsets/depsets.h"
#include "depsets/records.h"
#include "ninja/manifest.h"
#include "probe/objcopy.h"
#include "probe/probe.h"
#include "regen/cmake.h"
#include "regen/edges.h"
#include "regen/hook.h"
#include "regen/original.h"
#include "regen/output.h"
#include "regen/planning.h"
#include "regen/state.h"
#include "sched/memory.h"
#include "split/explain.h"
#include "util/file.h"
#include "util/settings.h"

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unistd.h>

namespace phc::regen {

namespace {

/// With PHC_REGEN_TIMING=1, how long each phase took, on stderr (benchmarks, profiling).
class PhaseTimer {
public:
    PhaseTimer() { on_ = util::get("PHC_REGEN_TIMING") == "1"; }
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

/// One top manifest being rewritten, with everything its edits borrow from.
struct Top : LoadedOriginal {
    std::vector<Outcome> done;
    std::set<uint32_t> rewrite; ///< files of `m` to write
};

using Tops = std::vector<std::unique_ptr<Top>>;

/// Loads the original of `manifest` (load_original()).
Result<std::unique_ptr<Top>> load_top(const std::string& manifest) {
    auto top = std::make_unique<Top>();
    if (auto st = load_original(manifest, *top); !st) return st.error();
    return top;
}

/// Every output of every edge of `tops` (for the header sets: a header an
/// edge writes is not declared).
std::vector<std::string> edge_outputs(const Tops& tops) {
    std::vector<std::string> outputs;
    for (const auto& top : tops)
        for (size_t i = 0; i < top->m.edge_count(); ++i) {
            ninja::EdgeRef e = top->m.edge(i);
            for (auto o : e.outputs())
                outputs.emplace_back(o);
            for (auto o : e.implicit_outputs())
                outputs.emplace_back(o);
        }
    return outputs;
}

/// Puts back the deps records of the split edges that a direct `cmake` run
/// dropped from .ninja_deps (records.h).
void restore_split_deps(const Tops& tops, Summary& sum) {
    std::vector<std::string> outputs;
    for (const auto& top : tops)
        for (const Outcome& o : top->done)
            if (o.d.split)
                for (std::string& path : build_outputs(o.text))
                    outputs.push_back(std::move(path));
    depsets::PutBack r = depsets::put_back_records(
        depsets::kSetsFile, ninja_log_path(tops.front()->m, ".ninja_deps"), std::move(outputs));
    sum.deps_restored = r.records;
    if (!r.warning.empty()) sum.warnings.push_back(std::move(r.warning));
}

/// What applying the outcomes of one top gave.
struct Applied {
    size_t splits = 0;                             ///< split compiles
    size_t links = 0;                              ///< split RDC links
    size_t distributed = 0;                        ///< split compiles sent to an engine
    std::optional<uint32_t> generator;             ///< the edge that writes the top manifest
    std::vector<ninja::NewStatement> shared_rules; ///< to declare at the top, in order of first use
};

/// Counts outcome `o` in `sum`.
void count(const Outcome& o, Summary& sum) {
    if (o.d.split && o.d.link) {
        ++sum.links_split;
        sum.device_links += o.d.archs.size();
    } else if (o.d.split) {
        ++sum.objects_split;
        sum.device_edges += o.d.archs.size();
        if (!o.d.engine.empty()) sum.distributed[o.d.engine] += o.d.archs.size();
        if (!o.d.local_reason.empty()) ++sum.kept_local[o.d.local_reason];
    } else {
        ++sum.left[o.d.code];
    }
    sum.decisions.push_back(o.d);
}

/// Applies the outcomes of `top` in manifest order, so the first edge that
/// fails is the one reported: split edges replace their edge, the split
/// compiles of the top file go where the first one stood, in
/// place_by_device_work()'s order. Edges of files an earlier top included
/// too (`counted`) are rewritten alike but counted in `sum` once.
Result<Applied> apply_outcomes(Top& top, const Names& names, bool strict,
                               const std::set<std::string>& counted, Summary& sum) {
    ninja::Manifest& m = top.m;
    Applied a;
    std::set<std::string> declared;
    std::vector<size_t> top_objects; // split compiles of the top file, in file order
    for (size_t i = 0; i < top.done.size(); ++i) {
        Outcome& o = top.done[i];
        if (o.error) return *o.error;
        if (o.probe_error && strict) return *o.probe_error;
        const bool counts = !counted.count(m.files()[m.edge(i).statement().file].path);
        switch (o.kind) {
        case Outcome::Kind::Skip:
            continue;
        case Outcome::Kind::Generator:
            for (auto out : m.edge(i).outputs())
                if (out == top.manifest) a.generator = static_cast<uint32_t>(i);
            continue;
        case Outcome::Kind::Other:
            sum.other_edges += counts;
            continue;
        case Outcome::Kind::Hip:
        case Outcome::Kind::Link:
            break;
        }
        if (counts) count(o, sum);
        if (o.d.split && o.d.link) {
            m.replace_text(m.edge(i).statement(), std::move(o.text));
            ++a.links;
        } else if (o.d.split) {
            a.distributed += !o.d.engine.empty();
            if (o.rules)
                for (const auto& [name, text] : *o.rules)
                    if (declared.insert(name).second)
                        a.shared_rules.push_back(ninja::RawStatement{text});
            if (m.edge(i).statement().file == 0 && !uses_pool_of_manifest(o.text, names))
                top_objects.push_back(i); // placed below, longest chain first
            else
                m.replace_text(m.edge(i).statement(), o.lead + o.text);
            ++a.splits;
        }
    }
    place_by_device_work(m, top.done, top_objects);
    return a;
}

/// What regen puts first in a top file: the marker naming the original
/// (`origin`), the header sets' include when device edges record sets
/// (`deps_set`), the split edges' rules and the rules they share.
std::vector<ninja::NewStatement> head_statements(const std::string& origin, Applied& a,
                                                 const edges::Policy& policy, int device_jobs,
                                                 int remote_jobs) {
    std::vector<ninja::NewStatement> head{ninja::RawStatement{marker_text(origin)}};
    if (a.splits > 0 && !policy.sets.empty())
        head.push_back(ninja::RawStatement{fmt::format(
            "# Device edges record one header set each (phony phc_s_*), which needs ninja 1.11.\n"
            "ninja_required_version = 1.11\ninclude {}\n\n",
            depsets::kSetsFile)});
    if (a.splits > 0 || a.links > 0) {
        for (auto& r :
             edges::split_rules(policy, device_jobs, a.distributed > 0 ? remote_jobs : 0)) {
            head.push_back(std::move(r));
            head.push_back(ninja::RawStatement{"\n"});
        }
        for (auto& r : a.shared_rules)
            head.push_back(std::move(r));
        if (!a.shared_rules.empty()) head.push_back(ninja::RawStatement{"\n"});
    }
    return head;
}

/// Plans every edge of `top` (planning.h), applies the results to its
/// manifest, hooks its generator edge for the top manifests `tops` (in place
/// only) and works out which files to write.
Status rewrite_top(Top& top, const Options& opts, const std::vector<std::string>& tops,
                   probe::ProbeCache& probes, const std::string& step, const std::string& sets,
                   const split::Durations& durations, std::pair<bool, bool> guess_hosts,
                   std::set<std::string>& counted, Summary& sum, PhaseTimer& timer) {
    ninja::Manifest& m = top.m;
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    const edges::Policy policy{.names = unique_names(m),
                               .device_pool = opts.device_jobs > 0,
                               .remote_pool = opts.remote_jobs > 0,
                               .distribute = opts.distribute,
                               .step = step,
                               .sets = sets,
                               .durations = &durations,
                               .guess_order = guess_hosts.first,
                               .hosts_first = guess_hosts.second,
                               .spell = {}};
    const Context context{m, probes, policy, opts.overlap_host, opts.select};
    top.done = plan_all(context, opts.threads);
    plan_links(context, top.done);
    timer.done("plan");
    auto applied = apply_outcomes(top, policy.names, opts.strict, counted, sum);
    if (!applied) return applied.error();
    const std::string origin = in_place ? original_path(top.manifest) : top.src.path;
    std::vector<ninja::NewStatement> head =
        head_statements(origin, *applied, policy, opts.device_jobs, opts.remote_jobs);
    if (in_place && applied->generator && !opts.self.empty())
        if (auto st = hook_generator(m, *applied->generator, opts, tops); !st) return st;
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

/// Loads the original of the manifest and, in place in a build of CMake's
/// Ninja Multi-Config generator, of every other top manifest CMake wrote; an
/// -o that regen must not write is refused first.
Result<Tops> load_tops(const Options& opts, PhaseTimer& timer) {
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    Tops tops;
    if (auto st = check_generator(opts.manifest); !st) return st.error();
    auto first = load_top(opts.manifest);
    if (!first) return first.error();
    tops.push_back(std::move(*first));
    timer.done("load");
    if (!in_place && opts.output != "-")
        if (auto st = check_output(tops[0]->m, opts); !st) return st.error();
    if (in_place)
        for (const std::string& other : multi_config_tops(tops[0]->m, opts.manifest)) {
            auto top = load_top(other);
            if (!top) return top.error();
            tops.push_back(std::move(*top));
        }
    return tops;
}

/// An included file to write (as `<path>.phc`), from the first top that rewrites it.
struct Include {
    std::string path;
    const Top* top;
    uint32_t file;
};

/// The included files the tops rewrite, each once: tops share some
/// (CMakeFiles/common.ninja), and every top must want the same bytes there.
Result<std::vector<Include>> includes_to_write(const Tops& tops, bool to_stdout) {
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
    return includes;
}

/// Writes included files first, then CMake's originals, then the top files:
/// an interruption leaves old top files, which still name the old files.
Status write_tops(const Tops& tops, const Options& opts, Summary& sum) {
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    const bool to_stdout = opts.output == "-";
    auto includes = includes_to_write(tops, to_stdout);
    if (!includes) return includes.error();
    for (const Include& inc : *includes)
        if (auto st =
                write_if_changed(inc.path + ".phc", inc.top->m.pieces(inc.file), sum, opts.dry_run);
            !st)
            return st;
    for (const auto& top : tops)
        if (in_place && top->src.needs_save)
            if (auto st = write_if_changed(original_path(top->manifest), top->original, sum,
                                           opts.dry_run, util::Sync::Disk);
                !st)
                return st;
    for (const auto& top : tops) {
        const std::string target = in_place ? top->manifest : opts.output;
        if (auto st = to_stdout ? write_stdout(top->m.pieces(0), sum, opts.dry_run)
                                : write_if_changed(target, top->m.pieces(0), sum, opts.dry_run);
            !st)
            return st;
    }
    return Ok{};
}

} // namespace

Result<Summary> run(const Options& opts) {
    PhaseTimer timer;
    auto loaded = load_tops(opts, timer);
    if (!loaded) return loaded.error();
    Tops tops = std::move(*loaded);
    Summary sum;
    std::vector<std::string> top_paths; // for the re-run hook
    for (const auto& top : tops) {
        top_paths.push_back(top->manifest);
        sum.manifests.push_back(top->manifest);
    }
    const std::string cache_path = probe_cache_path(opts, sum);
    probe::ProbeCache probes(cache_path, opts.prober);
    // Every split edge runs under `phc-ninja step` (sched/), which keeps its
    // records and the build's budget in the private folder.
    const std::string records = opts.build_dir + "/" + kProbeDir;
    const std::string step =
        opts.dry_run || !cache_path.empty() ? edges::step_runner(opts.self, records) : "";
    if (!opts.dry_run && !cache_path.empty())
        if (auto st = sched::keep_memory_spec(kProbeDir, opts.memory); !st)
            sum.warnings.push_back(st.error().text() + "; the steps use PHC_MEMORY or the default");
    const std::string sets = depsets::header_sets({.self = opts.self,
                                                   .sets = depsets::kSetsFile,
                                                   .ninja = building_ninja(),
                                                   .no_dir = cache_path.empty(),
                                                   .dry_run = opts.dry_run},
                                                  [&] { return edge_outputs(tops); });
    // What each edge took last time, so that the longest architectures start
    // first: from .ninja_log, else from the project's history (state.h).
    split::Durations durations =
        past_durations(tops.front()->m, !opts.dry_run && !step.empty(), sum);
    // Without either, an order that needs no history (PHC_FIRST_ORDER).
    auto first = edges::first_order();
    if (!first) return first.error();
    const bool guess = durations.empty() && *first == edges::FirstOrder::Size;
    const bool hosts_first = durations.empty() && *first == edges::FirstOrder::Hosts;
    sum.guessed_order = guess;
    sum.hosts_first = hosts_first && opts.overlap_host;
    std::set<std::string> counted;
    for (auto& top : tops)
        if (auto st = rewrite_top(*top, opts, top_paths, probes, step, sets, durations,
                                  {guess, hosts_first}, counted, sum, timer);
            !st)
            return st.error();
    sum.probes_run = probes.probes_run();
    if (opts.overlap_host) sum.overlap_refused = probe::objcopy_refusal();
    if (auto st = write_tops(tops, opts, sum); !st) return st.error();
    const bool in_place = opts.output.empty() || opts.output == opts.manifest;
    if (in_place && !opts.dry_run && !sets.empty()) restore_split_deps(tops, sum);
    timer.done("write");
    return sum;
}

} // namespace phc::regen
