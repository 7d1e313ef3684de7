#include "probe/objcopy.h"

#include "util/elf.h"
#include "util/file.h"
#include "util/settings.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>
#include <string_view>
#include <unistd.h>
#include <utility>

namespace phc::probe {

int llvm_major_version(const std::string& text) {
    const std::string_view key = "LLVM version ";
    size_t at = text.find(key);
    return at == std::string::npos ? 0 : std::atoi(text.c_str() + at + key.size());
}

namespace {

void put(std::string& b, uint64_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
        b[at + static_cast<uint64_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

uint64_t align_to(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

} // namespace

std::string probe_object(std::string_view fatbin) {
    // As clang's host objects are laid out (LLVM's ELF writer): the ELF header,
    // the sections' bytes in this order, each at the next offset its alignment
    // allows, the symbol table, .llvm_addrsig, the string table (section 1,
    // also the section names), then the section headers.
    struct Part {
        std::string name, data;
        uint32_t type;
        uint64_t flags, align;
        uint32_t link = 0, info = 0;
        uint64_t entsize = 0;
    };
    constexpr uint32_t kProgbits = 1, kSymtab = 2, kStrtab = 3, kAddrsig = 0x6fff4c03;
    std::string symtab(72, '\0');
    put(symtab, 24 + 4, 3, 1);            // a local STT_SECTION symbol
    put(symtab, 24 + 6, kProbeFatbin, 2); // of .hip_fatbin
    put(symtab, 48 + 4, 0x12, 1);         // a global STT_FUNC "probe"
    put(symtab, 48 + 6, 2, 2);            // in .text
    put(symtab, 48 + 16, 16, 8);          // of 16 bytes
    // By section index; `order` is the file's.
    std::vector<Part> parts = {
        {"", "", 0, 0, 0},
        {".strtab", "", kStrtab, 0, 1},
        {".text", std::string(16, '\x90'), kProgbits, 6, 16},
        {".hip_fatbin", std::string(fatbin), kProgbits, 2, 4096},
        {".data", std::string(8, '\x2a'), kProgbits, 3, 8},
        {".llvm_addrsig", "\x02", kAddrsig, 0x80000000, 1, 6},
        {".symtab", symtab, kSymtab, 0, 8, 1, 2, 24},
    };
    // The names as LLVM's string table builder lays them out (clang's host
    // objects; a copier that rebuilds the table the same way keeps it): by
    // their reversed text, descending, each name that ends the one before it
    // sharing its bytes.
    std::vector<std::string> texts = {"probe"};
    for (const Part& p : parts)
        if (!p.name.empty()) texts.push_back(p.name);
    std::sort(texts.begin(), texts.end(), [](const std::string& x, const std::string& y) {
        return std::lexicographical_compare(y.rbegin(), y.rend(), x.rbegin(), x.rend());
    });
    std::string strtab(1, '\0'), previous;
    std::map<std::string, uint32_t> at;
    for (const std::string& t : texts) {
        if (!previous.empty() && previous.ends_with(t)) {
            at[t] = static_cast<uint32_t>(strtab.size() - t.size() - 1);
            continue;
        }
        at[t] = static_cast<uint32_t>(strtab.size());
        strtab += t + '\0';
        previous = t;
    }
    std::vector<uint32_t> names;
    for (const Part& p : parts)
        names.push_back(p.name.empty() ? 0 : at[p.name]);
    put(parts[6].data, 48, at["probe"], 4);
    parts[1].data = strtab;
    const int order[] = {2, 3, 4, 6, 5, 1};
    std::string b(64, '\0');
    std::vector<uint64_t> offset(parts.size(), 0);
    for (int i : order) {
        b.resize(align_to(b.size(), parts[static_cast<size_t>(i)].align), '\0');
        offset[static_cast<size_t>(i)] = b.size();
        b += parts[static_cast<size_t>(i)].data;
    }
    b.resize(align_to(b.size(), 8), '\0');
    const uint64_t shoff = b.size();
    b.resize(shoff + 64 * parts.size(), '\0');
    b.replace(0, 4,
              "\x7f"
              "ELF");
    put(b, 4, 0x010102, 3); // ELFCLASS64, little-endian, version 1
    put(b, 16, 1, 2);       // ET_REL
    put(b, 18, 62, 2);      // EM_X86_64
    put(b, 20, 1, 4);
    put(b, 40, shoff, 8);
    put(b, 52, 64, 2);
    put(b, 58, 64, 2);
    put(b, 60, parts.size(), 2);
    put(b, 62, 1, 2);
    for (size_t i = 1; i < parts.size(); ++i) {
        const Part& p = parts[i];
        const uint64_t h = shoff + 64 * i;
        put(b, h, names[i], 4);
        put(b, h + 4, p.type, 4);
        put(b, h + 8, p.flags, 8);
        put(b, h + 24, offset[i], 8);
        put(b, h + 32, p.data.size(), 8);
        put(b, h + 40, p.link, 4);
        put(b, h + 44, p.info, 4);
        put(b, h + 48, p.align, 8);
        put(b, h + 56, p.entsize, 8);
    }
    return b;
}

std::string keeps_bytes(const std::string& program) {
    util::TempDir dir("phc-objcopy");
    if (dir.path().empty()) return "no scratch folder for its probe";
    const std::string in = dir.path() + "/in.o", section = dir.path() + "/fatbin",
                      out = dir.path() + "/out.o";
    const std::string before = probe_object();
    // Larger than the placeholder by an amount no alignment rounds away.
    std::string device(5001, '\0');
    for (size_t i = 0; i < device.size(); ++i)
        device[i] = static_cast<char>(i * 7 + 1);
    if (!util::write_file_atomic(in, before) || !util::write_file_atomic(section, device))
        return "its probe's files could not be written";
    auto ran = util::run_capture({program, "--update-section", ".hip_fatbin=" + section, in, out});
    if (!ran) return ran.error().message;
    if (ran->exit_code != 0)
        return fmt::format("exit {}: {}", ran->exit_code, ran->err.substr(0, ran->err.find('\n')));
    auto bytes = util::read_file(out);
    if (!bytes) return "it wrote no object";
    auto a = util::elf::parse(before), o = util::elf::parse(*bytes);
    if (!a || !o) return "it wrote no ELF object";
    const auto fatbin = static_cast<size_t>(kProbeFatbin);
    if (o->sections.size() <= fatbin || o->contents(o->sections[fatbin]) != device)
        return "it did not put the new bytes into the section";
    return util::elf::difference_outside(*a, *o, kProbeFatbin);
}

namespace {

bool is_objcopy_name(std::string_view name) {
    if (name == "llvm-objcopy") return true;
    if (!name.starts_with("llvm-objcopy-") || name.size() == 13) return false;
    return name.substr(13).find_first_not_of("0123456789") == std::string_view::npos;
}

/// Every llvm-objcopy here, newest first, then GNU objcopy.
std::vector<std::string> candidates() {
    std::set<std::string> found;
    std::error_code ec;
    auto add_dir = [&](const std::filesystem::path& dir) {
        for (const auto& e : std::filesystem::directory_iterator(dir, ec))
            if (is_objcopy_name(e.path().filename().string())) found.insert(e.path().string());
    };
    if (const char* path = std::getenv("PATH")) {
        std::string_view rest = path;
        while (!rest.empty()) {
            size_t colon = rest.find(':');
            std::string dir(rest.substr(0, colon));
            if (!dir.empty()) add_dir(dir);
            rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
        }
    }
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib", ec))
        if (e.path().filename().string().starts_with("llvm-")) add_dir(e.path() / "bin");
    std::vector<std::pair<int, std::string>> versioned;
    std::set<std::string> seen; // one per real file: /usr/bin/llvm-objcopy-22 is a symlink
    for (const std::string& c : found) {
        if (::access(c.c_str(), X_OK) != 0) continue;
        if (!seen.insert(std::filesystem::weakly_canonical(c, ec).string()).second) continue;
        auto ran = util::run_capture({c, "--version"});
        if (!ran || ran->exit_code != 0) continue;
        versioned.emplace_back(llvm_major_version(ran->out + ran->err), c);
    }
    std::stable_sort(versioned.begin(), versioned.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (auto& [v, c] : versioned)
        if (v > 0) out.push_back(std::move(c));
    if (std::string gnu = util::find_program("objcopy"); !gnu.empty()) out.push_back(gnu);
    return out;
}

struct Choice {
    std::string program, refusal;
};

Choice choose() {
    std::vector<std::string> tried;
    if (auto named = util::get("PHC_OBJCOPY"); named && !named->empty()) {
        std::string p = named->find('/') == std::string::npos ? util::find_program(*named) : *named;
        if (p.empty()) return {"", "PHC_OBJCOPY names " + *named + ", which is not found"};
        tried.push_back(p);
    } else {
        tried = candidates();
    }
    if (tried.empty()) return {"", "no objcopy found"};
    std::vector<std::string> why;
    for (const std::string& c : tried) {
        std::string changed = keeps_bytes(c);
        if (changed.empty()) return {c, ""};
        why.push_back(fmt::format("{}: {}", c, changed));
    }
    return {"",
            fmt::format("no objcopy here keeps an object's bytes outside the section it replaces "
                        "({}); llvm-objcopy 19 or later does",
                        fmt::join(why, "; "))};
}

const Choice& chosen() {
    static const Choice c = choose();
    return c;
}

} // namespace

const std::string& objcopy() {
    return chosen().program;
}

const std::string& objcopy_refusal() {
    return chosen().refusal;
}

} // namespace phc::probe
