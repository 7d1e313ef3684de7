// Append-only storage for many texts whose bytes never move.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace phc::util {

/// Copies texts into large chunks and hands out views that stay valid for the
/// arena's lifetime. Chunks are 2 MiB-aligned and marked for transparent huge
/// pages, so filling tens of megabytes costs a few page faults, not thousands.
/// Not thread-safe: one per thread.
class TextArena {
public:
    TextArena() = default;
    ~TextArena();
    TextArena(const TextArena&) = delete;
    TextArena& operator=(const TextArena&) = delete;
    TextArena(TextArena&& other) noexcept;
    TextArena& operator=(TextArena&&) = delete;

    /// A copy of `text` in the arena.
    std::string_view add(std::string_view text);

private:
    struct Chunk {
        void* map;   ///< what mmap returned
        size_t size; ///< its length
    };
    std::vector<Chunk> chunks_;
    char* at_ = nullptr; ///< next free byte in the last chunk
    size_t left_ = 0;    ///< free bytes after at_
};

} // namespace phc::util
