#include "split/plan.h"

#include "compile/shell.h"
#include "probe/objcopy.h"
#include "util/subprocess.h"

#include <algorithm>
#include <tuple>

namespace phc::split {

using compile::ParsedArg;

std::string_view step_kind_name(StepKind k) {
    switch (k) {
    case StepKind::Device:
        return "device";
    case StepKind::Bundle:
        return "bundle";
    case StepKind::Host:
        return "host";
    case StepKind::Unbundle:
        return "unbundle";
    case StepKind::DeviceLink:
        return "device-link";
    case StepKind::Fatbin:
        return "fatbin";
    case StepKind::FatbinObject:
        return "fatbin-object";
    case StepKind::HostLink:
        return "host-link";
    case StepKind::Embed:
        return "embed";
    case StepKind::Check:
        return "check";
    case StepKind::Preprocess:
        return "preprocess";
    case StepKind::RemoteHost:
        return "remote-host";
    case StepKind::LinkPlan:
        return "link-plan";
    }
    return "?";
}

std::string_view budget_kind(StepKind k) {
    switch (k) {
    case StepKind::Device:
    case StepKind::Preprocess:
        return "device";
    case StepKind::Host:
    case StepKind::RemoteHost:
        return "host";
    case StepKind::DeviceLink:
        return "devlink";
    case StepKind::HostLink:
        return "link";
    case StepKind::Embed:
        return "embed";
    case StepKind::Bundle:
    case StepKind::Unbundle:
    case StepKind::Fatbin:
    case StepKind::FatbinObject:
        return "bundle";
    case StepKind::Check:
    case StepKind::LinkPlan:
        break;
    }
    return "other";
}

bool is_remote(const Step& s, const Plan& plan) {
    return (s.kind == StepKind::Device && plan.engine != Engine::None) ||
           s.kind == StepKind::RemoteHost;
}

std::string_view budget_kind(const Step& s, const Plan& plan) {
    return is_remote(s, plan) ? "remote" : budget_kind(s.kind);
}

std::string Step::shell() const {
    std::string out;
    if (!cwd.empty()) out = "cd " + compile::quote_word(cwd) + " && ";
    for (const std::string& e : env)
        out += compile::quote_assignment(e) + " ";
    return out + compile::join_command(argv);
}

std::optional<std::string> to_response_file(Step& s, const std::string& compiler,
                                            const std::string& path) {
    auto at = std::find(s.argv.begin(), s.argv.end(), compiler);
    if (at == s.argv.end()) return std::nullopt;
    std::string content = compile::join_command({at + 1, s.argv.end()});
    s.argv.erase(at + 1, s.argv.end());
    s.argv.push_back("@" + path);
    return content;
}

std::string safe_arch(std::string_view arch) {
    std::string s(arch);
    for (char& c : s)
        if (c == ':') c = '-';
    return s;
}

namespace {

bool is_arch_option(const ParsedArg& p) {
    return p.is("--offload-arch=") || p.is("--cuda-gpu-arch=") || p.is("--no-offload-arch=") ||
           p.is("--no-cuda-gpu-arch=");
}

/// Options that only steer bundling or the driver's own parallelism.
bool is_bundling_option(const ParsedArg& p) {
    return p.is("--offload-compress") || p.is("--no-offload-compress") ||
           p.is("--offload-compression-level=") || p.is("--offload-jobs=") ||
           p.is("-parallel-jobs=");
}

/// Options that only steer preprocessing: unused (and warned about) when the
/// input is preprocessed already.
bool is_preprocessor_option(const ParsedArg& p) {
    for (std::string_view n : {"-D", "-U", "-I", "-idirafter", "-imacros", "-include",
                               "-include-pch", "-iquote", "-isystem"})
        if (p.is(n)) return true;
    return false;
}

/// How one step's argv differs from the original: words replaced or dropped.
struct Edit {
    std::string arch; ///< device: the one architecture; host: ""
    bool keep_archs = false;
    std::string output;  ///< replacement for -o (and, for device steps, -MT/-MQ)
    std::string depfile; ///< replacement for -MF
    std::vector<std::string> append;
    bool keep_targets = false;  ///< -MT/-MQ stay as written (the step writes the original depfile)
    bool drop_deps = false;     ///< leave out every depfile option (appended in another form)
    bool keep_bundling = false; ///< bundling options stay (the driver's own whole compile)
    bool drop_compile = false;  ///< leave out -c (a preprocess step: -E is appended)
    /// The step compiles a preprocessed file appended last: the source, -x
    /// and the preprocessor's options are left out.
    bool preprocessed = false;
};

std::vector<std::string> edit_argv(const compile::Analysis& a, const Edit& e) {
    const auto& argv = a.command.argv;
    std::vector<const ParsedArg*> at(argv.size(), nullptr); // argv position -> its argument
    for (const ParsedArg& p : a.args)
        if (p.index < at.size()) at[p.index] = &p;
    std::vector<std::string> out{argv[0]};
    out.reserve(argv.size() + e.append.size() + 2);
    bool arch_written = false;
    for (size_t i = 1; i < argv.size(); ++i) {
        const ParsedArg* p = at[i];
        if (e.drop_deps && p &&
            ((p->option && (p->option->flags & compile::kDependency)) ||
             (!p->option && !p->input && compile::is_wp_depfile(argv[i])))) {
            i += (p->option ? p->count : 1) - 1;
            continue;
        }
        if (p && !p->option && !p->input && !e.output.empty() && compile::is_wp_depfile(argv[i])) {
            // -Wp,-MD,FILE / -Wp,-MMD,FILE: the same form, naming the step's depfile
            out.push_back(argv[i].substr(0, argv[i].find(',', 4)) + "," + e.depfile);
            continue;
        }
        if (e.preprocessed && p && p->input) continue;
        if (!p || !p->option) {
            out.push_back(argv[i]);
            continue;
        }
        size_t n = p->count;
        if ((e.drop_compile && p->is("-c")) ||
            (e.preprocessed && (p->is("-x") || is_preprocessor_option(*p)))) {
            i += n - 1;
            continue;
        }
        if (is_arch_option(*p) && !e.keep_archs) {
            if (!e.arch.empty() && !arch_written) out.push_back("--offload-arch=" + e.arch);
            arch_written = true;
        } else if ((is_bundling_option(*p) && !e.keep_bundling) || p->is("-cuid=")) {
            // dropped: the bundle step and the explicit -cuid below take their place
        } else if (!e.output.empty() && p->is("-o")) {
            out.insert(out.end(), {"-o", e.output});
        } else if (!e.output.empty() && p->is("-MF")) {
            out.insert(out.end(), {"-MF", e.depfile});
        } else if (!e.output.empty() && !e.keep_targets && (p->is("-MT") || p->is("-MQ"))) {
            out.insert(out.end(), {std::string(p->option->name), e.output});
        } else {
            for (size_t k = 0; k < n; ++k)
                out.push_back(argv[i + k]);
        }
        i += n - 1;
    }
    out.insert(out.end(), e.append.begin(), e.append.end());
    return out;
}

std::vector<std::string> with_launcher(const compile::CompileCommand& c,
                                       std::vector<std::string> argv) {
    std::vector<std::string> out = c.launcher;
    out.insert(out.end(), argv.begin(), argv.end());
    return out;
}

/// A step of the compile `a` (run in its directory, with its environment)
/// that reads `inputs` and writes `outputs`; `arch` for a device step's.
Step step_of(const compile::Analysis& a, StepKind kind, std::vector<std::string> inputs,
             std::vector<std::string> outputs, std::string arch = {}) {
    Step s;
    s.kind = kind;
    s.arch = std::move(arch);
    s.cwd = a.command.cwd;
    s.env = a.command.env;
    s.inputs = std::move(inputs);
    s.outputs = std::move(outputs);
    return s;
}

/// Has a device-only compile write `depfile` (if any) naming `target`: through
/// its cc1 job when the driver ignores -MD there, else by -MD -MF when the
/// compile asks for none itself.
void ask_depfile(Edit& e, const compile::Analysis& a, const probe::ProbeResult& probe,
                 const std::string& depfile, const std::string& target) {
    if (depfile.empty()) return;
    if (!probe.device_takes_depfile) {
        e.drop_deps = true;
        e.append.insert(e.append.end(),
                        {"-Xclang", "-dependency-file", "-Xclang", depfile, "-Xclang", "-MT",
                         "-Xclang", target, "-Xclang", "-sys-header-deps"});
    } else if (!a.writes_depfile) {
        e.append.insert(e.append.end(), {"-MD", "-MF", depfile});
    }
}

Step device_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                 const std::string& arch, const PlanOptions& opts) {
    std::string base = plan.private_dir + "/" + safe_arch(arch);
    Step s = step_of(a, StepKind::Device, {a.source}, {base + ".o"}, arch);
    Edit e{arch, false, base + ".o", base + ".d", {}};
    if (!a.explicit_output) e.append = {"-o", base + ".o"};
    if (a.writes_depfile || opts.device_depfiles) s.depfile = base + ".d";
    ask_depfile(e, a, probe, s.depfile, s.outputs[0]);
    e.append.insert(e.append.end(), {"--offload-device-only", "--no-gpu-bundle-output"});
    // The new driver: device bitcode, code generated by a step of its own or at link time.
    if (probe.driver == probe::DriverKind::New) e.append.push_back("-emit-llvm");
    if (!plan.cuid.empty()) e.append.push_back("-cuid=" + plan.cuid);
    s.argv = with_launcher(a.command, edit_argv(a, e));
    s.description = "HIP " + arch + " " + a.output;
    return s;
}

/// The engine the device compiles of `a` go to, or None and why not when one
/// is asked for (PlanOptions::distribute, or the compile's launcher) but the
/// distributed shape does not fit.
std::pair<Engine, std::string> distribution(const compile::Analysis& a,
                                            const probe::ProbeResult& probe,
                                            const PlanOptions& opts, const std::string& pp_dir) {
    const Engine e = opts.distribute.value_or(engine_of(a.command));
    if (e == Engine::None) return {e, {}};
    const std::string name(engine_name(e));
    // The new driver's device compiles (to bitcode, then its code generation
    // step or the packed bitcode) go as the old driver's do, spelled as
    // new_driver_words() says; any other new-driver shape stays local.
    const bool old_shape = probe.driver == probe::DriverKind::Old && probe.codegen.empty() &&
                           probe.embed_option.empty();
    const bool new_shape = probe.driver == probe::DriverKind::New &&
                           (!probe.codegen.empty() || !probe.embed_option.empty());
    if (!old_shape && !new_shape)
        return {Engine::None, "this shape of the new offload driver's device steps is not sent "
                              "to " +
                                  name};
    if (a.rsp)
        return {Engine::None,
                "the compile reads response files, which " + name + " does not expand"};
    if (!probe.distribute_differs.empty())
        return {Engine::None, "jobs-differ: " + probe.distribute_differs};
    if (!probe.distribute_checked)
        return {Engine::None, "the plan-time guard did not check the distributed shape"};
    // hipcc 5.2.3 passes --offload-arch= on only for inputs it takes for HIP
    // sources: the compile of the preprocessed file then has no kernels (seen).
    if (a.command.compiler == compile::CompilerKind::Hipcc)
        return {Engine::None, "hipcc drops --offload-arch= for a preprocessed input, whose "
                              "code object would then have no kernels"};
    if (e == Engine::Distcc && !pp_dir.starts_with('c'))
        return {Engine::None, "distcc sends a -x compile only when its input's path starts "
                              "with 'c', and the preprocessed files' folder is " +
                                  pp_dir};
    return {e, {}};
}

/// The new driver's device compile, distributed: the new driver does not read
/// a preprocessed file as device code (it compiles `-x hip-cpp-output` for
/// the host), so both the preprocess and the compile of the preprocessed file
/// run through the old driver (`--no-offload-new-driver`), handing its cc1
/// job the one argument the new driver's own has beside it
/// (`-Xclang --offload-new-driver`): the preprocess job is then the new
/// driver's, and the compile's bitcode is its device step's (checked with
/// clang 22, RDC and not; tests/e2e/distribute_distcc.sh compares every
/// output with the local split's).
std::vector<std::string> new_driver_words(const probe::ProbeResult& probe) {
    if (probe.driver != probe::DriverKind::New) return {};
    return {"--no-offload-new-driver", "-Xclang", "--offload-new-driver"};
}

/// The words that run the engine: the compile's launcher when it is the
/// engine, else the engine's name.
std::vector<std::string> engine_words(const compile::CompileCommand& c, Engine e) {
    if (engine_of(c) == e) return c.launcher;
    return {std::string(engine_name(e))};
}

/// Distributed, step one (local): architecture `arch`'s device source, bundled
/// (`-E --gpu-bundle-output`), checked and completed by `phc-ninja device-ii`;
/// it writes the device step's depfile.
Step preprocess_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                     const std::string& arch, const std::string& pp, const PlanOptions& opts) {
    Step s = device_step(a, plan, probe, arch, opts);
    // Beside the preprocessed file: ninja makes only its outputs' folders.
    const std::string depfile =
        s.depfile.empty() ? std::string() : pp.substr(0, pp.size() - 3) + ".d";
    s.depfile = depfile;
    s.kind = StepKind::Preprocess;
    s.outputs = {pp};
    Edit e{arch, false, pp, depfile, {}};
    e.drop_compile = true;
    if (!a.explicit_output) e.append = {"-o", pp};
    ask_depfile(e, a, probe, depfile, pp);
    // -dD: the file keeps its #defines, for phc-ninja device-ii's screen
    // (split/distribute.h: a pragma naming a macro makes it compile locally).
    e.append.insert(e.append.end(), {"-E", "-dD", "--offload-device-only", "--gpu-bundle-output"});
    for (std::string& w : new_driver_words(probe))
        e.append.push_back(std::move(w));
    if (!plan.cuid.empty()) e.append.push_back("-cuid=" + plan.cuid);
    s.argv = {opts.tool.empty() ? util::self_exe() : opts.tool,
              "device-ii",
              "--arch",
              arch,
              "--output",
              pp};
    if (!opts.host_triple.empty()) s.argv.insert(s.argv.end(), {"--host-triple", opts.host_triple});
    s.argv.push_back("--");
    std::vector<std::string> cc = edit_argv(a, e);
    s.argv.insert(s.argv.end(), cc.begin(), cc.end());
    s.description = "HIP preprocess " + arch + " " + a.output;
    return s;
}

