#include "split/graph.h"

#include "util/file.h"

#include <algorithm>
#include <set>

namespace phc::split {

std::vector<GraphEdge> plan_edges(const Plan& plan, const SpellPath& spell, const Durations* last) {
    return step_edges(plan.steps, plan.analysis.command.cwd, plan.analysis.output, spell, last);
}

namespace {

/// Orders each run of parallel steps of one kind longest first (see step_edges).
void longest_first(std::vector<GraphEdge>& edges, const Durations& last) {
    auto weight = [&](const GraphEdge& e) {
        auto it = e.outputs.empty() ? last.end() : last.find(e.outputs[0]);
        return it == last.end() ? INT64_MAX : it->second;
    };
    for (size_t i = 0; i < edges.size();) {
        const StepKind k = edges[i].step->kind;
        size_t j = i + 1;
        while (j < edges.size() && edges[j].step->kind == k)
            ++j;
        if (k == StepKind::Device || k == StepKind::DeviceLink)
            std::stable_sort(
                edges.begin() + static_cast<std::ptrdiff_t>(i),
                edges.begin() + static_cast<std::ptrdiff_t>(j),
                [&](const GraphEdge& a, const GraphEdge& b) { return weight(a) > weight(b); });
        i = j;
    }
}

} // namespace

std::vector<GraphEdge> step_edges(const std::vector<Step>& steps, const std::string& cwd,
                                  const std::string& output, const SpellPath& spell,
                                  const Durations* last) {
    // Every file some step writes, as the build directory names it.
    std::set<std::string> written;
    for (const Step& s : steps)
        for (const auto& o : s.outputs)
            written.insert(util::join_path(s.cwd, o));
    const std::string object = util::join_path(cwd, output);

    std::vector<GraphEdge> out;
    out.reserve(steps.size());
    for (const Step& s : steps) {
        GraphEdge e;
        e.step = &s;
        for (const auto& o : s.outputs) {
            e.outputs.push_back(spell(s, o));
            if (util::join_path(s.cwd, o) == object) e.final = true;
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
    if (last && !last->empty()) longest_first(out, *last);
    return out;
}

} // namespace phc::split
