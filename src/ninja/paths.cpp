#include "ninja/paths.h"

#include "util/quote.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace phc::ninja {

namespace {

/// True when the component at p[i] (a '.') is "." or "..".
bool dot_component(std::string_view p, size_t i) {
    size_t n = p.size();
    if (i + 1 == n || p[i + 1] == '/') return true;
    return p[i + 1] == '.' && (i + 2 == n || p[i + 2] == '/');
}

} // namespace

bool needs_canonicalization(std::string_view p) {
    size_t n = p.size();
    if (n == 0) return false;
    if (p[0] == '.' && dot_component(p, 0)) return true;
    // Anything else to fold follows a '/': "//", a trailing '/', "/./", "/../".
    const char* s = p.data();
    for (const char* q = s; (q = static_cast<const char*>(std::memchr(q, '/', n - (q - s)))); ++q) {
        auto i = static_cast<size_t>(q - s);
        if (i + 1 == n || s[i + 1] == '/') return true;
        if (s[i + 1] == '.' && dot_component(p, i + 1)) return true;
    }
    return false;
}

std::string canonicalize_path(std::string_view path) {
    // Mirrors ninja 1.11's pointer walk, including its reliance on a byte
    // after the end (it copies the final NUL) and "/" becoming "".
    std::string buf(path);
    size_t len = buf.size();
    if (len == 0) return buf;
    buf.push_back('\0');
    char* start = buf.data();
    char* dst = start;
    const char* src = start;
    const char* end = start + len;
    std::basic_string<size_t> components; // offsets of each kept component in dst
    if (*src == '/') {
        ++src;
        ++dst;
    }
    while (src < end) {
        if (*src == '.') {
            if (src + 1 == end || src[1] == '/') {
                src += 2;
                continue;
            }
            if (src[1] == '.' && (src + 2 == end || src[2] == '/')) {
                if (!components.empty()) {
                    dst = start + components.back();
                    components.pop_back();
                    src += 3;
                } else {
                    *dst++ = *src++;
                    *dst++ = *src++;
                    *dst++ = *src++;
                }
                continue;
            }
        }
        if (*src == '/') {
            ++src;
            continue;
        }
        components.push_back(static_cast<size_t>(dst - start));
        while (src != end && *src != '/')
            *dst++ = *src++;
        *dst++ = *src++; // the '/' or the final NUL
    }
    if (dst == start) return ".";
    buf.resize(static_cast<size_t>(dst - start - 1));
    return buf;
}

namespace {

/// True when `c` needs no shell quoting: [A-Za-z0-9_+-./].
bool safe_char(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+' || c == '-' || c == '.' || c == '/';
}

#if defined(__SSE2__)
/// Bit i set when p[i] is outside [A-Za-z0-9_+-./], for the 16 bytes from p.
unsigned unsafe_mask(const char* p) {
    auto in_range = [](__m128i x, char lo, char hi) { // lo <= x <= hi, unsigned
        __m128i d = _mm_sub_epi8(x, _mm_set1_epi8(lo));
        return _mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(static_cast<char>(hi - lo))), d);
    };
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i safe = in_range(_mm_or_si128(v, _mm_set1_epi8(0x20)), 'a', 'z'); // either case
    safe = _mm_or_si128(safe, in_range(v, '-', '9'));                        // - . / 0-9
    safe = _mm_or_si128(safe, _mm_cmpeq_epi8(v, _mm_set1_epi8('+')));
    safe = _mm_or_si128(safe, _mm_cmpeq_epi8(v, _mm_set1_epi8('_')));
    return ~static_cast<unsigned>(_mm_movemask_epi8(safe)) & 0xffffu;
}

/// True when every byte of `s` is in [A-Za-z0-9_+-./]. Reads only the bytes of
/// `s`: 16 at a time, the last 16 (overlapping) for the rest, byte by byte when
/// it is shorter.
bool shell_safe(std::string_view s) {
    const char* p = s.data();
    const char* end = p + s.size();
    if (s.size() < 16) return std::all_of(p, end, safe_char);
    for (; end - p >= 16; p += 16)
        if (unsafe_mask(p)) return false;
    return p == end || unsafe_mask(end - 16) == 0;
}
#else
bool shell_safe(std::string_view s) {
    return std::all_of(s.begin(), s.end(), safe_char);
}
#endif

} // namespace

void append_shell_escaped(std::string& out, std::string_view s) {
    if (shell_safe(s))
        out += s;
    else
        util::append_single_quoted(out, s);
}

} // namespace phc::ninja