/// Distributed, step two: the device compile of the preprocessed file `pp`
/// through the engine, which may send it away; `phc-ninja device-ii` checks
/// first that `pp` holds the architecture's device section. The language is
/// joined to -x and directly before the input (neither engine reads a joined
/// -x; distcc wants the next word to start with 'c'); the driver drops -cuid=
/// for preprocessed input, so the CUID goes to its cc1 job.
Step remote_device_step(const compile::Analysis& a, const Plan& plan,
                        const probe::ProbeResult& probe, const std::string& arch,
                        const std::string& pp, Engine engine, const PlanOptions& opts) {
    const std::string object = plan.private_dir + "/" + safe_arch(arch) + ".o";
    Step s = step_of(a, StepKind::Device, {pp}, {object}, arch);
    // What runs instead when the preprocess step's screen refused `pp`: the
    // local device compile of the source, without the engine or a depfile
    // (the preprocess step writes it); ninja runs this step again whenever `pp`
    // changes, which it does with the source or a header.
    Edit local{arch, false, object, {}, {}};
    local.drop_deps = true;
    if (!a.explicit_output) local.append = {"-o", object};
    local.append.insert(local.append.end(), {"--offload-device-only", "--no-gpu-bundle-output"});
    if (probe.driver == probe::DriverKind::New) local.append.push_back("-emit-llvm");
    if (!plan.cuid.empty()) local.append.push_back("-cuid=" + plan.cuid);
    Edit e{arch, false, object, {}, {}};
    e.drop_deps = true;
    e.preprocessed = true;
    e.drop_compile = true; // appended, before the input
    if (!a.explicit_output) e.append = {"-o", object};
    e.append.insert(e.append.end(), {"--offload-device-only", "--no-gpu-bundle-output"});
    if (probe.driver == probe::DriverKind::New) {
        for (std::string& w : new_driver_words(probe))
            e.append.push_back(std::move(w));
        e.append.push_back("-emit-llvm");
    }
    if (!plan.cuid.empty()) e.append.insert(e.append.end(), {"-Xclang", "-cuid=" + plan.cuid});
    e.append.insert(e.append.end(), {"-c", "-xhip-cpp-output", pp});
    s.argv = {opts.tool.empty() ? util::self_exe() : opts.tool,
              "device-ii",
              "--arch",
              arch,
              "--input",
              pp,
              "--local",
              compile::join_command(edit_argv(a, local)),
              "--"};
    for (std::string& w : engine_words(a.command, engine))
        s.argv.push_back(std::move(w));
    std::vector<std::string> cc = edit_argv(a, e);
    s.argv.insert(s.argv.end(), cc.begin(), cc.end());
    s.description = "HIP " + std::string(engine_name(engine)) + " " + arch + " " + a.output;
    return s;
}

