#include "util/elf.h"

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

} // namespace phc::util::elf
