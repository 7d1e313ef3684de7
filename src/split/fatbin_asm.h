// The fat binary's object of an old-driver RDC link of clang 19 and later. The
// driver writes the assembly that llvm-mc (clang 22: `clang -x assembler`)
// turns into that object from the link's inputs: one `__hip_fatbin_<id>` and
// `__hip_gpubin_handle_<id>` for every such symbol the host objects (and, for
// later drivers, the static libraries) leave undefined, the first defined,
// the others aliases of it. That depends on the inputs' contents, which do not
// exist when a build is planned, so the split decides it when the link runs:
// `phc-ninja fatbin-asm` asks the driver itself (`-### -fhip-dump-offload-
// linker-script`, which prints the assembly and runs nothing), checks every
// line against the shapes the driver writes, and names the split's fat binary
// in its `.incbin`.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::split {

/// The assembly in `driver_output` (what the driver printed for `-###
/// -fhip-dump-offload-linker-script`) with `hipfb` as the file it embeds. An
/// Error when there is none, a line is not of a shape the driver writes, or
/// it embeds more than one file.
Result<std::string> fatbin_assembly_from(std::string_view driver_output, const std::string& hipfb);

/// `phc-ninja fatbin-asm --fatbin HIPFB -o OUT -- LINK...`: runs the link
/// command LINK (the compiler and its arguments) as `-###` with the dump, in
/// the current directory with a private TMPDIR, and writes the assembly to OUT.
int fatbin_asm_main(int argc, char** argv);

} // namespace phc::split
