// HIP job analysis: is this compile a multi-architecture HIP object compile
// that phc-ninja may split, and if not, why not. The command line decides what
// it can; the driver probe (probe/probe.h) confirms the rest.
#pragma once

#include "compile/command.h"
#include "compile/options.h"
#include "compile/rspfile.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::compile {

/// Why a compile is split or left alone. Codes (reason_code) are stable for scripts.
enum class Reason {
    Split,           ///< split: a multi-arch, old-driver, non-RDC HIP object compile
    NotSimple,       ///< shell structure we do not model
    UnknownCompiler, ///< argv[0] is not clang or hipcc
    NoCompile,       ///< no -c: a link or a full build
    PreprocessOnly,  ///< -E
    SyntaxOnly,      ///< -fsyntax-only
    DepsOnly,        ///< -M or -MM
    AssemblyOnly,    ///< -S
    EmitLlvm,        ///< -emit-llvm
    NoSource,        ///< no input file
    SeveralSources,  ///< more than one input file
    NotHip,          ///< the source is not compiled as HIP
    ResponseFile,    ///< an option the plan edits is inside a response file
    SaveTemps,       ///< -save-temps: the driver's temporaries are outputs
    TimeTrace,       ///< -ftime-trace: per-job trace files
    SideOutput,      ///< -MJ or -o - : outputs the steps cannot reproduce
    DeviceOnly,      ///< already --offload-device-only
    HostOnly,        ///< already --offload-host-only
    Rdc,             ///< -fgpu-rdc
    NewDriver,       ///< the new offload driver is in effect
    NoArch,          ///< no --offload-arch: the driver picks (hipcc asks the GPU)
    NativeArch,      ///< --offload-arch=native
    SingleArch,      ///< fewer than two distinct architectures
    ArchMismatch,    ///< the driver's architectures differ from the command line's
    LinkNotRdc,      ///< a link without -fgpu-rdc: the driver generates no device code
    LinkUnmodelled,  ///< the driver's RDC link runs jobs (or files) the split does not model
    NotSelected,     ///< the user's --only / --skip leave the object out
    JobsDiffer,      ///< the split's own driver jobs are not the original's (split/guard.h)
};

/// The stable machine-readable code of a reason, e.g. "single-arch".
std::string_view reason_code(Reason r);

/// The outcome: split or left alone, with a one-line human explanation.
struct Decision {
    Reason reason = Reason::Split;
    std::string text;

    bool split() const { return reason == Reason::Split; }
};

/// Where a command runs and what its response files hold.
struct AnalyzeInput {
    std::string base_dir;        ///< directory the command string runs in ("" = current)
    std::string rspfile;         ///< ninja rspfile name, if the rule has one
    std::string rspfile_content; ///< ninja rspfile_content
};

/// What the command line says about one compile.
struct Analysis {
    CompileCommand command;
    std::string base_dir;              ///< as given in AnalyzeInput
    std::vector<std::string> expanded; ///< command.argv with response files expanded
    std::vector<ParsedArg> args;       ///< command.argv classified (the plan edits these)
    std::string source;                ///< the one input, as written
    std::string output;                ///< -o value, or the driver's default name
    bool explicit_output = false;      ///< output came from -o
    std::vector<std::string> archs;    ///< distinct architectures, in command order
    bool writes_depfile = false;       ///< -MD, -MMD, -Wp,-MD,FILE or -Wp,-MMD,FILE
    std::string cuid;                  ///< value of an explicit -cuid=
    bool cuid_none = false;            ///< -fuse-cuid=none without -cuid=
    /// The command read its arguments from response files (`@file`): command.argv
    /// holds them expanded, and the steps should read theirs from files too.
    bool rsp = false;
    Decision decision;

    /// The directory the compiler runs in: base_dir, then the command's `cd`.
    std::string work_dir() const;

    /// The depfile the command writes (see depfile_of), or "".
    std::string depfile() const;
};

/// The make-style depfile a compile with arguments `argv` writes, spelled as in
/// the command (relative to its directory), or "" when it writes none. The one
/// rule that split, regen and gen share, as clang and gcc decide: -MD/-MMD (also
/// spelled -Wp,-MD,FILE or -Wp,-MMD,FILE) write one, named by the last -MF or
/// -Wp FILE, else by the object (-o, or the source's base name) with its
/// extension replaced by ".d".
std::string depfile_of(const std::vector<std::string>& argv);

/// True when `word` is -Wp,-MD or -Wp,-MMD, with or without ",FILE"; `file`
/// (when given) gets FILE, or "" when the driver takes no file from it.
bool is_wp_depfile(std::string_view word, std::string* file = nullptr);

/// What the command line says about one link (a driver run without -c).
struct LinkAnalysis {
    CompileCommand command;
    std::string base_dir;           ///< as given in AnalyzeInput
    std::vector<ParsedArg> args;    ///< command.argv classified
    std::string output;             ///< -o value, or "a.out"
    std::vector<std::string> archs; ///< distinct architectures, in command order
    Decision decision;              ///< Split: an RDC HIP link worth splitting

    /// The directory the linker runs in: base_dir, then the command's `cd`.
    std::string work_dir() const;
};

/// Analyses a link command string: Split when it is an RDC HIP link (-fgpu-rdc
/// with --hip-link, or through hipcc) for two or more architectures, with
/// nothing the split cannot reproduce (-save-temps, -foffload-via-llvm).
LinkAnalysis analyze_link_string(std::string_view command, const AnalyzeInput& in);

/// Analyses a recognised command from its command line alone.
Analysis analyze(CompileCommand command, const AnalyzeInput& in);

/// Analyses a command string; an unrecognised one gets Reason::NotSimple or UnknownCompiler.
Analysis analyze_string(std::string_view command, const AnalyzeInput& in);

/// The architectures as a sorted list of distinct canonical target IDs
/// (features sorted, as clang canonicalises them: "gfx90a:xnack+:sramecc-" ->
/// "gfx90a:sramecc-:xnack+"): two lists name the same targets when these agree.
std::vector<std::string> arch_set(const std::vector<std::string>& archs);

} // namespace phc::compile
