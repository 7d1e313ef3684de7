// The ninja lexer: the same tokens, whitespace and escape rules as ninja's
// re2c lexer (src/lexer.in.cc, ninja 1.11-1.13), hand-written over a
// NUL-terminated buffer. Errors point at the last token read, as ninja's do.
#pragma once

#include "ninja/arena.h"
#include "ninja/eval_string.h"
#include "util/error.h"

#include <array>
#include <string>
#include <string_view>

namespace phc::ninja {

/// Token kinds, as in ninja's Lexer::Token.
enum class Token {
    Error,
    Build,
    Colon,
    Default,
    Equals,
    Ident,
    Include,
    Indent,
    Newline,
    Pipe,
    Pipe2,
    PipeAt,
    Pool,
    Rule,
    Subninja,
    Eof,
};

/// ninja's name for a token in messages ("'='", "newline", "eof", ...).
const char* token_name(Token t);

/// One flag per byte: the characters ninja allows in `${name}` and identifiers.
inline constexpr std::array<bool, 256> kVarnameChars = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '_' || c == '-' || c == '.';
    return t;
}();

/// True for characters ninja allows in `${name}` and identifiers: [a-zA-Z0-9_.-].
inline bool is_varname_char(char c) {
    return kVarnameChars[static_cast<unsigned char>(c)];
}

/// True for characters allowed in a bare `$name` reference: [a-zA-Z0-9_-] (no '.').
inline bool is_simple_varname_char(char c) {
    return c != '.' && is_varname_char(c);
}

/// Splits one file's text into tokens. The text must be followed by
/// kTextPadding NULs (SourceText gives them: the lexer reads 16 bytes at a
/// time); an embedded NUL ends the input as in ninja.
class Lexer {
public:
    Lexer(std::string_view filename, std::string_view text);

    /// Reads the next token, skipping comment lines and the whitespace after it.
    Token read_token();
    /// Reads a token; if it is not `t`, puts it back. True when it was `t`.
    bool peek_token(Token t);
    /// Puts back the token just read.
    void unread_token() { ofs_ = last_token_; }
    /// Reads an identifier ([a-zA-Z0-9_.-]+) and the whitespace after it.
    bool read_ident(std::string_view* out);
    /// Reads a path (stops at ' ', ':', '|', newline). `out` empty at the end of a list.
    Status read_path(EvalString* out) { return read_eval_string<true>(out); }
    /// Reads a variable value up to and including the end of the line.
    Status read_var_value(EvalString* out) { return read_eval_string<false>(out); }

    /// An error at the last token ("file:line:col"), with the source line and a caret.
    Error error(std::string_view message) const;
    /// ninja's text for the last lexing error ("lexing error", or the tab hint).
    const char* describe_last_error() const;

    /// Byte offset of the read position in the text.
    size_t offset() const { return static_cast<size_t>(ofs_ - begin_); }
    /// Byte offset where the last token started.
    size_t last_token_offset() const {
        return last_token_ ? static_cast<size_t>(last_token_ - begin_) : 0;
    }

private:
    /// One body for both, compiled for each (`path`: a path, else a value).
    template <bool path> Status read_eval_string(EvalString* out);
    void eat_whitespace();

    std::string filename_;
    const char* begin_;
    const char* ofs_;
    const char* last_token_ = nullptr;
};

} // namespace phc::ninja