Step bundle_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                 const std::vector<std::string>& objects, const std::string& host = {}) {
    Step s = step_of(a, StepKind::Bundle, objects, {plan.bundle});
    if (!host.empty()) s.inputs.push_back(host);
    s.argv = probe.bundler_argv(objects, plan.bundle, host);
    s.description = "HIP bundle " + a.output;
    return s;
}

/// ccache does not hash the -fcuda-include-gpubinary file: name it in
/// CCACHE_EXTRAFILES (after the command's own, if any).
void hash_for_ccache(Step& s, const std::string& file) {
    std::string extra = "CCACHE_EXTRAFILES=" + file;
    for (auto it = s.env.begin(); it != s.env.end(); ++it)
        if (it->rfind("CCACHE_EXTRAFILES=", 0) == 0) {
            extra = *it + ":" + file;
            s.env.erase(it);
            break;
        }
    s.env.push_back(extra);
}

Step host_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe) {
    Step s = step_of(a, StepKind::Host, {a.source, plan.bundle}, {a.output});
    s.depfile = a.depfile();
    // hipcc without --offload-arch would ask rocm_agent_enumerator for the GPU:
    // keep the architectures there (a host-only compile ignores them; checked).
    Edit e{{}, a.command.compiler == compile::CompilerKind::Hipcc, {}, {}, {}};
    if (probe.embed_option.empty())
        e.append = {"--offload-host-only", "-Xclang", "-fcuda-include-gpubinary", "-Xclang",
                    plan.bundle};
    else // the new driver's RDC: the host object carries the packed device bitcode
        e.append = {"--offload-host-only", "-Xclang", probe.embed_option + plan.bundle};
    // The driver's host job gets the CUID, but a host-only compile drops -cuid= (probed).
    if (!plan.cuid.empty() && !probe.host_takes_cuid) e.append.push_back("-Xclang");
    if (!plan.cuid.empty()) e.append.push_back("-cuid=" + plan.cuid);
    std::vector<std::string> argv = edit_argv(a, e);
    if (a.command.launcher_kind == compile::LauncherKind::Ccache) {
        hash_for_ccache(s, plan.bundle);
        argv = with_launcher(a.command, std::move(argv));
    }
    // Other launchers (sccache, distcc, ...) are dropped from the host step: we
    // cannot tell them that the bundle is an input, and a stale host object
    // would embed old device code.
    s.argv = std::move(argv);
    s.description = "HIP host " + a.output;
    return s;
}

