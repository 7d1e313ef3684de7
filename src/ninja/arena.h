// A bump allocator for strings that must outlive the parse with stable addresses
// (evaluated values, canonicalised paths): one allocation per 64 KiB, not per string.
#pragma once

#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace phc::ninja {

/// Owns copies of strings; the views it returns stay valid until it is destroyed
/// (moving the arena keeps them valid too).
class StringArena {
public:
    /// Copies `s` into the arena and returns a view of the copy.
    std::string_view store(std::string_view s) {
        if (s.empty()) return {};
        if (s.size() > left_) grow(s.size());
        char* p = cur_;
        std::memcpy(p, s.data(), s.size());
        cur_ += s.size();
        left_ -= s.size();
        return {p, s.size()};
    }

private:
    void grow(size_t need) {
        size_t size = need > kBlock ? need : kBlock;
        blocks_.push_back(std::make_unique<char[]>(size));
        cur_ = blocks_.back().get();
        left_ = size;
    }
    static constexpr size_t kBlock = 64 * 1024;
    std::vector<std::unique_ptr<char[]>> blocks_;
    char* cur_ = nullptr;
    size_t left_ = 0;
};

} // namespace phc::ninja
