#include "util/hash.h"

#include <cstdint>
#include <fmt/format.h>
#include <xxhash.h>

namespace phc::util {

Hasher::Hasher() : state_(XXH3_createState()) {
    XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}

Hasher::~Hasher() {
    XXH3_freeState(static_cast<XXH3_state_t*>(state_));
}

Hasher& Hasher::add(std::string_view part) {
    auto* st = static_cast<XXH3_state_t*>(state_);
    uint64_t len = part.size();
    XXH3_128bits_update(st, &len, sizeof len);
    XXH3_128bits_update(st, part.data(), part.size());
    return *this;
}

std::string Hasher::hex128() const {
    XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
    return fmt::format("{:016x}{:016x}", h.high64, h.low64);
}

std::string Hasher::hex64() const {
    XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
    return fmt::format("{:016x}", h.low64);
}

std::string hash_hex(std::string_view data) {
    Hasher h;
    h.add(data);
    return h.hex128();
}

} // namespace phc::util
