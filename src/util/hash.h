// Stable content hashes (xxHash XXH3-128): the same bytes give the same hash on
// every machine and every run, so they can name CUIDs and cache entries.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::util {

/// Incremental hasher. Feed parts with add(); parts are length-prefixed so that
/// ("ab","c") and ("a","bc") differ. Parts are collected and hashed in one go
/// (the same digest as streaming them, much cheaper for many small parts).
class Hasher {
public:
    Hasher() = default;

    /// Adds one part.
    Hasher& add(std::string_view part);
    /// Adds each of `parts`, as add() would one by one.
    Hasher& add_all(const std::vector<std::string_view>& parts);
    /// The 128-bit digest as 32 lowercase hex digits.
    std::string hex128() const;
    /// The low 64 bits as 16 lowercase hex digits.
    std::string hex64() const;

private:
    std::string bytes_; ///< every part, each after its length (8 bytes, native order)
};

} // namespace phc::util