/// The new driver's code generation for architecture `k`: the command the
/// wrapper would run, reading the device step's bitcode.
Step codegen_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                  size_t k, const std::string& bitcode) {
    const std::string& arch = probe.archs[k];
    const std::string image = plan.private_dir + "/" + safe_arch(arch) + ".img";
    Step s = step_of(a, StepKind::DeviceLink, {bitcode}, {image}, arch);
    for (std::string w : probe.codegen[k]) {
        if (size_t at = w.find(probe::ProbeResult::kInputToken); at != std::string::npos)
            w = w.substr(0, at) + bitcode;
        else if (size_t o = w.find(probe::ProbeResult::kOutputToken); o != std::string::npos)
            w = w.substr(0, o) + image + w.substr(o + probe::ProbeResult::kOutputToken.size());
        s.argv.push_back(std::move(w));
    }
    s.description = "HIP codegen " + arch + " " + a.output;
    return s;
}

/// How a host compile writing a file of its own is spelled.
struct HostForm {
    bool depfile = true;     ///< it writes the original depfile (else every depfile option goes)
    bool preprocess = false; ///< it preprocesses (-E -dD) instead of compiling
};

/// A host compile writing a host object of its own, not the compile's output
/// (RDC: the bundle step combines it with the device bitcode; --overlap-host:
/// the embed step puts the bundle in), and the original depfile, naming the
/// original object as its target. `embed`: words appended after
/// --offload-host-only (the placeholder device code to embed, if any).
Step host_object_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                      const std::string& host_object, const std::vector<std::string>& embed,
                      HostForm form = {}) {
    Step s = step_of(a, StepKind::Host, {a.source}, {host_object});
    if (form.depfile) s.depfile = a.depfile();
    Edit e{{},  a.command.compiler == compile::CompilerKind::Hipcc, host_object, s.depfile, {},
           true};
    e.drop_deps = !form.depfile;
    e.drop_compile = form.preprocess;
    if (!a.explicit_output) e.append = {"-o", host_object};
    if (a.writes_depfile && form.depfile) {
        bool has_mf = false, has_mt = false;
        for (const ParsedArg& p : a.args) {
            has_mf = has_mf || (p.option && p.is("-MF")) ||
                     (!p.option && !p.input && compile::is_wp_depfile(a.command.argv[p.index]));
            has_mt = has_mt || (p.option && (p.is("-MT") || p.is("-MQ")));
        }
        if (!has_mf) e.append.insert(e.append.end(), {"-MF", s.depfile});
        if (!has_mt) e.append.insert(e.append.end(), {"-MT", a.output});
    }
    e.append.push_back("--offload-host-only");
    if (form.preprocess) e.append.insert(e.append.end(), {"-E", "-dD"});
    e.append.insert(e.append.end(), embed.begin(), embed.end());
    if (!plan.cuid.empty() && !probe.host_takes_cuid) e.append.push_back("-Xclang");
    if (!plan.cuid.empty()) e.append.push_back("-cuid=" + plan.cuid);
    s.argv = edit_argv(a, e);
    if (a.command.launcher_kind == compile::LauncherKind::Ccache) {
        // The placeholder (the source) is embedded: a comment changed is another object.
        if (!embed.empty()) hash_for_ccache(s, embed.back());
        s.argv = with_launcher(a.command, std::move(s.argv));
    }
    s.description = "HIP host " + a.output;
    return s;
}

