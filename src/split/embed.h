// The embed step of `--overlap-host` (`phc-ninja embed`): the object the
// driver would have written, made from the host compile that ran beside the
// device compiles and the bundle of their device code.
//
// That host compile embedded a placeholder where the driver embeds the bundle
// (`-Xclang -fcuda-include-gpubinary -Xclang <placeholder>`): the source file
// itself. clang makes the embedded file a constant string in `.hip_fatbin`
// and, before clang 19, shares one constant among equal strings: an empty
// placeholder (/dev/null) was the constant of every `""` of the program, which
// then pointed into the device code. No string literal equals the whole file
// that holds it, so nothing shares the source's bytes; the guard below makes
// sure of it for every object anyway.
//
// embed() checks, then writes:
// - no `.hip_fatbin` (a source without kernels or device variables registers
//   nothing): the host object is the driver's object; it is copied;
// - else the section must hold exactly the placeholder, then nothing or the
//   one NUL clang 15 adds; and no relocation outside `.hipFatBinSegment` (the
//   fat-binary wrapper) may point into it. Anything else is an error naming
//   the object, and nothing is written: a wrong object never comes out;
//   An object with two such sections, relocations that patch it, or
//   relocations of a kind the guard does not read (CREL) is refused too;
// - the section's bytes become the bundle's and that tail (objcopy
//   --update-section), and the result replaces the output atomically once
//   checked again: the same references, and every header field and every
//   byte outside .hip_fatbin as the compiler wrote them, but for what the
//   section's new size moves (util::elf::difference_outside). llvm-objcopy 15
//   clears .llvm_addrsig's sh_link, GNU objcopy moves sections: the step then
//   fails (probe/objcopy.h picks none of them to begin with).
#pragma once

#include "util/elf.h"
#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::split {

/// The files of one embed step.
struct EmbedFiles {
    std::string host_object; ///< the overlapped host compile's object
    std::string placeholder; ///< the file it embedded (the source)
    std::string bundle;      ///< the device code to put in
    std::string output;      ///< the object to write
    std::string objcopy;     ///< llvm-objcopy (probe/objcopy.h)
};

/// What the host object's `.hip_fatbin` holds after the placeholder (the
/// compiler's tail: "" or "\0"), or nullopt-like `none` when it has no such
/// section; an Error when the section or a reference into it is not what an
/// embed may replace.
struct FatbinTail {
    bool present = false;
    std::string tail;
};
Result<FatbinTail> fatbin_tail(const util::elf::Object& host, std::string_view placeholder);

/// Writes `f.output` from the host object and the bundle, as above.
Status embed(const EmbedFiles& f);

/// `phc-ninja embed --objcopy OC --placeholder FILE --bundle FILE --host FILE -o OUT`.
int embed_main(int argc, char** argv);

} // namespace phc::split
