// Storage that outlives the parse with stable addresses: each file's text, and
// a bump allocator for strings made while parsing (evaluated values,
// canonicalised paths): one allocation per 64 KiB, not per string.
#pragma once

#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace phc::ninja {

/// NUL bytes after every text the Lexer reads: it scans 16 bytes at a time from
/// where it is, so it may read up to 15 bytes past the NUL that ends the text.
inline constexpr size_t kTextPadding = 16;

/// One file's text, followed by kTextPadding NULs: either owned as a string, or a read-only
/// mapping of the file (loading a big manifest then copies nothing and takes
/// no page fault per 4 KiB of text).
class SourceText {
public:
    /// Takes `text`, padded with kTextPadding NULs (see Lexer).
    explicit SourceText(std::string text) : owned_(std::move(text)), size_(owned_.size()) {
        owned_.append(kTextPadding, '\0');
    }
    /// Takes over `mapped`, a mapping of `mapped_size` bytes whose first `size`
    /// are the text and the rest zero (at least kTextPadding bytes).
    SourceText(const char* mapped, size_t size, size_t mapped_size)
        : mapped_(mapped), size_(size), mapped_size_(mapped_size) {}
    SourceText(SourceText&& o) noexcept;
    SourceText& operator=(SourceText&&) = delete;
    ~SourceText();

    /// The text (without the NULs after it). Owned text moves with the object.
    std::string_view text() const { return {mapped_ ? mapped_ : owned_.data(), size_}; }

private:
    std::string owned_;
    const char* mapped_ = nullptr;
    size_t size_ = 0, mapped_size_ = 0;
};

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
