#include "gen/split_edges.h"

#include "gen/compdb.h"
#include "gen/depfile.h"
#include "gen/paths.h"
#include "split/graph.h"

namespace phc::gen {

namespace {

const std::string& rule_for(split::StepKind kind, const SplitRules& rules) {
    switch (kind) {
    case split::StepKind::Device:
        return rules.device;
    case split::StepKind::Host:
        return rules.host;
    default: // bundles and link steps: no header deps
        return rules.bundle;
    }
}

} // namespace

std::vector<ninja::BuildStatement>
split_edges(const split::Plan& plan, const std::string& ninja_dir, const SplitRules& rules) {
    const std::string dir = plan.analysis.work_dir();
    auto spell = [&](const split::Step&, const std::string& p) {
        return spell_from(ninja_dir, absolute_in(dir, p));
    };
    std::vector<ninja::BuildStatement> out;
    for (const split::GraphEdge& e : split::plan_edges(plan, spell)) {
        split::Step step = *e.step;
        step.cwd = dir;
        ninja::BuildStatement b;
        b.outputs = e.outputs;
        b.inputs = e.inputs;
        b.implicit = e.implicit;
        b.rule = rule_for(step.kind, rules);
        std::string depfile = e.depfile;
        const bool host = step.kind == split::StepKind::Host;
        if (host && depfile.empty()) {
            step.depfile = absolute_in(dir, step.outputs.at(0)) + ".d";
            step.argv = with_depfile(std::move(step.argv), step.depfile);
            depfile = spell_from(ninja_dir, step.depfile);
        }
        std::string command = step.shell();
        if (host && plan.analysis.writes_depfile) {
            // The original build's depfile: read in place when it names ninja's
            // spelling, else copied, so that deps = gcc does not delete make's.
            if (depfile_names(step.argv, find_output_arg(step.argv), b.outputs.at(0))) {
                b.rule = rules.keep;
            } else {
                command += copy_for_ninja(step.depfile);
                depfile = spell(step, ninja_copy(step.depfile));
            }
        }
        b.bindings = {{"command", command, true}};
        if (!depfile.empty()) b.bindings.push_back({"depfile", depfile, true});
        b.bindings.push_back({"description", step.description, true});
        out.push_back(std::move(b));
    }
    return out;
}

std::string object_private_dir(const std::string& private_root, const std::string& ninja_dir,
                               const std::string& object) {
    std::string rel = spell_from(ninja_dir, object);
    if (!rel.empty() && rel[0] == '/') rel = "abs" + rel;
    return private_root + "/objs/" + rel;
}

} // namespace phc::gen
