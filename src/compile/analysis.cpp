#include "compile/analysis.h"

#include "util/file.h"

#include <algorithm>

namespace phc::compile {

std::string_view reason_code(Reason r) {
    switch (r) {
    case Reason::Split:
        return "split";
    case Reason::NotSimple:
        return "not-simple";
    case Reason::UnknownCompiler:
        return "unknown-compiler";
    case Reason::NoCompile:
        return "no-compile";
    case Reason::PreprocessOnly:
        return "preprocess-only";
    case Reason::SyntaxOnly:
        return "syntax-only";
    case Reason::DepsOnly:
        return "deps-only";
    case Reason::AssemblyOnly:
        return "assembly-only";
    case Reason::EmitLlvm:
        return "emit-llvm";
    case Reason::NoSource:
        return "no-source";
    case Reason::SeveralSources:
        return "several-sources";
    case Reason::NotHip:
        return "not-hip";
    case Reason::ResponseFile:
        return "response-file";
    case Reason::SaveTemps:
        return "save-temps";
    case Reason::TimeTrace:
        return "time-trace";
    case Reason::SideOutput:
        return "side-output";
    case Reason::DeviceOnly:
        return "device-only";
    case Reason::HostOnly:
        return "host-only";
    case Reason::Rdc:
        return "rdc";
    case Reason::NewDriver:
        return "new-driver";
    case Reason::NoArch:
        return "no-arch";
    case Reason::NativeArch:
        return "native-arch";
    case Reason::SingleArch:
        return "single-arch";
    case Reason::ArchMismatch:
        return "arch-mismatch";
    case Reason::LinkNotRdc:
        return "link-not-rdc";
    case Reason::LinkUnmodelled:
        return "link-unmodelled";
    case Reason::NotSelected:
        return "not-selected";
    case Reason::JobsDiffer:
        return "jobs-differ";
    }
    return "unknown";
}

std::string Analysis::work_dir() const {
    return util::join_path(base_dir, command.cwd);
}

std::string LinkAnalysis::work_dir() const {
    return util::join_path(base_dir, command.cwd);
}

bool is_wp_depfile(std::string_view word, std::string* file) {
    std::string_view rest;
    if (word.starts_with("-Wp,-MD"))
        rest = word.substr(7);
    else if (word.starts_with("-Wp,-MMD"))
        rest = word.substr(8);
    else
        return false;
    if (!rest.empty() && rest[0] != ',') return false;
    if (file) {
        // clang's driver takes FILE only from exactly "-Wp,-MD,FILE".
        rest = rest.empty() ? rest : rest.substr(1);
        *file = rest.find(',') == std::string_view::npos ? std::string(rest) : std::string();
    }
    return true;
}

namespace {

/// "obj/x.o" -> "obj/x.d", "obj/x" -> "obj/x.d" (llvm::sys::path::replace_extension).
std::string replace_extension_d(std::string path) {
    path.resize(path.size() - util::extension(path).size());
    return path + ".d";
}

/// The object clang writes for `-c src` without -o: the base name with a .o suffix.
std::string default_output(const std::string& source) {
    std::string base(base_name(source));
    size_t dot = base.rfind('.');
    return (dot == std::string::npos || dot == 0 ? base : base.substr(0, dot)) + ".o";
}

/// depfile_of for parsed arguments; `output` is the object's name ("" = unknown).
std::string depfile_in(const std::vector<std::string>& argv, const std::vector<ParsedArg>& args,
                       const std::string& output) {
    bool writes = false;
    std::string mf;
    for (const ParsedArg& p : args) {
        if (p.is("-MD") || p.is("-MMD")) {
            writes = true;
        } else if (p.is("-MF")) {
            mf = p.value;
        } else if (!p.option && !p.input) {
            std::string file;
            if (!is_wp_depfile(argv[p.index], &file)) continue;
            writes = true;
            if (!file.empty()) mf = file;
        }
    }
    if (!writes) return {};
    if (!mf.empty()) return mf;
    return output.empty() ? std::string() : replace_extension_d(output);
}

} // namespace

std::string depfile_of(const std::vector<std::string>& argv) {
    std::vector<ParsedArg> args = parse_args(argv);
    std::string output, input;
    size_t inputs = 0;
    for (const ParsedArg& p : args) {
        if (p.is("-o")) output = p.value;
        if (p.input && ++inputs == 1) input = p.value;
    }
    if (output.empty() && inputs == 1) output = default_output(input);
    return depfile_in(argv, args, output);
}

std::string Analysis::depfile() const {
    return depfile_in(command.argv, args, output);
}

namespace {

/// Facts gathered in one pass over the expanded arguments.
struct Facts {
    bool compile = false, preprocess = false, syntax = false, deps_only = false;
    bool assembly = false, emit_llvm = false, save_temps = false, time_trace = false;
    bool side_output = false, split_dwarf = false, rdc = false, new_driver = false,
         via_llvm = false;
    bool hip_link = false;
    bool from_rsp = false; ///< a split-relevant option came from a response file
    enum class Mode { Both, Device, Host } mode = Mode::Both;
    std::string fuse_cuid;
    std::vector<std::pair<std::string, std::string>> inputs; ///< path, language ("" = by name)
    std::vector<std::string> archs;
    bool native = false;
};

void add_archs(Facts& f, const std::string& value, bool remove) {
    for (const std::string& arch : util::split_on(value, ',')) {
        if (remove) {
            if (arch == "all") f.archs.clear();
            std::erase(f.archs, arch);
        } else if (arch == "native") {
            f.native = true;
        } else if (!arch.empty() &&
                   std::find(f.archs.begin(), f.archs.end(), arch) == f.archs.end()) {
            f.archs.push_back(arch);
        }
    }
}

void note_option(Facts& f, const ParsedArg& a, std::string& lang) {
    std::string_view n = a.option->name;
    if (n == "-c")
        f.compile = true;
    else if (n == "-E")
        f.preprocess = true;
    else if (n == "-fsyntax-only")
        f.syntax = true;
    else if (n == "-M" || n == "-MM")
        f.deps_only = true;
    else if (n == "-S")
        f.assembly = true;
    else if (n == "-emit-llvm")
        f.emit_llvm = true;
    else if (n == "-save-temps" || n == "-save-temps=")
        f.save_temps = true;
    else if (n == "-ftime-trace" || n == "-ftime-trace=")
        f.time_trace = true;
    else if (n == "-MJ" || (n == "-o" && a.value == "-")) // a database entry; output on stdout
        f.side_output = true;
    else if (n == "-gsplit-dwarf" || n == "-gsplit-dwarf=")
        f.split_dwarf = a.value != "single" || n == "-gsplit-dwarf";
    else if (n == "-gno-split-dwarf")
        f.split_dwarf = false;
    else if (n == "-fgpu-rdc")
        f.rdc = true;
    else if (n == "-fno-gpu-rdc")
        f.rdc = false;
    else if (n == "--offload-new-driver")
        f.new_driver = true;
    else if (n == "--no-offload-new-driver")
        f.new_driver = false;
    else if (n == "-foffload-via-llvm")
        f.via_llvm = true;
    else if (n == "--offload-device-only" || n == "--cuda-device-only")
        f.mode = Facts::Mode::Device;
    else if (n == "--offload-host-only" || n == "--cuda-host-only")
        f.mode = Facts::Mode::Host;
    else if (n == "--offload-host-device")
        f.mode = Facts::Mode::Both;
    else if (n == "-fuse-cuid=")
        f.fuse_cuid = a.value;
    else if (n == "--hip-link")
        f.hip_link = true;
    else if (n == "-x")
        lang = a.value == "none" ? "" : a.value;
    else if (n == "--offload-arch=" || n == "--cuda-gpu-arch=")
        add_archs(f, a.value, false);
    else if (n == "--no-offload-arch=" || n == "--no-cuda-gpu-arch=")
        add_archs(f, a.value, true);
}

Facts gather(const std::vector<std::string>& argv, const std::vector<ParsedArg>& args,
             const std::vector<bool>& from_rsp) {
    Facts f;
    std::string lang;
    for (const ParsedArg& a : args) {
        if (a.input) {
            f.inputs.emplace_back(a.value, lang);
        } else if (a.option) {
            if ((a.option->flags & kAffectsSplit) && from_rsp[a.index]) f.from_rsp = true;
            note_option(f, a, lang);
        } else if (from_rsp[a.index] && is_wp_depfile(argv[a.index])) {
            f.from_rsp = true; // the plan edits it like -MF
        }
    }
    return f;
}

/// The language the driver gives `path`: "hip", "maybe-hip" (hipcc decides), or other.
std::string language_of(const std::string& path, const std::string& lang, CompilerKind cc) {
    if (!lang.empty()) return lang;
    std::string ext = path.substr(std::min(path.size(), path.rfind('.') + 1));
    if (ext == "hip") return "hip";
    if (cc == CompilerKind::Hipcc) return "maybe-hip";
    return ext.empty() ? "none" : ext;
}

Decision leave(Reason r, std::string text) {
    return Decision{r, std::move(text)};
}

/// The first reason, in the driver's own order of precedence, to leave it alone.
Decision decide(const Facts& f, const Analysis& a) {
    using R = Reason;
    if (a.command.compiler == CompilerKind::Unknown)
        return leave(R::UnknownCompiler, "'" + a.command.argv[0] + "' is not clang or hipcc");
    if (f.preprocess) return leave(R::PreprocessOnly, "-E only preprocesses");
    if (f.syntax) return leave(R::SyntaxOnly, "-fsyntax-only writes no object");
    if (f.deps_only) return leave(R::DepsOnly, "-M/-MM only write dependencies");
    if (f.assembly) return leave(R::AssemblyOnly, "-S writes assembly, not an object");
    if (f.emit_llvm) return leave(R::EmitLlvm, "-emit-llvm writes LLVM IR, not an object");
    if (!f.compile) return leave(R::NoCompile, "no -c: not an object compile");
    if (f.inputs.empty()) return leave(R::NoSource, "no source file");
    if (f.inputs.size() > 1) return leave(R::SeveralSources, "more than one input file");
    std::string lang = language_of(f.inputs[0].first, f.inputs[0].second, a.command.compiler);
    if (lang != "hip" && lang != "maybe-hip")
        return leave(R::NotHip, "'" + f.inputs[0].first + "' is compiled as " + lang + ", not HIP");
    if (f.from_rsp)
        return leave(R::ResponseFile, "an option the split edits is inside a response file");
    // hipcc (a script) decides what to add from the words it sees, not from its
    // response files' words: the steps' own response files would change them.
    if (a.rsp && a.command.compiler == CompilerKind::Hipcc)
        return leave(R::ResponseFile, "hipcc does not read response files itself");
    if (f.save_temps) return leave(R::SaveTemps, "-save-temps keeps the driver's temporaries");
    if (f.time_trace) return leave(R::TimeTrace, "-ftime-trace writes one trace per job");
    if (f.side_output) return leave(R::SideOutput, "-MJ or -o - cannot be split");
    // Each job's .dwo is named after the driver's files and its name is in the object.
    if (f.split_dwarf)
        return leave(R::SideOutput, "-gsplit-dwarf names each job's .dwo file in its object");
    if (f.mode == Facts::Mode::Device) return leave(R::DeviceOnly, "already a device-only compile");
    if (f.mode == Facts::Mode::Host) return leave(R::HostOnly, "already a host-only compile");
    // --offload-new-driver is not a reason by itself: clang 19 runs the old
    // driver's jobs for it without -fgpu-rdc. The probe decides.
    if (f.via_llvm) return leave(R::NewDriver, "-foffload-via-llvm selects the new offload driver");
    if (f.native) return leave(R::NativeArch, "--offload-arch=native depends on the GPU present");
    if (f.archs.empty())
        return leave(R::NoArch, "no --offload-arch: the driver picks the architecture");
    if (f.archs.size() < 2)
        return leave(R::SingleArch, "one architecture (" + f.archs[0] + "): nothing to split");
    return Decision{R::Split, std::to_string(f.archs.size()) + " architectures"};
}

/// Fills the facts read from the original argv; `args` is its parse (a.args is moved from it).
void fill_from_original(Analysis& a, std::vector<ParsedArg> args) {
    a.args = std::move(args);
    for (const ParsedArg& p : a.args) {
        if (p.is("-o")) {
            a.output = p.value;
            a.explicit_output = true;
        } else if (p.is("-MD") || p.is("-MMD") ||
                   (!p.option && !p.input && is_wp_depfile(a.command.argv[p.index]))) {
            a.writes_depfile = true;
        } else if (p.is("-cuid=")) {
            a.cuid = p.value;
        }
    }
    if (!a.explicit_output && !a.source.empty()) a.output = default_output(a.source);
}

} // namespace

Analysis analyze(CompileCommand command, const AnalyzeInput& in) {
    Analysis a;
    a.command = std::move(command);
    a.base_dir = in.base_dir;
    Expanded ex = expand_rsp(a.command.argv, {a.work_dir(), in.rspfile, in.rspfile_content});
    a.expanded = ex.argv;
    if (ex.nested) {
        a.decision = leave(Reason::ResponseFile, "a response file names another response file");
        return a;
    }
    if (!ex.unreadable.empty()) {
        a.decision = leave(Reason::ResponseFile, "cannot read a response file: " + ex.unreadable);
        return a;
    }
    if (ex.argv != a.command.argv) {
        // The plan works on every argument: the expanded command is the command.
        a.command.argv = ex.argv;
        a.rsp = true;
        ex.from_rsp.assign(ex.argv.size(), false);
    }
    std::vector<ParsedArg> args = parse_args(ex.argv);
    Facts f = gather(ex.argv, args, ex.from_rsp);
    a.archs = f.archs;
    a.cuid_none = f.fuse_cuid == "none";
    if (f.inputs.size() == 1) a.source = f.inputs[0].first;
    // Without response files the expanded argv is the original: parse it once.
    fill_from_original(a, ex.argv == a.command.argv ? std::move(args) : parse_args(a.command.argv));
    a.decision = decide(f, a);
    return a;
}

Analysis analyze_string(std::string_view command, const AnalyzeInput& in) {
    Recognised r = recognise(command);
    if (!r.command) {
        Analysis a;
        a.base_dir = in.base_dir;
        a.decision = leave(Reason::NotSimple, r.reason);
        return a;
    }
    return analyze(std::move(*r.command), in);
}

namespace {

/// A target ID with its features sorted ("gfx90a:xnack+:sramecc-" ->
/// "gfx90a:sramecc-:xnack+"), as clang canonicalises it.
std::string canonical_target_id(const std::string& id) {
    std::vector<std::string> parts = util::split_on(id, ':');
    std::sort(parts.begin() + 1, parts.end());
    std::string out = parts[0];
    for (size_t i = 1; i < parts.size(); ++i)
        out += ":" + parts[i];
    return out;
}

} // namespace

std::vector<std::string> arch_set(const std::vector<std::string>& archs) {
    std::vector<std::string> out;
    for (const std::string& a : archs)
        out.push_back(canonical_target_id(a));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

LinkAnalysis analyze_link_string(std::string_view command, const AnalyzeInput& in) {
    using R = Reason;
    LinkAnalysis a;
    a.base_dir = in.base_dir;
    Recognised rec = recognise(command);
    if (!rec.command) {
        a.decision = leave(R::NotSimple, rec.reason);
        return a;
    }
    a.command = std::move(*rec.command);
    if (a.command.compiler == CompilerKind::Unknown) {
        a.decision = leave(R::UnknownCompiler, "'" + a.command.argv[0] + "' is not clang or hipcc");
        return a;
    }
    a.args = parse_args(a.command.argv);
    Facts f = gather(a.command.argv, a.args, std::vector<bool>(a.command.argv.size(), false));
    a.output = "a.out";
    for (const ParsedArg& p : a.args)
        if (p.option && p.is("-o")) a.output = p.value;
    a.archs = f.archs;
    if (f.compile || f.preprocess || f.syntax || f.assembly || f.deps_only)
        a.decision = leave(R::NoCompile, "not a link");
    else if (!f.rdc || (!f.hip_link && a.command.compiler != CompilerKind::Hipcc))
        a.decision = leave(R::LinkNotRdc, "not an RDC HIP link (-fgpu-rdc --hip-link)");
    else if (!a.command.launcher.empty())
        a.decision = leave(R::LinkUnmodelled, "a launcher in front of the link");
    else if (f.save_temps)
        a.decision = leave(R::SaveTemps, "-save-temps keeps the driver's temporaries");
    else if (f.time_trace)
        a.decision = leave(R::TimeTrace, "-ftime-trace writes one trace per job");
    else if (f.via_llvm)
        a.decision = leave(R::NewDriver, "-foffload-via-llvm selects the new offload driver");
    else if (f.native)
        a.decision = leave(R::NativeArch, "--offload-arch=native depends on the GPU present");
    else if (f.archs.size() < 2)
        a.decision = leave(R::SingleArch, "fewer than two architectures: nothing to split");
    else
        a.decision = Decision{R::Split, std::to_string(f.archs.size()) + " architectures"};
    return a;
}

} // namespace phc::compile
