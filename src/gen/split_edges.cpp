#include "gen/split_edges.h"

#include "gen/compdb.h"
#include "gen/depfile.h"
#include "gen/paths.h"

namespace phc::gen {

namespace {

/// Every path of `paths` resolved against `dir` and spelled from `ninja_dir`.
std::vector<std::string> spelled(const std::vector<std::string>& paths, const std::string& dir,
                                 const std::string& ninja_dir) {
    std::vector<std::string> out;
    for (const auto& p : paths)
        out.push_back(spell_from(ninja_dir, absolute_in(dir, p)));
    return out;
}

const std::string& rule_for(split::StepKind kind, const SplitRules& rules) {
    switch (kind) {
    case split::StepKind::Device:
        return rules.device;
    case split::StepKind::Bundle:
        return rules.bundle;
    case split::StepKind::Host:
        break;
    }
    return rules.host;
}

} // namespace

std::vector<ninja::BuildStatement>
split_edges(const split::Plan& plan, const std::string& ninja_dir, const SplitRules& rules) {
    const std::string dir = plan.analysis.work_dir();
    std::vector<ninja::BuildStatement> out;
    for (split::Step step : plan.steps) {
        step.cwd = dir;
        if (step.kind == split::StepKind::Host && step.depfile.empty()) {
            step.depfile = absolute_in(dir, step.outputs.at(0)) + ".d";
            step.argv = with_depfile(std::move(step.argv), step.depfile);
        }
        ninja::BuildStatement b;
        b.outputs = spelled(step.outputs, dir, ninja_dir);
        b.rule = rule_for(step.kind, rules);
        std::string command = step.shell();
        if (step.kind == split::StepKind::Host && plan.analysis.writes_depfile) {
            // The original build's depfile: read in place when it names ninja's
            // spelling, else copied, so that deps = gcc does not delete make's.
            if (depfile_names(step.argv, find_output_arg(step.argv), b.outputs.at(0))) {
                b.rule = rules.keep;
            } else {
                command += copy_for_ninja(step.depfile);
                step.depfile = ninja_copy(step.depfile);
            }
        }
        b.inputs = spelled(step.inputs, dir, ninja_dir);
        b.bindings = {{"command", command, true}};
        if (!step.depfile.empty())
            b.bindings.push_back(
                {"depfile", spell_from(ninja_dir, absolute_in(dir, step.depfile)), true});
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
