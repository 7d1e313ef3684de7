// The ELF reader and the embed step's guard (split/embed.h) on small objects
// made here, byte by byte: a .hip_fatbin holding the placeholder, the
// fat-binary wrapper pointing into it, and optionally code that does too.
#include "elf_builder.h"
#include "probe/objcopy.h"
#include "split/embed.h"
#include "util/elf.h"
#include "util/file.h"

#include <cstdint>
#include <deque>
#include <doctest/doctest.h>
#include <string>
#include <vector>

using namespace phc;
using phc::test::object;
using phc::test::put;
using phc::test::Sec;

namespace {

/// `bytes`, kept alive for the rest of the run: a parsed Object views its bytes.
std::string_view kept(std::string bytes) {
    static std::deque<std::string> all;
    return all.emplace_back(std::move(bytes));
}

/// One RELA entry at `offset` against symbol `sym`.
std::string rela(uint64_t offset, uint64_t sym) {
    std::string r(24, '\0');
    put(r, 0, offset, 8);
    put(r, 8, sym << 32 | 2, 8);
    return r;
}

/// Sections 1 .hip_fatbin, 2 .text, 3 .hipFatBinSegment, 4 .symtab (symbol 1
/// is .hip_fatbin's section symbol, 2 an undefined one), 5 .rela.hipFatBinSegment,
/// 6 .rela.text whose entries point at `text_sym`.
std::string host_object(const std::string& fatbin, uint64_t text_sym) {
    std::string syms(72, '\0');
    put(syms, 24 + 4, 3, 1); // STT_SECTION
    put(syms, 24 + 6, 1, 2); // in section 1
    return object({{".hip_fatbin", fatbin},
                   {".text", std::string(16, '\x90')},
                   {".hipFatBinSegment", std::string(24, '\0')},
                   {".symtab", syms, 2, 0, 1, 24},
                   {".rela.hipFatBinSegment", rela(8, 1), 4, 4, 3, 24},
                   {".rela.text", rela(4, text_sym), 4, 4, 2, 24}});
}

} // namespace

TEST_CASE("elf: sections and the relocations that point into one") {
    const std::string o = host_object(std::string("PH\0", 3), 1);
    auto e = util::elf::parse(o);
    REQUIRE(e);
    CHECK(e->find(".hip_fatbin") == 1);
    CHECK(e->find(".rela.text") == 6);
    CHECK(e->contents(e->sections[1]) == std::string("PH\0", 3));
    auto refs = util::elf::references_to(*e, 1);
    REQUIRE(refs);
    REQUIRE(refs->size() == 2);
    CHECK((*refs)[0].from == 3);
    CHECK((*refs)[1].from == 2);
    CHECK((*refs)[1].offset == 4);
    CHECK(e->section_at(e->sections[2].offset + 3) == 2);
}

TEST_CASE("elf: a file cut anywhere, or not ELF at all, is an error and never read past") {
    const std::string o = host_object("PH", 2);
    for (size_t n = 0; n < o.size(); ++n) {
        auto e = util::elf::parse(kept(o.substr(0, n)));
        if (e) {
            CHECK(n >= 64); // a header at least; then the section headers were checked
            (void)util::elf::references_to(*e, 1);
        }
    }
    CHECK_FALSE(util::elf::parse("not an object at all, but long enough to be a header.........."));
    std::string be = o;
    be[5] = 2;
    CHECK(util::elf::parse(be).error().message == "not a 64-bit little-endian ELF file");
}

TEST_CASE("elf: first_difference names the section and both sizes") {
    const std::string a = host_object("PH", 2);
    CHECK(util::elf::first_difference(a, a).empty());
    auto e = util::elf::parse(a);
    REQUIRE(e);
    std::string b = a;
    b[e->sections[2].offset + 5] ^= 1;
    CHECK(util::elf::first_difference(b, a).find("section .text at offset 0x5") !=
          std::string::npos);
    CHECK(util::elf::first_difference(a + "x", a)
              .ends_with(std::to_string(a.size() + 1) + " bytes, the driver's " +
                         std::to_string(a.size())));
    CHECK(util::elf::first_difference("abc", "abd") == "first difference in byte 0x2");
}

