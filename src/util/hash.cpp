#include "util/hash.h"

#include <cstdint>
#include <cstring>
#include <xxhash.h>

namespace phc::util {

namespace {

/// Writes `len` as 8 little-endian bytes at `to`: the hash (and so every CUID
/// users' builds and caches hold) is the same on every machine.
void put_length(char* to, uint64_t len) {
    for (int k = 0; k < 8; ++k, len >>= 8)
        to[k] = static_cast<char>(len & 0xff);
}

/// Appends `v` as 16 lowercase hex digits.
void append_hex(std::string& out, uint64_t v) {
    constexpr char kDigits[] = "0123456789abcdef";
    char buf[16];
    for (int k = 15; k >= 0; --k, v >>= 4)
        buf[k] = kDigits[v & 15];
    out.append(buf, sizeof buf);
}

} // namespace

Hasher& Hasher::add(std::string_view part) {
    char len[8];
    put_length(len, part.size());
    bytes_.append(len, sizeof len);
    bytes_.append(part);
    return *this;
}

Hasher& Hasher::add_all(const std::vector<std::string_view>& parts) {
    size_t size = bytes_.size();
    for (std::string_view part : parts)
        size += sizeof(uint64_t) + part.size();
    size_t at = bytes_.size();
    bytes_.resize(size);
    char* to = bytes_.data();
    for (std::string_view part : parts) {
        put_length(to + at, part.size());
        std::memcpy(to + at + 8, part.data(), part.size());
        at += 8 + part.size();
    }
    return *this;
}

std::string Hasher::hex128() const {
    XXH128_hash_t h = XXH3_128bits(bytes_.data(), bytes_.size());
    std::string out;
    append_hex(out, h.high64);
    append_hex(out, h.low64);
    return out;
}

std::string Hasher::hex64() const {
    XXH128_hash_t h = XXH3_128bits(bytes_.data(), bytes_.size());
    std::string out;
    append_hex(out, h.low64);
    return out;
}

} // namespace phc::util
