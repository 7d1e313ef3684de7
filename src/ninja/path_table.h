// The node-path index: an open-addressing hash table from canonical path to
// node id. Loading a big manifest spends most of its lookups here; a flat
// table with stored hashes avoids std::unordered_map's per-node allocations
// and pointer chasing.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>
#include <xxhash.h>

namespace phc::ninja {

/// Maps path -> id for paths stored elsewhere (`paths[id]` must stay valid).
class PathTable {
public:
    /// Hash of a path, as the table uses it.
    static uint64_t hash(std::string_view s) { return XXH3_64bits(s.data(), s.size()); }

    /// The id of `path` (whose hash is `h`), if present.
    std::optional<uint32_t> find(std::string_view path, uint64_t h,
                                 const std::vector<std::string_view>& paths) const {
        if (slots_.empty()) return std::nullopt;
        for (size_t i = h & mask_;; i = (i + 1) & mask_) {
            const Slot& s = slots_[i];
            if (s.id == kEmpty) return std::nullopt;
            if (s.hash == static_cast<uint32_t>(h) && paths[s.id] == path) return s.id;
        }
    }

    /// Adds `id` (not present yet) under hash `h`.
    void insert(uint32_t id, uint64_t h, const std::vector<std::string_view>& paths) {
        if ((count_ + 1) * 2 > slots_.size()) grow(paths);
        place(id, h);
        ++count_;
    }

    /// Makes room for `n` entries without rehashing (one new table at most).
    void reserve(size_t n, const std::vector<std::string_view>& paths) {
        size_t size = slots_.empty() ? kMinSize : slots_.size();
        while (n * 2 > size)
            size *= 2;
        if (size > slots_.size()) rehash(size, paths);
    }

private:
    struct Slot {
        uint32_t hash = 0;
        uint32_t id = kEmpty;
    };
    static constexpr uint32_t kEmpty = UINT32_MAX;
    static constexpr size_t kMinSize = 1024; ///< a power of two

    void place(uint32_t id, uint64_t h) {
        size_t i = h & mask_;
        while (slots_[i].id != kEmpty)
            i = (i + 1) & mask_;
        slots_[i] = Slot{static_cast<uint32_t>(h), id};
    }

    void grow(const std::vector<std::string_view>& paths) {
        rehash(slots_.empty() ? kMinSize : slots_.size() * 2, paths);
    }

    void rehash(size_t size, const std::vector<std::string_view>& paths) {
        std::vector<Slot> old = std::move(slots_);
        slots_.assign(size, Slot{});
        mask_ = slots_.size() - 1;
        for (const Slot& s : old)
            if (s.id != kEmpty) place(s.id, hash(paths[s.id]));
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    size_t count_ = 0;
};

} // namespace phc::ninja
