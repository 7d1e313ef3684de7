#include "util/hash.h"

#include <cstdint>
#include <fmt/format.h>
#include <xxhash.h>

namespace phc::util {

Hasher& Hasher::add(std::string_view part) {
    uint64_t len = part.size();
    bytes_.append(reinterpret_cast<const char*>(&len), sizeof len);
    bytes_.append(part);
    return *this;
}

std::string Hasher::hex128() const {
    XXH128_hash_t h = XXH3_128bits(bytes_.data(), bytes_.size());
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::string Hasher::hex64() const {
    XXH128_hash_t h = XXH3_128bits(bytes_.data(), bytes_.size());
    return fmt::format("{:016x}", h.low64);
}

std::string hash_hex(std::string_view data) {
    Hasher h;
    h.add(data);
    return h.hex128();
}

} // namespace phc::util
