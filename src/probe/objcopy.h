// The object copier that joins an overlapped host compile's object with its
// device code (`--overlap-host`): one that rewrites `.hip_fatbin` and keeps
// every other byte and header field as the compiler wrote it, so the object
// is the driver's own. Which copiers do is found out, not assumed from their
// versions: each candidate, newest first, updates the section of a small
// object made here (laid out as LLVM's assembler lays out a host object, with
// an `.llvm_addrsig` linked to its symbol table), and the result must pass
// the embed step's own comparison (util::elf::difference_outside). Seen here:
// llvm-objcopy 19 and 22 keep the bytes; 14 and 15 clear `.llvm_addrsig`'s
// sh_link; GNU objcopy moves sections.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::probe {

/// The objcopy to use, found once per process: `PHC_OBJCOPY` when set, else
/// the llvm-objcopy with the highest LLVM version among PATH's `llvm-objcopy`
/// and `llvm-objcopy-N` and /usr/lib/llvm-N/bin/llvm-objcopy, then PATH's
/// `objcopy`: the first that keeps_bytes(). "" when none does (or none is
/// found): --overlap-host is then not used, for objcopy_refusal().
const std::string& objcopy();

/// Why objcopy() is "" ("no objcopy found", "llvm-objcopy-15 changes more
/// than the section: ..."), in words for regen's and gen's reports; "" when
/// it names one.
const std::string& objcopy_refusal();

/// "" when `program` replaces a section of a small object and keeps every
/// other byte and header field (but what the section's size moves), else
/// what it changed. Runs it once, in a scratch folder under TMPDIR.
std::string keeps_bytes(const std::string& program);

/// The object keeps_bytes() gives the copier, with `fatbin` in its section
/// kProbeFatbin (.hip_fatbin): with other bytes there, it is what a copier
/// that keeps the rest writes (the tests use that).
std::string probe_object(std::string_view fatbin = "phc-ninja objcopy probe\n");
constexpr int kProbeFatbin = 3;

/// The LLVM major version an `llvm-objcopy --version` text names, or 0.
int llvm_major_version(const std::string& version_text);

} // namespace phc::probe
