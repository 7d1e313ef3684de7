// A reader of ELF64 little-endian object files: the section headers, a
// section's bytes, and which sections' relocations point into a section.
// Just what the embed step's guard and `phc-ninja check`'s "first differing
// section" need; it writes one kind of ELF file only, an object of one
// section (only_section).
//
// The format (System V gABI; `man 5 elf`): a 64-byte header (e_shoff at 40,
// e_shentsize at 58, e_shnum at 60, e_shstrndx at 62), section headers of
// e_shentsize bytes (name, type, flags, addr, offset, size, link, info,
// addralign, entsize), names in the section e_shstrndx. A SHT_RELA section
// (entries of 24 bytes: offset, info = symbol << 32 | type, addend) or
// SHT_REL section (16 bytes) relocates section `info` against the symbol
// table `link` (entries of 24 bytes: name, info, other, shndx, value, size);
// shndx SHN_XINDEX (0xffff) means the index is in the SHT_SYMTAB_SHNDX
// section that links to that table. An e_shnum of 0 with sections means
// the count is in section 0's size, an e_shstrndx of SHN_XINDEX its link.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace phc::util::elf {

/// The little-endian unsigned T at `at` of `b` (the caller checked the bounds).
template <typename T> T read_le(std::string_view b, uint64_t at) {
    T v = 0;
    for (size_t i = sizeof(T); i-- > 0;)
        v = static_cast<T>((v << 8) | static_cast<unsigned char>(b[at + i]));
    return v;
}

/// One section header.
struct Section {
    std::string name;
    uint32_t type = 0; ///< SHT_*: 4 RELA, 9 REL, 2 SYMTAB, 8 NOBITS, 18 SYMTAB_SHNDX
    uint64_t offset = 0, size = 0;
    uint32_t link = 0, info = 0;
    uint64_t entsize = 0;
};

/// A parsed object: views into `bytes`, which the caller keeps alive.
struct Object {
    std::string_view bytes;
    std::vector<Section> sections;

    /// The index of the first section named `name`, or -1.
    int find(std::string_view name) const;
    /// A section's bytes in the file (empty for NOBITS).
    std::string_view contents(const Section& s) const;
    /// The index of the section whose bytes hold file offset `off`, or -1.
    int section_at(uint64_t off) const;
};

/// Parses the header and section headers of `bytes`. An Error ("not an ELF
/// file", "section 3 lies outside the file", ...) for anything else or
/// anything cut short.
Result<Object> parse(std::string_view bytes);

/// A relocation whose symbol is defined in a given section.
struct Reference {
    int from = 0;        ///< the section the relocation patches (its RELA/REL section's info)
    uint64_t offset = 0; ///< where in that section
};

/// Every relocation, of every REL and RELA section, whose symbol is defined in
/// section `target` (its section symbol or any other). An Error when a
/// relocation or symbol table is malformed.
Result<std::vector<Reference>> references_to(const Object& o, int target);

/// The names of the object's FILE symbols (STT_FILE: the source it was
/// compiled from, as the compiler names it), in symbol-table order. An Error
/// when a symbol table or its names are malformed.
Result<std::vector<std::string>> file_symbols(const Object& o);

/// Where `after`, a copy of `before` whose section `replaced` was given other
/// bytes (objcopy --update-section), differs from it in anything else, in
/// words ("section .llvm_addrsig's sh_link is 0, the original's 18"); "" when
/// nothing else differs. Compared: every field of the ELF header and of every
/// section header, every section's bytes, the bytes between them. Allowed to
/// differ: `replaced`'s bytes and sh_size, and what its new size moves: the
/// sh_offset of each section laid out after it and e_shoff, each at the next
/// offset its alignment allows (elf.cpp says why), and the zero padding
/// before them. An object with program headers is refused (not relocatable).
std::string difference_outside(const Object& before, const Object& after, int replaced);

/// The header's e_machine (224: AMDGPU) and e_flags (for AMDGPU, the
/// architecture in its low byte, EF_AMDGPU_MACH) of a parsed object.
uint16_t machine(const Object& o);
uint32_t flags(const Object& o);

/// The names of the object's defined symbols (section index not 0), in
/// symbol-table order. An Error when a symbol table or its names are malformed.
Result<std::vector<std::string>> defined_symbols(const Object& o);

/// Where the object `split` first differs from `reference`, in words: "" when
/// equal, else "first difference in section .text at offset 0x1a (file offset
/// 0x5a)" (or in the ELF header, outside every section, at a byte of a file
/// that is no ELF object), and both sizes when they differ.
std::string first_difference(std::string_view split, std::string_view reference);

/// A relocatable object of the section `index` of `o` alone, holding
/// `contents`: `o`'s ELF header (identification, machine, flags) and that
/// section's header (type, flags, alignment, ...) but for its name, offset and
/// size, and a section name table. What a reader of that one section (clang-
/// linker-wrapper's of `.llvm.offloading`) sees as it would in `o`.
std::string only_section(const Object& o, int index, std::string_view contents);

} // namespace phc::util::elf
