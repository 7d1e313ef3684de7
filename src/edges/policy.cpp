#include "edges/policy.h"

#include "compile/shell.h"
#include "ninja/writer.h"
#include "split/graph.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/settings.h"

#include <algorithm>
#include <fmt/format.h>
#include <optional>
#include <set>

namespace phc::edges {

namespace {

ninja::Binding var(std::string name, std::string value) {
    return ninja::Binding{std::move(name), std::move(value), false};
}

ninja::Binding literal(std::string name, std::string value) {
    return ninja::Binding{std::move(name), std::move(value), true};
}

/// A step's path (relative to the step's working directory) as a ninja path,
/// when ninja runs where the build's commands start.
std::string in_build_dir(const split::Step& s, const std::string& path) {
    return util::join_path(s.cwd, path);
}

/// Replaces every occurrence of `from` in `s` with `to`.
std::string replace_all(std::string s, std::string_view from, std::string_view to) {
    if (from.empty()) return s;
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

/// What ninja makes of `tmpl` on an edge binding PHC_ARCH and PHC_SAFE.
std::string instantiate(const std::string& tmpl, const split::Step& s) {
    return replace_all(replace_all(tmpl, "$PHC_SAFE", split::safe_arch(s.arch)), "$PHC_ARCH",
                       s.arch);
}

/// One ninja value that evaluates to every device step's `texts` (one per step)
/// when an edge binds PHC_ARCH and PHC_SAFE to its architecture: the first
/// step's text with its architecture replaced, checked against every step.
/// Empty when no such template reproduces all of them exactly.
std::string device_template(const std::vector<const split::Step*>& steps,
                            const std::vector<std::string>& texts) {
    std::vector<std::string> escaped;
    escaped.reserve(steps.size());
    for (const std::string& t : texts)
        escaped.push_back(ninja::escape_value(t));
    const split::Step& first = *steps.front();
    if (escaped[0].find("$PHC_") != std::string::npos) return {};
    // File names carry the safe spelling of the architecture ("<arch>.o",
    // "<arch>.d"), options the real one; try the plain replacement, then that.
    std::string safe = split::safe_arch(first.arch);
    std::string plain =
        replace_all(escaped[0], safe, safe == first.arch ? "$PHC_ARCH" : "$PHC_SAFE");
    plain = replace_all(plain, first.arch, "$PHC_ARCH");
    for (int which = 0; which < 2; ++which) {
        std::string tmpl = plain;
        if (which == 1) {
            tmpl = replace_all(escaped[0], safe + ".", "$PHC_SAFE.");
            tmpl = replace_all(tmpl, first.arch, "$PHC_ARCH");
        }
        bool fits = true;
        for (size_t k = 0; k < steps.size() && fits; ++k)
            fits = instantiate(tmpl, *steps[k]) == escaped[k];
        if (fits) return tmpl;
    }
    return {};
}

/// The bundle step's command as a ninja value in which the object's folder of
/// per-architecture files, in the -input= and -output= arguments, is spelled
/// "${PHC_OBJECT}.phc" (and an RDC bundle's output, the object, "${PHC_OBJECT}"),
/// so that one rule serves every object; "" when the
/// folder is not "<object>.phc" as the build directory names it, or the object
/// needs quoting. Only those arguments are rewritten, so the template depends
/// on nothing else the object's name happens to match.
std::string bundle_template(const split::Step& s, const split::Plan& plan,
                            const std::string& object) {
    constexpr std::string_view kHole = "PHCOBJECTHOLE";
    if (!s.cwd.empty() || plan.private_dir != object + ".phc" || object.empty() ||
        compile::quote_word(object) != object || ninja::escape_value(object) != object)
        return {};
    split::Step t = s;
    const std::string folder = plan.private_dir + "/";
    for (std::string& word : t.argv) {
        if (word == "-output=" + object) { // RDC: the bundle is the object
            word = "-output=" + std::string(kHole);
            continue;
        }
        for (std::string_view flag : {"-input=", "-output="}) {
            if (word.size() > flag.size() + folder.size() && word.starts_with(flag) &&
                word.compare(flag.size(), folder.size(), folder) == 0) {
                word = std::string(flag) + std::string(kHole) + ".phc/" +
                       word.substr(flag.size() + folder.size());
                break;
            }
        }
    }
    std::string escaped = ninja::escape_value(s.shell());
    std::string holed = ninja::escape_value(t.shell());
    if (escaped.find(kHole) != std::string::npos || holed == escaped) return {};
    std::string tmpl = replace_all(holed, kHole, "${PHC_OBJECT}");
    if (replace_all(tmpl, "${PHC_OBJECT}", object) != escaped) return {};
    return tmpl;
}

/// How long a prefix `a` and `b` (ninja values) share, cut after a space that
/// is not an escaped one, so that it is a ninja value of its own.
size_t shared_prefix(std::string_view a, std::string_view b) {
    size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n])
        ++n;
    while (n > 0) {
        size_t space = a.rfind(' ', n - 1);
        if (space == std::string_view::npos) return 0;
        size_t dollars = 0;
        while (dollars < space && a[space - 1 - dollars] == '$')
            ++dollars;
        if (dollars % 2 == 0) return space + 1;
        n = space;
    }
    return 0;
}

/// Below this many words, a shared start is not worth its own variable. (Words,
/// not bytes: the choice must not depend on how long the paths in it are.)
constexpr size_t kMinSharedWords = 4;

/// How one object's edges are spelled, worked out before any is written.
struct ObjectEdges {
    const split::Plan& plan;
    const Carry& carry;
    const Policy& policy;
    std::vector<ninja::NewStatement>& shared;
    split::SpellPath spell;
    std::string object;           ///< the original edge's first output
    std::string device_rule;      ///< the object's device rule; "": edges carry their commands
    bool uses_safe = false;       ///< the device rule's templates name $PHC_SAFE
    std::string preprocess_rule;  ///< distributed: the preprocess edges' rule, or ""
    bool preprocess_safe = false; ///< the preprocess rule's templates name $PHC_SAFE
    std::string host_command;     ///< the host step's command, a ninja value (when shared)
    bool host_shares = false;     ///< host_command starts with the shared variable
    const Names& names() const { return policy.names; }
};

/// The step's command as its edge's rule runs it: under the step runner, the
/// program and its arguments (the runner's options say where it runs and with
/// what environment: run_options()); without one, the whole shell text.
std::string command_text(const split::Step& s, const Policy& policy) {
    return policy.step.empty() ? s.shell() : compile::join_command(s.argv);
}

/// The step runner's options for `s` (shell text; "" for none): the folder
/// and environment of its program, and, when the policy shares header sets
/// and `s` runs where ninja does, the header set of `depfile` (as ninja names
/// it; "" for none). `inputs` are the edge's explicit inputs (the source),
/// left out of the set; `output`, when not "", the edge's output where the
/// depfile names another.
std::string run_options(const split::Step& s, const Policy& policy, const std::string& depfile,
                        const std::vector<std::string>& inputs, const std::string& output = {}) {
    if (policy.step.empty()) return {};
    std::vector<std::string> words;
    if (!s.cwd.empty()) words.insert(words.end(), {"--cd", s.cwd});
    for (const std::string& e : s.env)
        words.insert(words.end(), {"--env", e});
    if (!policy.sets.empty() && s.cwd.empty() && !depfile.empty()) {
        words.insert(words.end(), {"--sets", policy.sets, "--depfile", depfile});
        for (const std::string& in : inputs)
            words.insert(words.end(), {"--input", in});
        if (!output.empty()) words.insert(words.end(), {"--deps-output", output});
    }
    return compile::join_command(words);
}

/// The start of a rule's command that runs the rest under the step runner
/// (a ninja value): the runner, the step's kind and options (ninja values)
/// and its outputs; "" without a runner.
std::string run_prefix(const Policy& policy, std::string_view kind, std::string_view options) {
    if (policy.step.empty()) return {};
    std::string out = ninja::escape_value(policy.step) + " --kind " + std::string(kind);
    if (!options.empty()) out += " " + std::string(options);
    return out + " $out -- ";
}

/// A device step's depfile as ninja names it, "" for none.
std::string spelled_depfile(const split::Step& s, const ObjectEdges& o) {
    return s.depfile.empty() ? std::string() : o.spell(s, s.depfile);
}

/// A device (or preprocess) step's runner options.
std::string device_options(const split::Step& s, const ObjectEdges& o) {
    return run_options(s, o.policy, spelled_depfile(s, o), o.carry.inputs);
}

/// Binds the runner's options `options` (shell text), when there are any.
void add_options(ninja::BuildStatement& b, const std::string& options) {
    if (!options.empty()) b.bindings.push_back(literal("PHC_OPTS", options));
}

/// Binds PHC_COMMAND to the step's command (command_text()).
/// For a compile that read response files, the step reads its own: the
/// compiler's arguments go to "<first output>.rsp" (PHC_RSP, PHC_RSP_CONTENT;
/// ninja writes it) and the command names it, so long command lines stay
/// within the system's limits.
void add_command(ninja::BuildStatement& b, const split::Step& s, const split::GraphEdge& e,
                 const split::Plan& plan, const Policy& policy) {
    std::optional<std::string> content;
    split::Step short_step = s;
    if (plan.analysis.rsp && !e.outputs.empty() && !s.outputs.empty())
        // ninja writes the file from its directory, the command reads it from its own.
        content = split::to_response_file(short_step, plan.analysis.command.argv.at(0),
                                          s.outputs[0] + ".rsp");
    b.bindings.push_back(literal("PHC_COMMAND", command_text(short_step, policy)));
    if (!content) return;
    b.bindings.push_back(literal("PHC_RSP", e.outputs[0] + ".rsp"));
    b.bindings.push_back(literal("PHC_RSP_CONTENT", *content));
}

/// The device rule's command and depfile (ninja values) when one template
/// fits every device step of `plan` (device_template()); both "" when none
/// fits or the commands read response files (each edge then gets its own).
/// The depfile stays "" for steps without one (distributed compiles).
std::pair<std::string, std::string> device_templates(const std::vector<const split::Step*>& devices,
                                                     const ObjectEdges& o) {
    if (devices.empty() || o.plan.analysis.rsp) return {};
    std::vector<std::string> texts;
    for (const split::Step* s : devices)
        texts.push_back(command_text(*s, o.policy));
    std::string command = device_template(devices, texts);
    if (command.empty() || devices.front()->depfile.empty()) return {std::move(command), {}};
    texts.clear();
    for (const split::Step* s : devices)
        texts.push_back(o.spell(*s, s->depfile));
    std::string depfile = device_template(devices, texts);
    return {std::move(command), std::move(depfile)};
}

/// The device and host commands start alike (compiler, -D, -I, flags), and so
/// do those of the other objects of a target: that start is written once, as
/// a file variable named by its text (added to `o.shared`), when it is long
/// enough; `command` and o.host_command then begin with it.
void share_start(std::string& command, ObjectEdges& o) {
    const size_t n = shared_prefix(command, o.host_command);
    const auto words = std::count(command.begin(), command.begin() + n, ' ');
    if (static_cast<size_t>(words) < kMinSharedWords) return;
    const std::string start = command.substr(0, n);
    const std::string name = o.names().args + "_" + util::Hasher().add(start).hex64();
    o.shared.push_back(var(name, start));
    command = "${" + name + "}" + command.substr(n);
    o.host_command = "${" + name + "}" + o.host_command.substr(n);
    o.host_shares = true;
}

using split::is_remote;

/// The pool of one of the object's edges that runs `s`, when it is one of
/// the split's own pools (device, remote), else "".
std::string own_pool(const split::Step& s, const ObjectEdges& o) {
    if (is_remote(s, o.plan) && o.policy.remote_pool) return o.names().remote_pool;
    return o.policy.device_pool ? o.names().pool : std::string();
}

/// A rule `name` for `steps` (one architecture each) when one template fits
/// them all; `share`: the commands' start may be shared with the host's.
std::optional<ninja::RuleStatement>
template_rule(ObjectEdges& o, const std::vector<const split::Step*>& steps, const std::string& name,
              const std::string& description, bool share, bool& uses_safe) {
    auto [command, depfile] = device_templates(steps, o);
    if (command.empty() || (!steps.front()->depfile.empty() && depfile.empty()))
        return std::nullopt;
    // The runner's options, templated as the command is.
    std::vector<std::string> options;
    for (const split::Step* s : steps)
        options.push_back(device_options(*s, o));
    const std::string options_value =
        options.front().empty() ? std::string() : device_template(steps, options);
    if (!options.front().empty() && options_value.empty()) return std::nullopt;
    if (share && !o.host_command.empty()) share_start(command, o);
    command =
        run_prefix(o.policy, split::budget_kind(*steps.front(), o.plan), options_value) + command;
    ninja::RuleStatement r{
        name,
        {var("command", command), var("description", description + ninja::escape_value(o.object))}};
    if (!depfile.empty())
        r.bindings.insert(r.bindings.end(), {var("depfile", depfile), var("deps", "gcc")});
    if (std::string pool = own_pool(*steps.front(), o); !pool.empty())
        r.bindings.push_back(var("pool", pool));
    uses_safe = command.find("$PHC_SAFE") != std::string::npos ||
                depfile.find("$PHC_SAFE") != std::string::npos;
    // (The runner's options are in `command`.)
    return r;
}

/// The object's device rule, when one template fits all its architectures
/// (its name in o.device_rule), and the shared start of its commands; for
/// distributed compiles also the preprocess rule (o.preprocess_rule).
std::vector<ninja::RuleStatement> device_rules(ObjectEdges& o) {
    std::vector<const split::Step*> devices, preprocess;
    const split::Step* host = nullptr;
    for (const split::Step& s : o.plan.steps) {
        if (s.kind == split::StepKind::Device) devices.push_back(&s);
        if (s.kind == split::StepKind::Preprocess) preprocess.push_back(&s);
        if (s.kind == split::StepKind::Host) host = &s;
    }
    o.host_command = host && !o.plan.analysis.rsp && o.carry.host_before.empty()
                         ? ninja::escape_value(command_text(*host, o.policy))
                         : "";
    std::vector<ninja::RuleStatement> out;
    const std::string hash = util::Hasher().add(o.object).hex64();
    if (!preprocess.empty())
        if (auto r = template_rule(o, preprocess, o.names().device + "_PP_" + hash,
                                   "HIP preprocess $PHC_ARCH ", false, o.preprocess_safe)) {
            o.preprocess_rule = r->name;
            out.push_back(std::move(*r));
        }
    const std::string engine = o.plan.engine == split::Engine::None
                                   ? std::string()
                                   : std::string(split::engine_name(o.plan.engine)) + " ";
    if (auto r = template_rule(o, devices, o.names().device + "_" + hash,
                               "HIP " + engine + "$PHC_ARCH ", preprocess.empty(), o.uses_safe)) {
        o.device_rule = r->name;
        out.push_back(std::move(*r));
    }
    return out;
}

/// The edge `e` as a build statement without its rule: its files, and the
/// original edge's where `e` reads the source or stands for the original.
ninja::BuildStatement edge_files(const split::GraphEdge& e, const Carry& carry) {
    ninja::BuildStatement b;
    b.outputs = e.outputs;
    b.inputs = e.inputs;
    b.implicit = e.implicit;
    if (e.external) {
        // The original edge's inputs stand for the source: its implicit and
        // order-only dependencies (generated headers) hold for every step
        // that compiles it.
        b.inputs = carry.inputs;
        b.implicit = carry.implicit;
        b.implicit.insert(b.implicit.end(), e.implicit.begin(), e.implicit.end());
        b.order_only = carry.order_only;
    }
    if (e.final) {
        b.outputs = carry.outputs;
        b.implicit_outputs = carry.implicit_outputs;
        b.validations = carry.validations;
    }
    return b;
}

/// A device (or, distributed, preprocess) edge: the object's rule and its
/// architecture, or its own command. A distributed compile without a rule of
/// its own runs by the step rule: it has no depfile (its preprocess edge does).
void bind_device(ninja::BuildStatement& b, const split::GraphEdge& e, const ObjectEdges& o) {
    const split::Step& s = *e.step;
    const bool pre = s.kind == split::StepKind::Preprocess;
    const std::string& rule = pre ? o.preprocess_rule : o.device_rule;
    const bool templated = !rule.empty();
    const bool remote = is_remote(s, o.plan);
    b.rule = templated ? rule : remote ? o.names().step : o.names().device;
    if (!templated) {
        add_command(b, s, e, o.plan, o.policy);
        add_options(b, device_options(s, o));
        if (remote)
            b.bindings.push_back(literal("PHC_KIND", std::string(split::budget_kind(s, o.plan))));
        if (remote) b.bindings.push_back(literal("PHC_DESC", s.description));
        if (!remote) b.bindings.push_back(literal("PHC_OBJECT", o.object));
    }
    b.bindings.push_back(literal("PHC_ARCH", s.arch));
    if (templated && (pre ? o.preprocess_safe : o.uses_safe))
        b.bindings.push_back(literal("PHC_SAFE", split::safe_arch(s.arch)));
    if (!templated && !remote) b.bindings.push_back(literal("PHC_DEPFILE", e.depfile));
    const std::string pool = own_pool(s, o);
    if (!pool.empty() && !templated)
        b.bindings.push_back(var("pool", pool));
    else if (pool.empty() && !o.carry.pool.empty())
        b.bindings.push_back(var("pool", o.carry.pool));
}

/// The bundle edge: bundle commands differ only in the object, so one shared
/// rule serves them all when the command allows it.
void bind_bundle(ninja::BuildStatement& b, const split::Step& s, const ObjectEdges& o) {
    std::string tmpl = bundle_template(s, o.plan, o.object);
    if (!tmpl.empty()) {
        tmpl = run_prefix(o.policy, "bundle", "") + tmpl;
        b.rule = o.names().bundle + "_" + util::Hasher().add(tmpl).hex64();
        o.shared.push_back(ninja::RuleStatement{
            b.rule, {var("command", tmpl), var("description", "HIP bundle $PHC_OBJECT")}});
    } else {
        b.rule = o.names().bundle;
        b.bindings.push_back(literal("PHC_COMMAND", command_text(s, o.policy)));
        add_options(b, run_options(s, o.policy, {}, {}));
    }
    b.bindings.push_back(literal("PHC_OBJECT", o.object));
}

/// The host edge: the original's depfile, deps, restat and pool.
void bind_host(ninja::BuildStatement& b, const split::GraphEdge& e, const ObjectEdges& o) {
    const split::Step& s = *e.step;
    const Carry& carry = o.carry;
    b.rule = o.names().host;
    // The original depfile's list becomes a header set too (gcc deps only).
    // ninja records the list under the edge's output, which is not the
    // depfile's target (the object) when the step writes a host object
    // of its own (RDC, --overlap-host): the header set must know.
    if (o.host_shares)
        b.bindings.push_back(var("PHC_COMMAND", o.host_command));
    else
        add_command(b, s, e, o.plan, o.policy);
    add_options(b, carry.deps == "gcc" ? run_options(s, o.policy, carry.depfile, carry.inputs,
                                                     e.final ? std::string() : e.outputs.at(0))
                                       : run_options(s, o.policy, {}, {}));
    if (!carry.host_before.empty()) b.bindings.push_back(literal("PHC_BEFORE", carry.host_before));
    if (!carry.host_after.empty()) b.bindings.push_back(literal("PHC_AFTER", carry.host_after));
    b.bindings.push_back(literal("PHC_OBJECT", o.object));
    // The host compile writes the original depfile.
    if (!carry.depfile.empty()) b.bindings.push_back(literal("PHC_DEPFILE", carry.depfile));
    if (!carry.deps.empty()) b.bindings.push_back(literal("PHC_DEPS", carry.deps));
    if (e.final && !carry.restat.empty()) b.bindings.push_back(literal("PHC_RESTAT", carry.restat));
    if (!carry.pool.empty()) b.bindings.push_back(var("pool", carry.pool));
}

/// Any other step, by the generic step rule: --overlap-host's embed step (the
/// bundle put into the host object) and its host compile on icecc (in the
/// remote pool), the new driver's code generation per architecture (in the
/// device pool).
void bind_other(ninja::BuildStatement& b, const split::GraphEdge& e, const ObjectEdges& o) {
    const split::Step& s = *e.step;
    b.rule = o.names().step;
    b.bindings.push_back(literal("PHC_COMMAND", command_text(s, o.policy)));
    add_options(b, run_options(s, o.policy, {}, {}));
    b.bindings.push_back(literal("PHC_KIND", std::string(split::budget_kind(s, o.plan))));
    b.bindings.push_back(literal("PHC_DESC", s.description));
    if (s.kind == split::StepKind::Embed) {
        if (e.final && !o.carry.restat.empty())
            b.bindings.push_back(literal("PHC_RESTAT", o.carry.restat));
        if (!o.carry.pool.empty()) b.bindings.push_back(var("pool", o.carry.pool));
    } else if (s.kind == split::StepKind::RemoteHost && o.policy.remote_pool) {
        b.bindings.push_back(var("pool", o.names().remote_pool));
    } else if (s.kind == split::StepKind::RemoteHost) {
        if (!o.carry.pool.empty()) b.bindings.push_back(var("pool", o.carry.pool));
    } else if (o.policy.device_pool) {
        b.bindings.push_back(var("pool", o.names().pool));
    } else if (!o.carry.pool.empty()) {
        b.bindings.push_back(var("pool", o.carry.pool));
    }
}

/// The name a shared statement declares.
const std::string& declared_name(const ninja::NewStatement& st) {
    return std::holds_alternative<ninja::Binding>(st) ? std::get<ninja::Binding>(st).name
                                                      : std::get<ninja::RuleStatement>(st).name;
}

/// Appends each of `statements` to `out.text` and counts its build statements.
Status render_into(Edges& out, const std::vector<ninja::NewStatement>& statements) {
    for (const auto& st : statements) {
        if (auto ok = ninja::render_to(out.text, st); !ok) return ok.error();
        if (std::holds_alternative<ninja::BuildStatement>(st)) ++out.count;
    }
    return Ok{};
}

} // namespace