TEST_CASE("embed: the guard takes the placeholder and the wrapper, nothing else") {
    using split::fatbin_tail;
    const std::string ph = "int main() {}\n";
    auto ok = [&](const std::string& fatbin, uint64_t text_sym) {
        auto e = util::elf::parse(kept(host_object(fatbin, text_sym)));
        REQUIRE(e);
        return fatbin_tail(*e, ph);
    };
    // clang 15 adds a NUL after the file's bytes, later ones nothing.
    auto t = ok(ph + '\0', 2);
    REQUIRE(t);
    CHECK(t->present);
    CHECK(t->tail == std::string(1, '\0'));
    CHECK(ok(ph, 2)->tail.empty());
    // Code that points into .hip_fatbin: a constant of the program shares it.
    auto stray = ok(ph + '\0', 1);
    REQUIRE_FALSE(stray);
    CHECK(stray.error().message.find(".text at offset 0x4 refers to .hip_fatbin") == 0);
    // Another text, a longer tail, a cut placeholder: not what the compile embedded.
    CHECK_FALSE(ok("int main() {}\nX", 2));
    CHECK_FALSE(ok(ph + std::string(2, '\0'), 2));
    CHECK_FALSE(ok(ph.substr(0, 5), 2));
    // No .hip_fatbin (a source that registers nothing): the host object as it is.
    auto none = util::elf::parse(kept(object({{".text", "x"}})));
    REQUIRE(none);
    auto n = fatbin_tail(*none, ph);
    REQUIRE(n);
    CHECK_FALSE(n->present);
    // A wrapper without .hip_fatbin is nothing a compiler writes.
    auto odd = util::elf::parse(kept(object({{".hipFatBinSegment", std::string(24, '\0')}})));
    REQUIRE(odd);
    CHECK_FALSE(fatbin_tail(*odd, ph));
}

TEST_CASE("embed: objects the guard cannot vouch for are refused") {
    const std::string ph = "x";
    // Two sections named .hip_fatbin (a program variable placed there): objcopy
    // would replace the first.
    auto two = util::elf::parse(kept(object({{".hip_fatbin", "v"}, {".hip_fatbin", ph + '\0'}})));
    REQUIRE(two);
    auto t = split::fatbin_tail(*two, ph);
    REQUIRE_FALSE(t);
    CHECK(t.error().message.find("more than one .hip_fatbin") != std::string::npos);
    // Relocations that patch .hip_fatbin would apply to the bundle.
    std::string syms(48, '\0');
    auto patched = util::elf::parse(kept(object({{".hip_fatbin", ph + '\0'},
                                                 {".symtab", syms, 2, 0, 1, 24},
                                                 {".rela.x", rela(0, 1), 4, 2, 1, 24}})));
    REQUIRE(patched);
    CHECK_FALSE(split::fatbin_tail(*patched, ph));
    // Relocations of a kind the guard does not read (CREL).
    auto crel = util::elf::parse(
        kept(object({{".hip_fatbin", ph + '\0'}, {".crel.text", "", 0x40000014}})));
    REQUIRE(crel);
    CHECK_FALSE(split::fatbin_tail(*crel, ph));
}

TEST_CASE("elf: difference_outside allows the replaced section's bytes and what its size moves") {
    using util::elf::difference_outside;
    const std::string small = probe::probe_object("placeholder\n");
    const std::string big = probe::probe_object(std::string(5001, 'd'));
    auto a = util::elf::parse(kept(small));
    auto b = util::elf::parse(kept(big));
    REQUIRE(a);
    REQUIRE(b);
    // The object a compiler writes with the device code in place: every
    // section after .hip_fatbin and the section headers moved, each aligned.
    CHECK(difference_outside(*a, *b, probe::kProbeFatbin) == "");
    CHECK(difference_outside(*a, *a, probe::kProbeFatbin) == "");
    // Any other section replaced is a difference (.text's bytes, and it would move).
    CHECK(difference_outside(*a, *b, 2) != "");
    const uint64_t shoff = util::elf::read_le<uint64_t>(big, 40);
    auto changed = [&](uint64_t at, uint64_t v, int n) {
        std::string c = big;
        put(c, at, v, n);
        auto o = util::elf::parse(kept(c));
        REQUIRE(o);
        return difference_outside(*a, *o, probe::kProbeFatbin);
    };
    // What llvm-objcopy 15 does: .llvm_addrsig (section 5) loses its link.
    CHECK(changed(shoff + 5 * 64 + 40, 0, 4) ==
          "section .llvm_addrsig's sh_link is 0x0, the original's 0x6");
    CHECK(changed(48, 1, 4) == "the ELF header's e_flags is 0x1, the original's 0x0");
    CHECK(changed(0x40, 0xcc, 1) == "section .text's bytes");
    CHECK(changed(shoff + 2 * 64 + 8, 7, 8).find("section .text's sh_flags") == 0);
    // .data (section 4) laid out 8 bytes later than its alignment asks.
    CHECK(changed(shoff + 4 * 64 + 24, b->sections[4].offset + 8, 8).find("section .data") == 0);
    // Padding that is not zeros.
    const uint64_t pad = b->sections[2].offset + b->sections[2].size;
    CHECK(changed(pad, 1, 1) == "the bytes before section .hip_fatbin");
}