/// Why --overlap-host's host compile of `a` cannot go to `engine`, or "".
/// `placeholder` becomes the file it embeds: a device library, which the
/// farm's environment holds at the same path (phc-ninja icecc-env).
std::string remote_host_reason(const compile::Analysis& a, const probe::ProbeResult& probe,
                               Engine engine, std::string& placeholder) {
    if (engine == Engine::Distcc)
        return "distcc's host objects name its server's temporary file (their FILE symbol)";
    if (a.command.launcher_kind == compile::LauncherKind::Ccache)
        return "ccache is the compile's launcher";
    for (const ParsedArg& p : a.args) {
        const std::string& w = a.command.argv[p.index];
        if (!p.input && w.starts_with("-g") && w != "-g0")
            return "with " + w +
                   " the host object's debug information would name the farm's "
                   "folders (not tried)";
    }
    // The smallest kind there is (a few KB): the ROCm device library's
    // oclc_* control files; the source is not shipped.
    for (auto it = probe.device_libraries.rbegin(); it != probe.device_libraries.rend(); ++it)
        if (compile::base_name(*it).starts_with("oclc_") && it->starts_with('/')) {
            placeholder = *it;
            return {};
        }
    return "the driver links no ROCm device library (oclc_*.bc) to embed as a placeholder that "
           "the farm's environment holds";
}