Result<FirstOrder> first_order() {
    const std::optional<std::string> v = util::get("PHC_FIRST_ORDER");
    if (!v || v->empty() || *v == "hosts") return FirstOrder::Hosts;
    if (*v == "size") return FirstOrder::Size;
    if (*v == "given") return FirstOrder::Given;
    return make_error(fmt::format("PHC_FIRST_ORDER: '{}' is not hosts, size or given", *v));
}

std::string step_runner(const std::string& self, const std::string& records) {
    if (self.empty() || util::get("PHC_REGEN_STEPS") == "0") return {};
    return compile::join_command({self, "step", "--records", records});
}

std::vector<ninja::NewStatement> split_rules(const Policy& policy, int device_jobs,
                                             int remote_jobs) {
    const Names& names = policy.names;
    auto command = [&](std::string_view kind) {
        return run_prefix(policy, kind, "$PHC_OPTS") + "$PHC_COMMAND";
    };
    std::vector<ninja::NewStatement> out;
    if (device_jobs > 0) out.push_back(ninja::PoolStatement{names.pool, device_jobs});
    if (remote_jobs > 0) out.push_back(ninja::PoolStatement{names.remote_pool, remote_jobs});
    out.push_back(ninja::RuleStatement{
        names.device,
        {var("command", command("device")), var("description", "HIP $PHC_ARCH $PHC_OBJECT"),
         var("depfile", "$PHC_DEPFILE"), var("deps", "gcc"), var("rspfile", "$PHC_RSP"),
         var("rspfile_content", "$PHC_RSP_CONTENT")}});
    out.push_back(ninja::RuleStatement{
        names.bundle,
        {var("command", command("bundle")), var("description", "HIP bundle $PHC_OBJECT")}});
    out.push_back(ninja::RuleStatement{
        names.host,
        {var("command", "${PHC_BEFORE}" + command("host") + "${PHC_AFTER}"),
         var("description", "HIP host $PHC_OBJECT"), var("depfile", "$PHC_DEPFILE"),
         var("deps", "$PHC_DEPS"), var("restat", "$PHC_RESTAT"), var("rspfile", "$PHC_RSP"),
         var("rspfile_content", "$PHC_RSP_CONTENT")}});
    out.push_back(
        ninja::RuleStatement{names.step,
                             {var("command", command("$PHC_KIND")), var("description", "$PHC_DESC"),
                              var("restat", "$PHC_RESTAT")}});
    return out;
}

