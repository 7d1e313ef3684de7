#include "util/elf.h"

#include <algorithm>
#include <fmt/format.h>

namespace phc::util::elf {

namespace {

constexpr uint32_t kRela = 4, kRel = 9, kSymtabShndx = 18, kNobits = 8;
constexpr uint32_t kXindex = 0xffff;

bool fits(std::string_view b, uint64_t off, uint64_t size) {
    return off <= b.size() && size <= b.size() - off;
}

Error bad(std::string what) {
    return make_error("malformed ELF object: " + std::move(what));
}

Section header(std::string_view b, uint64_t at) {
    Section s;
    s.type = read_le<uint32_t>(b, at + 4);
    s.offset = read_le<uint64_t>(b, at + 24);
    s.size = read_le<uint64_t>(b, at + 32);
    s.link = read_le<uint32_t>(b, at + 40);
    s.info = read_le<uint32_t>(b, at + 44);
    s.entsize = read_le<uint64_t>(b, at + 56);
    return s;
}

/// The section a symbol of table `symtab` is defined in, or -1 (undefined,
/// absolute, common).
Result<int> symbol_section(const Object& o, int symtab, uint64_t sym) {
    const Section& t = o.sections[static_cast<size_t>(symtab)];
    if (t.type == kNobits || !fits(o.bytes, t.offset, t.size) || sym >= t.size / 24)
        return bad(fmt::format("symbol {} is outside its table", sym));
    uint32_t shndx = read_le<uint16_t>(o.bytes, t.offset + sym * 24 + 6);
    if (shndx == kXindex) {
        for (const Section& x : o.sections)
            if (x.type == kSymtabShndx && x.link == static_cast<uint32_t>(symtab)) {
                if (!fits(o.bytes, x.offset, x.size) || sym >= x.size / 4)
                    return bad("the extended section index table is too short");
                shndx = read_le<uint32_t>(o.bytes, x.offset + sym * 4);
                return static_cast<int>(shndx);
            }
        return bad("a symbol names an extended section index but there is no table");
    }
    if (shndx == 0 || shndx >= 0xff00) return -1;
    return static_cast<int>(shndx);
}

/// "section .text at offset 0x1a (file offset 0x5a)" for file offset `at` of `bytes`.
std::string place(std::string_view bytes, uint64_t at) {
    auto o = parse(bytes);
    if (!o) return fmt::format("byte {:#x}", at);
    if (at < 64) return fmt::format("the ELF header (byte {:#x})", at);
    if (int s = o->section_at(at); s >= 0) {
        const Section& sec = o->sections[static_cast<size_t>(s)];
        return fmt::format("section {} at offset {:#x} (file offset {:#x})", sec.name,
                           at - sec.offset, at);
    }
    return fmt::format("file offset {:#x}, outside every section (headers or padding)", at);
}

} // namespace

int Object::find(std::string_view name) const {
    for (size_t i = 0; i < sections.size(); ++i)
        if (sections[i].name == name) return static_cast<int>(i);
    return -1;
}

std::string_view Object::contents(const Section& s) const {
    if (s.type == kNobits) return {};
    return bytes.substr(s.offset, s.size);
}

int Object::section_at(uint64_t off) const {
    for (size_t i = 1; i < sections.size(); ++i) {
        const Section& s = sections[i];
        if (s.type != kNobits && off >= s.offset && off - s.offset < s.size)
            return static_cast<int>(i);
    }
    return -1;
}

Result<Object> parse(std::string_view b) {
    if (b.size() < 64 || b.substr(0, 4) != "\x7f"
                                           "ELF")
        return make_error("not an ELF file");
    if (b[4] != 2 || b[5] != 1) return make_error("not a 64-bit little-endian ELF file");
    const uint64_t shoff = read_le<uint64_t>(b, 40);
    const uint16_t shentsize = read_le<uint16_t>(b, 58);
    uint64_t shnum = read_le<uint16_t>(b, 60);
    uint32_t shstrndx = read_le<uint16_t>(b, 62);
    if (shoff == 0) return Object{b, {}};
    if (shentsize < 64) return bad("section headers are too small");
    if (!fits(b, shoff, shentsize)) return bad("the section headers lie outside the file");
    const Section first = header(b, shoff);
    if (shnum == 0) shnum = first.size;
    if (shstrndx == kXindex) shstrndx = first.link;
    if (shnum > b.size() / shentsize || !fits(b, shoff, shnum * shentsize))
        return bad("the section headers lie outside the file");
    Object o{b, {}};
    o.sections.reserve(shnum);
    for (uint64_t i = 0; i < shnum; ++i) {
        o.sections.push_back(header(b, shoff + i * shentsize));
        const Section& s = o.sections.back();
        if (s.type != kNobits && !fits(b, s.offset, s.size))
            return bad(fmt::format("section {} lies outside the file", i));
    }
    if (shstrndx >= shnum) return bad("the section name table is missing");
    std::string_view names = o.contents(o.sections[shstrndx]);
    for (uint64_t i = 0; i < shnum; ++i) {
        uint32_t at = read_le<uint32_t>(b, shoff + i * shentsize);
        if (at >= names.size() && !(at == 0 && names.empty()))
            return bad(fmt::format("section {} has no name", i));
        if (at < names.size()) {
            std::string_view n = names.substr(at);
            o.sections[i].name = std::string(n.substr(0, n.find('\0')));
        }
    }
    return o;
}

Result<std::vector<Reference>> references_to(const Object& o, int target) {
    std::vector<Reference> out;
    for (const Section& r : o.sections) {
        if (r.type != kRela && r.type != kRel) continue;
        const uint64_t entry = r.type == kRela ? 24 : 16;
        if (r.link == 0 || r.link >= o.sections.size())
            return bad("a relocation section names no symbol table");
        for (uint64_t at = 0; at + entry <= r.size; at += entry) {
            const uint64_t info = read_le<uint64_t>(o.bytes, r.offset + at + 8);
            const uint64_t sym = info >> 32;
            if (sym == 0) continue;
            auto in = symbol_section(o, static_cast<int>(r.link), sym);
            if (!in) return in.error();
            if (*in == target)
                out.push_back(
                    {static_cast<int>(r.info), read_le<uint64_t>(o.bytes, r.offset + at)});
        }
    }
    return out;
}

namespace {

/// The names of the symbols `keep(info, shndx)` accepts, in symbol-table order.
template <typename Keep> Result<std::vector<std::string>> symbols(const Object& o, Keep keep) {
    constexpr uint32_t kSymtab = 2;
    constexpr uint64_t kEntry = 24; // Elf64_Sym
    std::vector<std::string> out;
    for (const Section& t : o.sections) {
        if (t.type != kSymtab) continue;
        if (t.link == 0 || t.link >= o.sections.size())
            return bad("a symbol table names no string table");
        const std::string_view names = o.contents(o.sections[t.link]);
        for (uint64_t at = 0; at + kEntry <= t.size; at += kEntry) {
            const auto info = read_le<uint8_t>(o.bytes, t.offset + at + 4);
            const auto shndx = read_le<uint16_t>(o.bytes, t.offset + at + 6);
            if (!keep(info, shndx)) continue;
            const auto name = read_le<uint32_t>(o.bytes, t.offset + at);
            if (name >= names.size()) return bad("a symbol's name lies outside its string table");
            std::string_view n = names.substr(name);
            out.emplace_back(n.substr(0, n.find('\0')));
        }
    }
    return out;
}

} // namespace

Result<std::vector<std::string>> file_symbols(const Object& o) {
    return symbols(o, [](uint8_t info, uint16_t) { return (info & 0xf) == 4; }); // STT_FILE
}

Result<std::vector<std::string>> defined_symbols(const Object& o) {
    return symbols(o, [](uint8_t, uint16_t shndx) { return shndx != 0; });
}

uint16_t machine(const Object& o) {
    return read_le<uint16_t>(o.bytes, 18);
}

uint32_t flags(const Object& o) {
    return read_le<uint32_t>(o.bytes, 48);
}

namespace {

/// The first section, in the order of `a`'s headers, whose bytes differ from
/// the section of that name in `b` (or that `b` lacks, or that only `b` has).
std::string section_difference(const Object& a, const Object& b) {
    // The k-th section of a name against the other's k-th (.group, .text.* repeat).
    auto nth = [](const Object& o, size_t i) {
        size_t k = 0;
        for (size_t j = 0; j < i; ++j)
            k += o.sections[j].name == o.sections[i].name;
        return k;
    };
    auto find_nth = [](const Object& o, const std::string& name, size_t k) -> int {
        for (size_t j = 0; j < o.sections.size(); ++j)
            if (o.sections[j].name == name && k-- == 0) return static_cast<int>(j);
        return -1;
    };
    for (size_t i = 0; i < a.sections.size(); ++i) {
        const Section& s = a.sections[i];
        const int other = find_nth(b, s.name, nth(a, i));
        if (other < 0)
            return fmt::format("section {} ({} bytes): the driver's object has none", s.name,
                               s.size);
        const Section& t = b.sections[static_cast<size_t>(other)];
        std::string_view x = a.contents(s), y = b.contents(t);
        if (x == y && s.size == t.size) continue;
        size_t k = 0;
        while (k < x.size() && k < y.size() && x[k] == y[k])
            ++k;
        std::string out = fmt::format("first difference in section {} at offset {:#x}", s.name, k);
        if (s.size != t.size) out += fmt::format(" ({} bytes, the driver's {})", s.size, t.size);
        return out;
    }
    for (size_t i = 0; i < b.sections.size(); ++i)
        if (find_nth(a, b.sections[i].name, nth(b, i)) < 0)
            return fmt::format(
                "the driver's object has a section {} ({} bytes) that this one lacks",
                b.sections[i].name, b.sections[i].size);
    return {};
}

} // namespace

namespace {

struct Field {
    const char* name;
    uint64_t at, size;
};

// The ELF64 header's fields and a section header's (gABI, "ELF Header",
// "Sections"); e_shoff and sh_offset, sh_size are checked by the layout.
constexpr Field kHeader[] = {{"e_ident", 0, 16},     {"e_type", 16, 2},    {"e_machine", 18, 2},
                             {"e_version", 20, 4},   {"e_entry", 24, 8},   {"e_phoff", 32, 8},
                             {"e_shoff", 40, 8},     {"e_flags", 48, 4},   {"e_ehsize", 52, 2},
                             {"e_phentsize", 54, 2}, {"e_phnum", 56, 2},   {"e_shentsize", 58, 2},
                             {"e_shnum", 60, 2},     {"e_shstrndx", 62, 2}};
constexpr Field kSection[] = {{"sh_name", 0, 4},    {"sh_type", 4, 4},    {"sh_flags", 8, 8},
                              {"sh_addr", 16, 8},   {"sh_offset", 24, 8}, {"sh_size", 32, 8},
                              {"sh_link", 40, 4},   {"sh_info", 44, 4},   {"sh_addralign", 48, 8},
                              {"sh_entsize", 56, 8}};

uint64_t field(std::string_view b, uint64_t at, uint64_t size) {
    uint64_t v = 0;
    for (uint64_t i = size; i-- > 0;)
        v = v << 8 | static_cast<unsigned char>(b[at + i]);
    return v;
}

/// A part of the file: a section's bytes (or where a NOBITS or empty section
/// sits) or the section header table (index -1).
struct Region {
    int index;
    uint64_t offset, size, align;
};

std::vector<Region> regions(const Object& o) {
    std::vector<Region> out;
    const uint64_t shoff = read_le<uint64_t>(o.bytes, 40), entsize = read_le<uint16_t>(o.bytes, 58);
    for (size_t i = 1; i < o.sections.size(); ++i) {
        const Section& s = o.sections[i];
        const uint64_t align = read_le<uint64_t>(o.bytes, shoff + i * entsize + 48);
        out.push_back({static_cast<int>(i), s.offset, s.type == kNobits ? 0 : s.size,
                       align == 0 ? 1 : align});
    }
    // The section header table: 8-aligned by LLVM's and GNU's writers (Elf64_Off).
    out.push_back({-1, shoff, entsize * o.sections.size(), 8});
    std::stable_sort(out.begin(), out.end(),
                     [](const Region& a, const Region& b) { return a.offset < b.offset; });
    return out;
}

std::string region_name(const Object& o, int index) {
    return index < 0 ? std::string("the section header table")
                     : "section " + o.sections[static_cast<size_t>(index)].name;
}

bool all_zero(std::string_view b) {
    return b.find_first_not_of('\0') == std::string_view::npos;
}

} // namespace

// What a new size of section `replaced` legitimately changes, and nothing else:
// - its sh_size: the new bytes' size;
// - the sh_offset of every section the file holds after it, and e_shoff (the
//   section header table follows the sections): a writer that puts the new
//   bytes there (the compiler, given the real device code) lays each following
//   section at the next offset its sh_addralign allows after the one before
//   (LLVM's MC and objcopy, GNU as and objcopy all do), so each moves by the
//   size difference rounded to its alignment. Any slack the original had
//   beyond that is kept: a writer that added or took padding is caught;
// - the padding before those sections: its length follows the alignment, and
//   where its length changed it must be zeros, as writers fill it.
// Not its sh_offset (nothing before it moves), no other header field, no
// symbol (the section's symbol has no size; a symbol sized by the bytes would
// be a difference the driver's object would not have), no relocation, no
// string table.
std::string difference_outside(const Object& before, const Object& after, int replaced) {
    const std::string_view a = before.bytes, b = after.bytes;
    if (before.sections.size() != after.sections.size())
        return fmt::format("the number of sections is {}, the original's {}", after.sections.size(),
                           before.sections.size());
    if (before.sections.empty()) return a == b ? "" : "an object without sections";
    if (read_le<uint16_t>(a, 56) != 0 || read_le<uint64_t>(a, 32) != 0)
        return "the original has program headers (it is no relocatable object)";
    for (const Field& f : kHeader) {
        if (f.at == 40) continue;
        if (field(a, f.at, f.size) != field(b, f.at, f.size))
            return fmt::format("the ELF header's {} is {:#x}, the original's {:#x}", f.name,
                               field(b, f.at, f.size), field(a, f.at, f.size));
    }
    const uint64_t shoff_a = read_le<uint64_t>(a, 40), shoff_b = read_le<uint64_t>(b, 40);
    const uint64_t entsize = read_le<uint16_t>(a, 58);
    for (size_t i = 0; i < before.sections.size(); ++i) {
        const uint64_t ha = shoff_a + i * entsize, hb = shoff_b + i * entsize;
        const std::string& name = before.sections[i].name;
        for (const Field& f : kSection) {
            if (f.at == 24 || (f.at == 32 && static_cast<int>(i) == replaced)) continue;
            if (field(a, ha + f.at, f.size) != field(b, hb + f.at, f.size))
                return fmt::format("section {}'s {} is {:#x}, the original's {:#x}",
                                   name.empty() ? std::to_string(i) : name, f.name,
                                   field(b, hb + f.at, f.size), field(a, ha + f.at, f.size));
        }
        if (entsize > 64 && a.substr(ha + 64, entsize - 64) != b.substr(hb + 64, entsize - 64))
            return fmt::format("section {}'s header past its fields", name);
        if (static_cast<int>(i) != replaced &&
            before.contents(before.sections[i]) != after.contents(after.sections[i]))
            return fmt::format("section {}'s bytes", name);
    }
    // The layout: each part where the bytes before it, as `after` holds them,
    // put it (see above), and the bytes between the parts.
    const std::vector<Region> ra = regions(before), rb = regions(after);
    uint64_t end_a = 64, end_b = 64;
    for (size_t k = 0; k < ra.size(); ++k) {
        const Region &x = ra[k], &y = rb[k];
        if (x.index != y.index)
            return fmt::format("{} and {} swapped places", region_name(before, x.index),
                               region_name(before, y.index));
        auto align_up = [&](uint64_t v) { return (v + x.align - 1) / x.align * x.align; };
        // A part that overlaps the one before (the original was laid out
        // otherwise) keeps its distance from that one's end.
        const uint64_t want = x.offset >= align_up(end_a)
                                  ? align_up(end_b) + x.offset - align_up(end_a)
                                  : x.offset + end_b - end_a;
        if (y.offset != want)
            return fmt::format("{} is at {:#x}, where the original's layout puts it at {:#x}",
                               region_name(before, x.index), y.offset, want);
        const std::string_view gap_a = x.offset > end_a ? a.substr(end_a, x.offset - end_a) : "";
        const std::string_view gap_b = y.offset > end_b ? b.substr(end_b, y.offset - end_b) : "";
        if (gap_a.size() == gap_b.size() ? gap_a != gap_b : !all_zero(gap_a) || !all_zero(gap_b))
            return fmt::format("the bytes before {}", region_name(before, x.index));
        end_a = std::max(end_a, x.offset + x.size);
        end_b = std::max(end_b, y.offset + y.size);
    }
    if (a.substr(std::min<uint64_t>(end_a, a.size())) !=
        b.substr(std::min<uint64_t>(end_b, b.size())))
        return "the bytes after the last section";
    return {};
}

std::string first_difference(std::string_view split, std::string_view reference) {
    if (split == reference) return {};
    auto a = parse(split), b = parse(reference);
    if (a && b)
        if (std::string s = section_difference(*a, *b); !s.empty()) return s;
    // The same sections' bytes (or no objects): the headers or the layout differ.
    size_t n = std::min(split.size(), reference.size()), i = 0;
    while (i < n && split[i] == reference[i])
        ++i;
    std::string out = "first difference in " + place(split, i);
    if (split.size() != reference.size())
        out += fmt::format("; {} bytes, the driver's {}", split.size(), reference.size());
    return out;
}

std::string only_section(const Object& o, int index, std::string_view contents) {
    const Section& sec = o.sections[static_cast<size_t>(index)];
    const uint64_t shoff = read_le<uint64_t>(o.bytes, 40);
    const uint16_t shentsize = read_le<uint16_t>(o.bytes, 58);
    auto put = [](std::string& b, uint64_t at, uint64_t v, int n) {
        for (int i = 0; i < n; ++i)
            b[at + static_cast<uint64_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
    };
    auto align8 = [](std::string& b) { b.resize((b.size() + 7) / 8 * 8, '\0'); };
    const std::string names = std::string(1, '\0') + sec.name + '\0' + ".shstrtab" + '\0';
    std::string b(o.bytes.substr(0, 64));
    put(b, 16, 1, 2);  // e_type: relocatable
    put(b, 24, 0, 8);  // e_entry
    put(b, 32, 0, 8);  // e_phoff
    put(b, 54, 0, 2);  // e_phentsize
    put(b, 56, 0, 2);  // e_phnum
    put(b, 52, 64, 2); // e_ehsize
    const uint64_t data_at = b.size();
    b += contents;
    align8(b);
    const uint64_t names_at = b.size();
    b += names;
    align8(b);
    const uint64_t headers_at = b.size();
    b.resize(headers_at + 3 * 64, '\0');
    put(b, 40, headers_at, 8);
    put(b, 58, 64, 2);
    put(b, 60, 3, 2);
    put(b, 62, 2, 2);
    // 1: the section, its header as in `o` but for name, offset and size.
    b.replace(headers_at + 64, 64,
              o.bytes.substr(shoff + static_cast<uint64_t>(index) * shentsize, 64));
    put(b, headers_at + 64, 1, 4);
    put(b, headers_at + 64 + 24, data_at, 8);
    put(b, headers_at + 64 + 32, contents.size(), 8);
    put(b, headers_at + 64 + 40, 0, 4); // sh_link: no other section here
    put(b, headers_at + 64 + 44, 0, 4); // sh_info
    // 2: the names.
    put(b, headers_at + 128, 2 + sec.name.size(), 4);
    put(b, headers_at + 128 + 4, 3, 4); // SHT_STRTAB
    put(b, headers_at + 128 + 24, names_at, 8);
    put(b, headers_at + 128 + 32, names.size(), 8);
    put(b, headers_at + 128 + 48, 1, 8); // sh_addralign
    return b;
}

} // namespace phc::util::elf
