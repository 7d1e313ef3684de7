#include "gen/split_edges.h"

#include "compile/shell.h"
#include "gen/compdb.h"
#include "gen/depfile.h"
#include "gen/paths.h"
#include "split/graph.h"

#include <algorithm>

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

/// A response file a step reads: its path and its text.
struct ResponseFile {
    std::string path, content;
};

/// For a compile that read response files: the compile step `s` reads its own,
/// "<first output>.rsp" (absolute: the command runs in the entry's directory),
/// holding the compiler's arguments; `s.argv` keeps the compiler and names the
/// file. Empty when `s` keeps its command line.
ResponseFile use_response_file(split::Step& s, const split::Plan& plan) {
    if (!plan.analysis.rsp || s.outputs.empty() ||
        (s.kind != split::StepKind::Device && s.kind != split::StepKind::Host))
        return {};
    const std::string path = absolute_in(plan.analysis.work_dir(), s.outputs[0]) + ".rsp";
    auto content = split::to_response_file(s, plan.analysis.command.argv.at(0), path);
    return content ? ResponseFile{path, std::move(*content)} : ResponseFile{};
}

} // namespace

std::vector<ninja::BuildStatement> split_edges(const split::Plan& plan,
                                               const std::string& ninja_dir,
                                               const SplitRules& rules,
                                               const split::Durations* last, int64_t* chain_ms) {
    const std::string dir = plan.analysis.work_dir();
    auto spell = [&](const split::Step&, const std::string& p) {
        return spell_from(ninja_dir, absolute_in(dir, p));
    };
    std::vector<ninja::BuildStatement> out;
    for (const split::GraphEdge& e : split::plan_edges(plan, spell, last)) {
        if (chain_ms) *chain_ms = std::max(*chain_ms, e.chain_ms);
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
        std::string copy;
        if (host && plan.analysis.writes_depfile) {
            // The original build's depfile: read in place when it names ninja's
            // spelling, else copied, so that deps = gcc does not delete make's.
            if (depfile_names(step.argv, find_output_arg(step.argv), b.outputs.at(0))) {
                b.rule = rules.keep;
            } else {
                copy = copy_for_ninja(step.depfile);
                depfile = spell(step, ninja_copy(step.depfile));
            }
        }
        // A host compile writing a host object of its own (RDC, --overlap-host)
        // writes the original depfile where ninja made no folder (the
        // object's folder is made for the edge that writes the object).
        std::string mkdir;
        if (host && !step.depfile.empty() && step.outputs.at(0) != plan.analysis.output)
            mkdir =
                "mkdir -p " + compile::quote_word(dir_of(absolute_in(dir, step.depfile))) + " && ";
        const ResponseFile rsp = use_response_file(step, plan);
        b.bindings = {{"command", mkdir + step.shell() + copy, true}};
        if (!rsp.path.empty()) {
            b.bindings.push_back({"rspfile", rsp.path, true});
            b.bindings.push_back({"rspfile_content", rsp.content, true});
        }
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
