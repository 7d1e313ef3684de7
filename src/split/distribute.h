// Device compiles sent to an icecream (icecc) or distcc farm. Neither engine
// distributes `-x hip`, so a distributed device compile is two steps per
// architecture (docs/distributed.md): a local preprocess step writing the
// bundled device source (`-E --gpu-bundle-output`) and its depfile, and a
// compile of that file (`-xhip-cpp-output`) that the engine may send away.
//
// The trap: an *unbundled* preprocessed file compiled as hip-cpp-output exits
// 0 and writes a code object without kernels. `phc-ninja device-ii` runs both
// steps and refuses any file that does not hold the architecture's device
// section: the preprocess step removes its output, the compile step never
// starts the engine.
#pragma once

#include "compile/command.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

/// The distribution engine of the device compiles.
enum class Engine { None, Icecc, Distcc };

/// "none", "icecc", "distcc".
std::string_view engine_name(Engine e);

/// The engine a name means ("icecc", "distcc", "none"); nullopt for others.
std::optional<Engine> engine_from_name(std::string_view name);

/// The engine a compile's launcher already is (icecc, distcc), else None.
Engine engine_of(const compile::CompileCommand& c);

/// The first line of a text bundle's section for `entry` ("// __CLANG_OFFLOAD_BUNDLE____START__ ").
inline constexpr std::string_view kSectionStart = "// __CLANG_OFFLOAD_BUNDLE____START__ ";
/// The last line's start.
inline constexpr std::string_view kSectionEnd = "// __CLANG_OFFLOAD_BUNDLE____END__ ";

/// True when the text bundle `text` holds a complete device section for the
/// target ID `arch` (an entry "hip-amdgcn-amd-amdhsa-<arch>" or
/// "hipv4-amdgcn-amd-amdhsa--<arch>", its START and END lines).
bool has_device_section(std::string_view text, std::string_view arch);

/// True when `text` holds a host section ("host-..." entry).
bool has_host_section(std::string_view text);

/// The host section clang-15's unbundler needs in a device-only text bundle
/// (an *empty* one makes clang-offload-bundler 15 crash): one empty line, for
/// the host `triple` ("x86_64-pc-linux-gnu"). clang-19 needs none; it does no harm.
std::string host_stub(std::string_view triple);

/// What a compile of a preprocessed file would read differently from the
/// compile of its source. clang -E leaves a pragma's words as written (only
/// `#pragma omp` is expanded), but a pragma's handler expands the macros among
/// them when the source is compiled: `#define PK 1` / `#pragma pack(PK)` packs
/// a struct there, and a compile of the preprocessed file, where PK is no
/// macro, ignores the pragma with a warning: another layout, another object.
/// The preprocess step runs with -dD, so its output holds every #define; the
/// file is safe when no pragma names an identifier that is a macro anywhere in
/// it (and no directive other than line markers and pragmas remains).
struct Screened {
    std::string text;   ///< the file to compile: the -dD output, #define and #undef lines blanked
    std::string unsafe; ///< why the file must not be compiled, or "" (safe)
};
/// Screens `dd_text`, the -E -dD output of a preprocess step named `path`.
Screened screen_preprocessed(std::string_view dd_text, std::string_view path);

/// The first line of a preprocessed file that must not be compiled: the
/// compile step then runs the local compile of the source (`--local`).
inline constexpr std::string_view kCompileLocally = "// phc-ninja: compile the source locally: ";

/// The kernels the device code of the preprocessed file `text` defines, by
/// name: each `__attribute__((global))` function with a body that is no
/// template (a template's kernels exist only as instantiated). A cheap local
/// account of what the object of its device compile must hold.
std::vector<std::string> defined_kernels(std::string_view text);

/// What a device object compiled elsewhere (a farm) must be to be used.
struct DeviceObjectWant {
    std::string arch;                 ///< the target ID asked for ("gfx90a:xnack+")
    std::string compiler;             ///< the local compiler's version line, "" to skip
    std::vector<std::string> kernels; ///< the kernels the source defines (defined_kernels)
};

/// Why the device object `bytes` must not be used for `want`, or "": it must
/// be an AMDGPU ELF object of the asked architecture (e_flags; target IDs
/// this does not know are not compared), made by the local compiler (its
/// .comment holds the version line), defining a kernel descriptor
/// (`<name>.kd`) for each of the kernels, as mangled names hold them. LLVM
/// bitcode (RDC, the new driver) must name the local compiler and each kernel
/// (its architecture is not checked).
std::string device_object_problem(std::string_view bytes, const DeviceObjectWant& want);

/// `phc-ninja device-ii`: the two steps of a distributed device compile.
///   --arch A --output P [--host-triple T] -- COMPILER... : preprocess, check
///     that P holds A's device section (else remove it and fail), screen it
///     (screen_preprocessed), add the host stub;
///   --arch A --input P [--local CMD] -- [ENGINE] COMPILER... : check P, then
///     run the compile and check the object it wrote (device_object_problem:
///     what a farm sends back), else run CMD (a shell-quoted command: the
///     device compile of the source) with a warning; a file the screen
///     refused runs CMD instead of the compile.
int device_ii_main(int argc, char** argv);

/// `phc-ninja icecc-env -- COMPILER [FLAGS...]`: the environment tarball for
/// icecc's remote daemons (icecc_env.cpp); prints the ICECC_VERSION to set.
int icecc_env_main(int argc, char** argv);

} // namespace phc::split