/// --overlap-host on icecc, step one (local): the host source preprocessed
/// (-E -dD) and screened by `phc-ninja device-ii --host` (distribute.h); it
/// writes the original depfile.
Step host_preprocess_step(const compile::Analysis& a, const Plan& plan,
                          const probe::ProbeResult& probe, const std::string& ii,
                          const PlanOptions& opts) {
    Step s = host_object_step(a, plan, probe, ii, {}, {true, true});
    std::vector<std::string> argv = {opts.tool.empty() ? util::self_exe() : opts.tool,
                                     "device-ii",
                                     "--host",
                                     "--output",
                                     ii,
                                     "--"};
    argv.insert(argv.end(), s.argv.begin(), s.argv.end());
    s.argv = std::move(argv);
    s.description = "HIP preprocess host " + a.output;
    return s;
}

/// --overlap-host on icecc, step two: the preprocessed host source compiled
/// through icecc, as a source (`-xhip`: as `hip-cpp-output` clang 15 ignores
/// --offload-host-only) with no include (`-nogpuinc`) and no macro
/// (`-Xclang -undef`: the text is expanded already), embedding `placeholder`.
/// icecc's daemon compiles standard input, where the last -main-file-name
/// names the object's FILE symbol as the driver's own compile does. `local`
/// (the local host compile of the source) runs instead when the screen
/// refused the file, or when the object's FILE symbol shows icecc compiled the
/// file itself here (it does when the farm is down).
Step remote_host_step(const compile::Analysis& a, const Plan& plan, const probe::ProbeResult& probe,
                      const std::string& ii, const std::string& host_object,
                      const std::string& placeholder, const Step& local, const PlanOptions& opts) {
    Step s = step_of(a, StepKind::RemoteHost, {ii}, {host_object});
    Edit e{{}, false, host_object, {}, {}};
    e.drop_deps = true;
    e.preprocessed = true;
    e.drop_compile = true;
    if (!a.explicit_output) e.append = {"-o", host_object};
    e.append.insert(e.append.end(), {"--offload-host-only", "-Xclang", "-fcuda-include-gpubinary",
                                     "-Xclang", placeholder});
    if (!plan.cuid.empty() && !probe.host_takes_cuid) e.append.push_back("-Xclang");
    if (!plan.cuid.empty()) e.append.push_back("-cuid=" + plan.cuid);
    const std::string file = std::string(compile::base_name(a.source));
    e.append.insert(e.append.end(), {"-nogpuinc", "-Xclang", "-undef", "-Xclang", "-main-file-name",
                                     "-Xclang", file, "-c", "-xhip", ii});
    s.argv = {opts.tool.empty() ? util::self_exe() : opts.tool,
              "device-ii",
              "--host",
              "--input",
              ii,
              "--object",
              host_object,
              "--file-symbol",
              file,
              "--local",
              compile::join_command(local.argv),
              "--"};
    for (std::string& w : engine_words(a.command, Engine::Icecc))
        s.argv.push_back(std::move(w));
    std::vector<std::string> cc = edit_argv(a, e);
    s.argv.insert(s.argv.end(), cc.begin(), cc.end());
    s.description = "HIP host " + a.output;
    return s;
}

