// POSIX shell single quoting, shared by the command quoting of compile/shell.h
// and the reproduction of ninja's $in/$out escaping in ninja/paths.h (which
// differ only in the characters they leave bare).
#pragma once

#include <string>
#include <string_view>

namespace phc::util {

/// Appends `word` in single quotes, each ' in it as '\'' ("it's" -> 'it'\''s').
inline void append_single_quoted(std::string& out, std::string_view word) {
    out += '\'';
    for (char c : word) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    out += '\'';
}

} // namespace phc::util
