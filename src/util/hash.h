// Stable content hashes (xxHash XXH3-128): the same bytes give the same hash on
// every machine and every run, so they can name CUIDs and cache entries.
#pragma once

#include <string>
#include <string_view>

namespace phc::util {

/// Incremental hasher. Feed parts with add(); parts are length-prefixed so that
/// ("ab","c") and ("a","bc") differ.
class Hasher {
public:
    Hasher();
    ~Hasher();
    Hasher(const Hasher&) = delete;
    Hasher& operator=(const Hasher&) = delete;

    /// Adds one part.
    Hasher& add(std::string_view part);
    /// The 128-bit digest as 32 lowercase hex digits.
    std::string hex128() const;
    /// The low 64 bits as 16 lowercase hex digits.
    std::string hex64() const;

private:
    void* state_;
};

/// Hash of one string, 32 hex digits.
std::string hash_hex(std::string_view data);

} // namespace phc::util