/// --overlap-host: the object the compile writes, from the host compile's
/// object (`host_object`, which embeds the source as a placeholder) with its
/// .hip_fatbin section's bytes replaced by the bundle's (`phc-ninja embed`,
/// embed.h, which checks that nothing else points into the section).
Step embed_step(const compile::Analysis& a, const Plan& plan, const std::string& host_object,
                const std::string& placeholder, const std::string& objcopy,
                const std::string& tool) {
    Step s = step_of(a, StepKind::Embed, {plan.bundle, host_object}, {a.output});
    s.argv = {tool,        "embed",  "--objcopy", objcopy, "--placeholder", placeholder, "--bundle",
              plan.bundle, "--host", host_object, "-o",    a.output};
    s.description = "HIP embed " + a.output;
    return s;
}

} // namespace

Step reference_step(const compile::Analysis& a, const std::string& cuid, const std::string& output,
                    const std::string& depfile) {
    Step s = step_of(a, StepKind::Check, {a.source}, {output});
    Edit e{{}, true, output, depfile, {}, true};
    e.keep_bundling = true;
    if (!a.explicit_output) e.append = {"-o", output};
    if (!cuid.empty()) e.append.push_back("-cuid=" + cuid);
    s.argv = edit_argv(a, e);
    s.description = "HIP check " + a.output;
    return s;
}

std::vector<size_t> cuid_word_positions(const compile::Analysis& a) {
    std::vector<size_t> out;
    for (const ParsedArg& p : a.args) {
        if (p.option && (is_arch_option(p) || p.is("-cuid="))) continue;
        for (size_t k = 0; k < p.count; ++k)
            out.push_back(p.index + k);
    }
    return out;
}

namespace {

/// The host compile that embeds the bundle: after it, or (overlap_host, and an
/// objcopy to put it in) beside the device compiles, then the embed step.
void add_host(Plan& plan, const compile::Analysis& a, const probe::ProbeResult& probe,
              const PlanOptions& opts, const std::string& pp_dir) {
    const std::string& objcopy = opts.overlap_host ? probe::objcopy() : std::string();
    if (objcopy.empty()) {
        plan.steps.push_back(host_step(a, plan, probe));
        return;
    }
    const std::string tool = opts.tool.empty() ? util::self_exe() : opts.tool;
    const std::string host = plan.private_dir + "/host.o";
    std::string placeholder;
    if (plan.engine != Engine::None)
        plan.host_local_reason = remote_host_reason(a, probe, plan.engine, placeholder);
    if (plan.engine != Engine::None && plan.host_local_reason.empty()) {
        // On icecc: a device library is the placeholder, which the farm has
        // and the local compile below reads at the same path.
        plan.host_remote = true;
        const std::string ii = pp_dir + "/host.ii";
        const Step local = host_object_step(
            a, plan, probe, host, {"-Xclang", "-fcuda-include-gpubinary", "-Xclang", placeholder},
            {false, false});
        plan.steps.push_back(host_preprocess_step(a, plan, probe, ii, opts));
        plan.steps.push_back(remote_host_step(a, plan, probe, ii, host, placeholder, local, opts));
        plan.steps.push_back(embed_step(a, plan, host, placeholder, objcopy, tool));
        return;
    }
    // The source is the placeholder: no string literal of the program can equal it
    // (embed.h), where an empty one became the constant of every "".
    plan.steps.push_back(host_object_step(
        a, plan, probe, host, {"-Xclang", "-fcuda-include-gpubinary", "-Xclang", a.source}));
    plan.steps.push_back(embed_step(a, plan, host, a.source, objcopy, tool));
}

} // namespace

