#include "regen/planning.h"

#include "compile/analysis.h"
#include "compile/shell.h"
#include "ninja/paths.h"
#include "regen/original.h"
#include "split/link.h"

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <thread>

namespace phc::regen {

namespace {

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

/// Plans edge `edge` on its own: what it is (phony, a generator, another
/// edge, a HIP compile, an RDC link for later) and, for a HIP compile, its
/// split edges or why it stays as it is.
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
    Rendered r = render_split(*command, in, *carry, c.probes, c.policy, c.overlap_host);
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
        o.lead = std::move(r.lead);
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

/// The POST_BUILD commands of a CMake link edge (`$PRE_LINK && LINK &&
/// $POST_BUILD`, ":" when there are none) when its evaluated `command` ends
/// with them, else "".
std::string post_build(const ninja::EdgeRef& e, const std::string& command) {
    auto post = e.evaluate("POST_BUILD");
    if (!post || post->empty() || *post == ":" || !command.ends_with(" && " + *post)) return {};
    return *post;
}

/// The split link's host link, the step that writes the program, runs the
/// POST_BUILD commands `post` after it, as the original edge did.
void run_after_link(split::LinkPlan& plan, const std::string& post) {
    for (split::Step& s : plan.steps)
        if (s.kind == split::StepKind::HostLink)
            s.argv = {"/bin/sh", "-c", compile::join_command(s.argv) + " && " + post};
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
    const std::string post = post_build(e, *command);
    if (!post.empty()) command->replace(command->size() - post.size(), post.size(), ":");
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
    if (!post.empty()) run_after_link(*plan, post);
    Rendered r = render_link(*plan, *carry, c.policy);
    if (r.error) o.error = edge_error(c.m, e, *r.error);
    o.d = std::move(r.d);
    o.text = std::move(r.text);
    if (o.d.split)
        if (auto clash = output_clash(c.m, edge, o.text); !clash.empty())
            o.leave("output-clash", clash);
    return o;
}

} // namespace

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

bool uses_pool_of_manifest(std::string_view text, const Names& names) {
    for (size_t at = text.find("\n  pool = "); at != std::string_view::npos;
         at = text.find("\n  pool = ", at + 1)) {
        std::string_view rest = text.substr(at + 10);
        std::string_view pool = rest.substr(0, rest.find('\n'));
        if (pool != names.pool && pool != "console") return true;
    }
    return false;
}

void place_by_device_work(ninja::Manifest& m, std::vector<Outcome>& done,
                          const std::vector<size_t>& objects) {
    if (objects.empty()) return;
    std::vector<size_t> order = objects;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return done[a].d.chain_ms > done[b].d.chain_ms; });
    std::string text;
    for (size_t i : order) // the host compiles that wait for nothing first (Policy::hosts_first)
        text += done[i].lead;
    for (size_t i : order)
        text += done[i].text;
    m.replace_text(m.edge(objects[0]).statement(), std::move(text));
    for (size_t k = 1; k < objects.size(); ++k)
        m.replace_text(m.edge(objects[k]).statement(), std::string());
}

} // namespace phc::regen
