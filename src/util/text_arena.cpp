#include "util/text_arena.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <new>
#include <sys/mman.h>

namespace phc::util {

namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kChunk = size_t{32} << 20;

} // namespace

TextArena::~TextArena() {
    for (const Chunk& c : chunks_)
        ::munmap(c.map, c.size);
}

TextArena::TextArena(TextArena&& other) noexcept
    : chunks_(std::move(other.chunks_)), at_(other.at_), left_(other.left_) {
    other.chunks_.clear();
    other.at_ = nullptr;
    other.left_ = 0;
}

std::string_view TextArena::add(std::string_view text) {
    if (text.empty()) return {};
    if (text.size() > left_) {
        // Room for the text, rounded up, plus one huge page to align the start.
        const size_t want = std::max(kChunk, (text.size() + kHugePage - 1) / kHugePage * kHugePage);
        const size_t size = want + kHugePage;
        void* map = ::mmap(nullptr, size, PROT_READ | PROT_WRITE,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (map == MAP_FAILED) throw std::bad_alloc();
        chunks_.push_back({map, size});
        auto base = reinterpret_cast<uintptr_t>(map);
        uintptr_t aligned = (base + kHugePage - 1) & ~(uintptr_t{kHugePage} - 1);
        at_ = reinterpret_cast<char*>(aligned);
        left_ = size - (aligned - base);
        ::madvise(at_, left_, MADV_HUGEPAGE); // a hint: without it, ordinary pages
    }
    std::memcpy(at_, text.data(), text.size());
    std::string_view out(at_, text.size());
    at_ += text.size();
    left_ -= text.size();
    return out;
}

} // namespace phc::util
