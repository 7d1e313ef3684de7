// The object copier that joins an overlapped host compile's object with its
// device code (`--overlap-host`): the newest llvm-objcopy on this machine,
// which rewrites an object's section in place of the compiler's own and keeps
// every other byte as the compiler wrote it (llvm-objcopy 15 loses the link of
// .llvm_addrsig; 22 does not). GNU objcopy when there is no llvm-objcopy.
#pragma once

#include <string>

namespace phc::probe {

/// The objcopy to use, found once per process: the llvm-objcopy with the highest
/// LLVM version among PATH's `llvm-objcopy` and `llvm-objcopy-N` and
/// /usr/lib/llvm-N/bin/llvm-objcopy, else PATH's `objcopy`; "" when none.
const std::string& objcopy();

/// The LLVM major version an `llvm-objcopy --version` text names, or 0.
int llvm_major_version(const std::string& version_text);

} // namespace phc::probe