Plan make_plan(compile::Analysis a, const probe::ProbeResult& probe, const PlanOptions& opts) {
    Plan plan;
    plan.cuid = probe.uses_cuid ? make_cuid(a, cuid_place(a, opts.cuid_root)) : std::string();
    plan.private_dir = opts.private_dir.empty() ? a.output + ".phc" : opts.private_dir;
    plan.bundle = !probe.embed_option.empty() ? plan.private_dir + "/device.pkg"
                  : probe.rdc                 ? a.output
                                              : plan.private_dir + "/bundle.hipfb";
    plan.rdc = probe.rdc;
    const std::string pp_dir = !opts.preprocessed_dir.empty()      ? opts.preprocessed_dir
                               : plan.private_dir.starts_with('/') ? plan.private_dir
                                                                   : "cpp.phc/" + plan.private_dir;
    std::tie(plan.engine, plan.local_reason) = distribution(a, probe, opts, pp_dir);
    std::vector<std::string> objects;
    for (const std::string& arch : probe.archs) {
        if (plan.engine != Engine::None) {
            // The compile reads only the file its preprocess step wrote and checked.
            const std::string pp = pp_dir + "/" + safe_arch(arch) + ".ii";
            plan.steps.push_back(preprocess_step(a, plan, probe, arch, pp, opts));
            plan.steps.push_back(remote_device_step(a, plan, probe, arch, pp, plan.engine, opts));
        } else {
            plan.steps.push_back(device_step(a, plan, probe, arch, opts));
        }
        objects.push_back(plan.steps.back().outputs[0]);
    }
    if (!probe.codegen.empty()) {
        // The new driver: each architecture's code generation (the part
        // clang-linker-wrapper runs for all of them in one job) is a step.
        std::vector<std::string> images;
        for (size_t k = 0; k < probe.archs.size(); ++k)
            plan.steps.push_back(codegen_step(a, plan, probe, k, objects[k]));
        for (const Step& s : plan.steps)
            if (s.kind == StepKind::DeviceLink) images.push_back(s.outputs[0]);
        plan.steps.push_back(bundle_step(a, plan, probe, images));
        add_host(plan, a, probe, opts, pp_dir);
    } else if (!probe.embed_option.empty()) {
        // The new driver's relocatable device code: the device bitcode packed
        // into one file, which the host compile embeds in the object.
        plan.steps.push_back(bundle_step(a, plan, probe, objects));
        plan.steps.push_back(host_step(a, plan, probe));
    } else if (probe.rdc) {
        // Relocatable device code: the device steps write bitcode, the host
        // compile needs none of it, and the bundle of both is the object.
        const std::string host = plan.private_dir + "/host.o";
        plan.steps.push_back(host_object_step(a, plan, probe, host, {}));
        plan.steps.push_back(bundle_step(a, plan, probe, objects, host));
    } else {
        plan.steps.push_back(bundle_step(a, plan, probe, objects));
        add_host(plan, a, probe, opts, pp_dir);
    }
    plan.analysis = std::move(a);
    return plan;
}

Result<Plan> plan(compile::Analysis a, probe::ProbeCache& probes, const PlanOptions& opts) {
    if (!a.decision.split()) {
        Plan p;
        p.analysis = std::move(a);
        return p;
    }
    probe::ProbeRequest req{a.command.env, a.expanded, a.work_dir()};
    req.farm = opts.distribute.value_or(engine_of(a.command)) != Engine::None;
    auto probe = probes.get(req);
    if (!probe) return probe.error();
    probe::apply_probe(a, *probe);
    if (!a.decision.split()) {
        Plan p;
        p.analysis = std::move(a);
        return p;
    }
    if (!opts.overlap_host || probe->overlap_differs.empty())
        return make_plan(std::move(a), *probe, opts);
    PlanOptions plain = opts;
    plain.overlap_host = false;
    Plan p = make_plan(std::move(a), *probe, plain);
    p.overlap_reason = "jobs-differ: " + probe->overlap_differs;
    return p;
}

} // namespace phc::split
