#include "regen/edges.h"

#include "compile/analysis.h"
#include "util/file.h"
#include "util/settings.h"

#include <fmt/format.h>

namespace phc::regen {

namespace {

std::vector<std::string> strings(const std::vector<std::string_view>& v) {
    return {v.begin(), v.end()};
}

std::string unused_name(const ninja::Manifest& m, const std::string& base, bool pool) {
    std::string name = base;
    for (int i = 2; pool ? m.find_pool(name) != nullptr : m.find_rule(name) != nullptr; ++i)
        name = fmt::format("{}_{}", base, i);
    return name;
}

} // namespace

Error edge_error(const ninja::Manifest& m, const ninja::EdgeRef& edge, Error e) {
    if (!e.where.empty()) return e;
    const auto& file = m.files()[edge.statement().file];
    e.where = fmt::format("{}:{}", file.path, m.statement(edge.statement()).line);
    return e;
}

Names unique_names(const ninja::Manifest& m) {
    Names n;
    n.device = unused_name(m, n.device, false);
    n.bundle = unused_name(m, n.bundle, false);
    n.host = unused_name(m, n.host, false);
    n.pool = unused_name(m, n.pool, true);
    n.step = unused_name(m, n.step, false);
    return n;
}

Result<Carry> carry_of(const ninja::EdgeRef& edge) {
    Carry c;
    c.outputs = strings(edge.outputs());
    c.implicit_outputs = strings(edge.implicit_outputs());
    c.inputs = strings(edge.inputs());
    c.implicit = strings(edge.implicit_inputs());
    c.order_only = strings(edge.order_only());
    c.validations = strings(edge.validations());
    for (auto [field, name] :
         {std::pair{&c.deps, "deps"}, {&c.restat, "restat"}, {&c.pool, "pool"}}) {
        auto v = edge.evaluate(name);
        if (!v) return v.error();
        *field = std::move(*v);
    }
    auto depfile = edge.evaluate_unescaped("depfile");
    if (!depfile) return depfile.error();
    c.depfile = std::move(*depfile);
    return c;
}

namespace {

/// True when `argv` makes -w change what a compile does: warnings that are
/// errors (-Werror...), or a command line the object records.
bool warnings_matter(const std::vector<std::string>& argv) {
    for (const std::string& a : argv)
        if (a.starts_with("-Werror") || a == "-pedantic-errors" || a == "-frecord-command-line" ||
            a == "-frecord-gcc-switches" || a == "-grecord-command-line" ||
            a == "-grecord-gcc-switches")
            return true;
    return false;
}

/// PHC_DEVICE_WARNINGS=first: the device compiles after the first get -w, so
/// a warning shows once for the device code instead of once per architecture.
/// -w changes no code (clang 15's device objects were compared byte for byte
/// with and without it); it is not added where warnings_matter().
void quiet_later_devices(split::Plan& plan) {
    // Only where the comparison was made: local, non-RDC device objects.
    if (util::get("PHC_DEVICE_WARNINGS") != "first" || plan.engine != split::Engine::None ||
        plan.rdc)
        return;
    bool first = true;
    for (split::Step& s : plan.steps) {
        if (s.kind != split::StepKind::Device) continue;
        if (warnings_matter(s.argv)) return;
        if (!first) s.argv.push_back("-w");
        first = false;
    }
}

} // namespace

Rendered render_split(std::string_view command, const compile::AnalyzeInput& in, const Carry& carry,
                      probe::ProbeCache& probes, const edges::Policy& policy, bool overlap_host,
                      split::Plan* plan_out) {
    Rendered r;
    EdgeDecision& d = r.d;
    d.object = carry.outputs.empty() ? std::string() : carry.outputs[0];
    compile::Analysis a = compile::analyze_string(command, in);
    if (!a.decision.split()) {
        d.code = std::string(compile::reason_code(a.decision.reason));
        d.text = a.decision.text;
        return r;
    }
    auto plan = split::plan(std::move(a), probes,
                            {.private_dir = {},
                             .device_depfiles = true,
                             .overlap_host = overlap_host,
                             .cuid_root = {},
                             .tool = {},
                             .distribute = policy.distribute,
                             .preprocessed_dir = {},
                             .host_triple = {}});
    if (!plan) {
        r.error = plan.error();
        return r;
    }
    d.code = std::string(compile::reason_code(plan->analysis.decision.reason));
    d.text = plan->analysis.decision.text;
    if (!plan->split()) return r;
    quiet_later_devices(*plan);
    auto edges = edges::compile_edges(*plan, carry, policy);
    if (!edges) {
        r.error = edges.error();
        return r;
    }
    r.text = std::move(edges->text);
    r.lead = std::move(edges->lead);
    r.rules = std::move(edges->shared);
    d.chain_ms = edges->chain_ms;
    d.split = true;
    for (const auto& s : plan->steps)
        if (s.kind == split::StepKind::Device) d.archs.push_back(s.arch);
    if (plan->engine != split::Engine::None) d.engine = split::engine_name(plan->engine);
    if (plan->host_remote) d.host = d.engine;
    if (!plan->host_local_reason.empty()) d.host = "local: " + plan->host_local_reason;
    d.local_reason = plan->local_reason;
    d.rdc = plan->rdc &&
            util::join_path(plan->analysis.command.cwd, plan->private_dir) == d.object + ".phc";
    if (plan_out) *plan_out = std::move(*plan);
    return r;
}

Rendered render_link(const split::LinkPlan& plan, const Carry& carry, const edges::Policy& policy) {
    Rendered r;
    r.d.object = carry.outputs.empty() ? plan.analysis.output : carry.outputs[0];
    r.d.link = true;
    r.d.code = std::string(compile::reason_code(plan.analysis.decision.reason));
    r.d.text = plan.analysis.decision.text;
    if (!plan.split()) return r;
    auto edges = edges::link_edges(plan, carry, policy);
    if (!edges) {
        r.error = edges.error();
        return r;
    }
    r.text = std::move(edges->text);
    r.d.split = true;
    r.d.archs = plan.archs;
    return r;
}

} // namespace phc::regen
