#include "gen/split_edges.h"

#include "compile/shell.h"
#include "gen/compdb.h"
#include "gen/depfile.h"
#include "gen/paths.h"

namespace phc::gen {

namespace {

/// What the entry passes on to its edges, with the host step made to write
/// the depfile ninja reads (see split_edges()).
edges::Carry entry_carry(split::Plan& plan, const std::string& object,
                         const split::SpellPath& spell) {
    const std::string dir = plan.analysis.work_dir();
    edges::Carry c;
    c.outputs = {object};
    c.inputs = {spell(split::Step{}, plan.analysis.source)};
    for (split::Step& host : plan.steps) {
        if (host.kind != split::StepKind::Host) continue;
        if (host.depfile.empty()) {
            host.depfile = absolute_in(dir, host.outputs.at(0)) + ".d";
            host.argv = with_depfile(std::move(host.argv), host.depfile);
        }
        const bool own_object = host.outputs.at(0) != plan.analysis.output;
        c.deps = "gcc";
        c.depfile = spell(host, host.depfile);
        if (plan.analysis.writes_depfile) {
            // The original build's depfile: read in place when it names ninja's
            // spelling, else copied, so that deps = gcc does not delete make's.
            const std::string out = own_object ? spell(host, host.outputs.at(0)) : object;
            if (depfile_names(host.argv, find_output_arg(host.argv), out)) {
                c.deps.clear();
            } else {
                c.host_after = copy_for_ninja(host.depfile);
                c.depfile = spell(host, ninja_copy(host.depfile));
            }
        }
        // A host compile writing a host object of its own (RDC, --overlap-host)
        // writes the original depfile where ninja made no folder (the
        // object's folder is made for the edge that writes the object).
        if (own_object)
            c.host_before =
                "mkdir -p " + compile::quote_word(dir_of(absolute_in(dir, host.depfile))) + " && ";
    }
    return c;
}

} // namespace

Result<edges::Edges> split_edges(split::Plan plan, const std::string& object,
                                 const std::string& ninja_dir, edges::Policy policy) {
    const std::string dir = plan.analysis.work_dir();
    policy.spell = [dir, ninja_dir](const split::Step&, const std::string& p) {
        return spell_from(ninja_dir, absolute_in(dir, p));
    };
    // Header sets need the steps to run where ninja does (edges/policy.h).
    for (split::Step& s : plan.steps)
        s.cwd = dir == ninja_dir ? std::string() : dir;
    const edges::Carry carry = entry_carry(plan, object, policy.spell);
    return edges::compile_edges(plan, carry, policy);
}

std::string object_private_dir(const std::string& private_root, const std::string& ninja_dir,
                               const std::string& object) {
    std::string rel = spell_from(ninja_dir, object);
    if (!rel.empty() && rel[0] == '/') rel = "abs" + rel;
    return private_root + "/objs/" + rel;
}

} // namespace phc::gen
