#include "ninja/paths.h"

namespace phc::ninja {

bool needs_canonicalization(std::string_view p) {
    size_t n = p.size();
    if (n == 0) return false;
    for (size_t i = 0; i < n; ++i) {
        char c = p[i];
        if (c == '/') {
            if (i + 1 == n || p[i + 1] == '/') return true;
        } else if (c == '.' && (i == 0 || p[i - 1] == '/')) {
            if (i + 1 == n || p[i + 1] == '/') return true;
            if (p[i + 1] == '.' && (i + 2 == n || p[i + 2] == '/')) return true;
        }
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

bool shell_safe(char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '+' || c == '-' || c == '.' || c == '/';
}

} // namespace

void append_shell_escaped(std::string& out, std::string_view s) {
    bool safe = true;
    for (char c : s)
        if (!shell_safe(c)) {
            safe = false;
            break;
        }
    if (safe) {
        out += s;
        return;
    }
    out += '\'';
    for (char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
}

} // namespace phc::ninja