std::vector<ninja::NewStatement> compile_statements(const split::Plan& plan, const Carry& carry,
                                                    const Policy& policy,
                                                    std::vector<ninja::NewStatement>& shared,
                                                    int64_t* chain_ms,
                                                    std::vector<ninja::NewStatement>* lead) {
    const std::string& object = carry.outputs.empty() ? plan.analysis.output : carry.outputs[0];
    ObjectEdges o{plan,   carry, policy, shared, policy.spell ? policy.spell : in_build_dir,
                  object, {},    false,  {},     false,
                  {},     false};
    std::vector<ninja::NewStatement> out;
    for (auto& rule : device_rules(o))
        out.push_back(std::move(rule));
    const split::Durations* durations = policy.durations;
    split::Durations guess;
    if (policy.guess_order && (!durations || durations->empty())) {
        guess = split::guess_durations(plan, o.spell);
        durations = &guess;
    }
    const std::vector<split::GraphEdge> edges = split::plan_edges(plan, o.spell, durations);
    std::set<std::string_view> made; // what the object's edges write
    for (const split::GraphEdge& e : edges)
        made.insert(e.outputs.begin(), e.outputs.end());
    auto waits_for_none = [&](const split::GraphEdge& e) {
        for (const auto* list : {&e.inputs, &e.implicit})
            for (const auto& in : *list)
                if (made.contains(in)) return false;
        return true;
    };
    for (const split::GraphEdge& e : edges) {
        if (chain_ms) *chain_ms = std::max(*chain_ms, e.chain_ms);
        ninja::BuildStatement b = edge_files(e, carry);
        switch (e.step->kind) {
        case split::StepKind::Device:
        case split::StepKind::Preprocess:
            bind_device(b, e, o);
            break;
        case split::StepKind::Bundle:
            bind_bundle(b, *e.step, o);
            break;
        case split::StepKind::Host:
            bind_host(b, e, o);
            break;
        default:
            bind_other(b, e, o);
            break;
        }
        if (lead && policy.hosts_first && e.step->kind == split::StepKind::Host &&
            waits_for_none(e))
            lead->push_back(std::move(b));
        else
            out.push_back(std::move(b));
    }
    return out;
}

