// Small ELF64 little-endian relocatable objects made byte by byte, for the
// tests of the ELF reader, the embed step's guard and the link plan's reader
// of offloading sections.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace phc::test {

inline void put(std::string& b, uint64_t at, uint64_t v, int n) {
    for (int i = 0; i < n; ++i)
        b[at + static_cast<uint64_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}

struct Sec {
    std::string name, data;
    uint32_t type = 1, link = 0, info = 0;
    uint64_t entsize = 0;
};

/// An ELF64 relocatable object with `secs` after the null section and a
/// .shstrtab last.
inline std::string object(std::vector<Sec> secs) {
    Sec names{".shstrtab", std::string(1, '\0'), 3};
    std::vector<uint32_t> at;
    for (const Sec& s : secs) {
        at.push_back(static_cast<uint32_t>(names.data.size()));
        names.data += s.name + '\0';
    }
    at.push_back(static_cast<uint32_t>(names.data.size()));
    names.data += names.name + '\0';
    secs.push_back(names);
    std::string b(64, '\0');
    b.replace(0, 4,
              "\x7f"
              "ELF");
    b[4] = 2;
    b[5] = 1;
    std::vector<uint64_t> off;
    for (const Sec& s : secs) {
        off.push_back(b.size());
        b += s.data;
    }
    const uint64_t shoff = b.size();
    b.resize(shoff + 64 * (secs.size() + 1), '\0');
    put(b, 40, shoff, 8);
    put(b, 58, 64, 2);
    put(b, 60, secs.size() + 1, 2);
    put(b, 62, secs.size(), 2);
    for (size_t i = 0; i < secs.size(); ++i) {
        const uint64_t h = shoff + 64 * (i + 1);
        put(b, h, at[i], 4);
        put(b, h + 4, secs[i].type, 4);
        put(b, h + 24, off[i], 8);
        put(b, h + 32, secs[i].data.size(), 8);
        put(b, h + 40, secs[i].link, 4);
        put(b, h + 44, secs[i].info, 4);
        put(b, h + 56, secs[i].entsize, 8);
    }
    return b;
}

} // namespace phc::test
