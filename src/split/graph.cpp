#include "split/graph.h"

#include "util/file.h"

#include <algorithm>
#include <set>

namespace phc::split {

std::vector<GraphEdge> plan_edges(const Plan& plan, const SpellPath& spell) {
    return step_edges(plan.steps, plan.analysis.command.cwd, plan.analysis.output, spell);
}

std::vector<GraphEdge> step_edges(const std::vector<Step>& steps, const std::string& cwd,
                                  const std::string& output, const SpellPath& spell) {
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
    return out;
}

} // namespace phc::split
