#include "split/graph.h"

#include "util/file.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <unordered_map>

namespace phc::split {

std::vector<GraphEdge> plan_edges(const Plan& plan, const SpellPath& spell, const Durations* last) {
    return step_edges(plan.steps, plan.analysis.command.cwd, plan.analysis.output, spell, last);
}

Durations guess_durations(const Plan& plan, const SpellPath& spell) {
    const std::string source = util::join_path(plan.analysis.command.cwd, plan.analysis.source);
    struct stat st {};
    const int64_t size = ::stat(source.c_str(), &st) == 0 && S_ISREG(st.st_mode)
                             ? std::max<int64_t>(st.st_size, 1)
                             : kUnknownMs;
    Durations guess;
    for (const Step& s : plan.steps) {
        if (s.outputs.empty()) continue;
        int64_t ms = 1;
        switch (s.kind) {
        case StepKind::Device:
        case StepKind::Host:
        case StepKind::RemoteHost:
            ms = size;
            break;
        case StepKind::Preprocess:
            ms = std::max<int64_t>(size / 10, 1);
            break;
        default:
            break;
        }
        guess.emplace(spell(s, s.outputs[0]), ms);
    }
    return guess;
}

namespace {

/// Sets each edge's chain_ms from `last` and lists the edges longest chain
/// first (see step_edges). Steps come in dependency order (a step reads only
/// what earlier steps write), so one backward pass finds every chain.
void critical_first(std::vector<GraphEdge>& edges, const Durations& last) {
    std::unordered_map<std::string_view, size_t> writer;
    for (size_t i = 0; i < edges.size(); ++i)
        for (const auto& o : edges[i].outputs)
            writer.emplace(o, i);
    for (size_t i = edges.size(); i-- > 0;) {
        GraphEdge& e = edges[i];
        e.chain_ms += e.outputs.empty() ? kUnknownMs : last_ms(last, e.outputs[0]);
        // Pass the chain back to the edges this one reads from.
        for (const auto* list : {&e.inputs, &e.implicit})
            for (const auto& in : *list)
                if (auto w = writer.find(in); w != writer.end() && w->second < i)
                    edges[w->second].chain_ms = std::max(edges[w->second].chain_ms, e.chain_ms);
    }
    std::stable_sort(edges.begin(), edges.end(), [](const GraphEdge& a, const GraphEdge& b) {
        return a.chain_ms > b.chain_ms;
    });
}

} // namespace

std::vector<GraphEdge> step_edges(const std::vector<Step>& steps, const std::string& cwd,
                                  const std::string& object, const SpellPath& spell,
                                  const Durations* last) {
    // Every file some step writes, as the build directory names it.
    std::set<std::string> written;
    for (const Step& s : steps)
        for (const auto& o : s.outputs)
            written.insert(util::join_path(s.cwd, o));
    const std::string final_path = util::join_path(cwd, object);

    std::vector<GraphEdge> out;
    out.reserve(steps.size());
    for (const Step& s : steps) {
        GraphEdge e;
        e.step = &s;
        for (const auto& o : s.outputs) {
            e.outputs.push_back(spell(s, o));
            if (util::join_path(s.cwd, o) == final_path) e.final = true;
        }
        std::vector<std::string> internal;
        for (const auto& i : s.inputs) {
            if (written.count(util::join_path(s.cwd, i))) {
                internal.push_back(spell(s, i));
            } else {
                e.inputs.push_back(spell(s, i));
                e.external = true;
            }
        }
        if (e.external)
            e.implicit = std::move(internal);
        else
            e.inputs = std::move(internal);
        if (!s.depfile.empty()) e.depfile = spell(s, s.depfile);
        out.push_back(std::move(e));
    }
    if (last && !last->empty()) critical_first(out, *last);
    return out;
}

} // namespace phc::split