Result<Edges> compile_edges(const split::Plan& plan, const Carry& carry, const Policy& policy) {
    Edges out;
    std::vector<ninja::NewStatement> shared, lead;
    auto statements = compile_statements(plan, carry, policy, shared, &out.chain_ms, &lead);
    if (auto ok = render_into(out, statements); !ok) return ok.error();
    for (const auto& st : lead) {
        if (auto ok = ninja::render_to(out.lead, st); !ok) return ok.error();
        ++out.count;
    }
    for (const auto& st : shared) {
        std::string text;
        if (auto ok = ninja::render_to(text, st); !ok) return ok.error();
        out.shared.emplace_back(declared_name(st), std::move(text));
    }
    return out;
}

Result<Edges> link_edges(const split::LinkPlan& plan, const Carry& carry, const Policy& policy) {
    Edges out;
    std::vector<ninja::NewStatement> statements;
    for (const split::GraphEdge& e :
         split::step_edges(plan.steps, plan.analysis.command.cwd, plan.analysis.output,
                           policy.spell ? policy.spell : in_build_dir, policy.durations)) {
        const split::Step& s = *e.step;
        ninja::BuildStatement b;
        b.rule = policy.names.step;
        b.outputs = e.outputs;
        b.inputs = e.inputs;
        b.implicit = e.implicit;
        b.order_only = carry.order_only;
        b.bindings.push_back(literal("PHC_COMMAND", command_text(s, policy)));
        add_options(b, run_options(s, policy, {}, {}));
        b.bindings.push_back(literal("PHC_KIND", std::string(split::budget_kind(s.kind))));
        b.bindings.push_back(literal("PHC_DESC", s.description));
        if (e.final) {
            // The host link stands for the original edge: its outputs, and its
            // inputs (the objects, libraries) as implicit ones.
            b.outputs = carry.outputs;
            b.implicit_outputs = carry.implicit_outputs;
            b.implicit.insert(b.implicit.end(), carry.inputs.begin(), carry.inputs.end());
            b.implicit.insert(b.implicit.end(), carry.implicit.begin(), carry.implicit.end());
            b.validations = carry.validations;
            if (!carry.restat.empty()) b.bindings.push_back(literal("PHC_RESTAT", carry.restat));
            if (!carry.pool.empty()) b.bindings.push_back(var("pool", carry.pool));
        } else if (s.kind == split::StepKind::DeviceLink && policy.device_pool) {
            b.bindings.push_back(var("pool", policy.names.pool));
        } else if (s.kind == split::StepKind::LinkPlan) {
            // It reads every input of the link, as the link does, and rewrites
            // a plan only when it changes: the device links it leaves as they
            // were do not run.
            for (const auto* list : {&carry.inputs, &carry.implicit})
                for (const std::string& in : *list)
                    if (std::find(b.inputs.begin(), b.inputs.end(), in) == b.inputs.end() &&
                        std::find(b.implicit.begin(), b.implicit.end(), in) == b.implicit.end())
                        b.implicit.push_back(in);
            b.bindings.push_back(literal("PHC_RESTAT", "1"));
        }
        out.chain_ms = std::max(out.chain_ms, e.chain_ms);
        statements.push_back(std::move(b));
    }
    if (auto ok = render_into(out, statements); !ok) return ok.error();
    return out;
}

} // namespace phc::edges
