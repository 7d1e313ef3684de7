#include "ninja/lexer.h"

#include <cstdint>
#include <fmt/format.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace phc::ninja {

namespace {

/// Keyword for an identifier-shaped word, or Token::Ident (longest match, as re2c does).
Token keyword(std::string_view w) {
    switch (w.size()) {
    case 4:
        if (w == "pool") return Token::Pool;
        if (w == "rule") return Token::Rule;
        break;
    case 5:
        if (w == "build") return Token::Build;
        break;
    case 7:
        if (w == "default") return Token::Default;
        if (w == "include") return Token::Include;
        break;
    case 8:
        if (w == "subninja") return Token::Subninja;
        break;
    }
    return Token::Ident;
}

#if defined(__SSE2__)
/// Bit i set when p[i] is one of `Stops`, for the 16 bytes from p.
template <char... Stops> unsigned stop_mask(const char* p) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    __m128i hit = _mm_setzero_si128();
    ((hit = _mm_or_si128(hit, _mm_cmpeq_epi8(v, _mm_set1_epi8(Stops)))), ...);
    return static_cast<unsigned>(_mm_movemask_epi8(hit));
}

/// The first byte at or after `p` that is one of `Stops`, which must hold '\0'
/// (the text ends in one). Reads 16 bytes at a time, so up to 15 past that NUL:
/// the text is padded (kTextPadding).
template <char... Stops> const char* skip_text(const char* p) {
    for (;; p += 16)
        if (unsigned mask = stop_mask<Stops...>(p)) return p + __builtin_ctz(mask);
}
#else
template <char... Stops> const char* skip_text(const char* p) {
    while (((*p != Stops) && ...))
        ++p;
    return p;
}
#endif

} // namespace

const char* token_name(Token t) {
    switch (t) {
    case Token::Error:
        return "lexing error";
    case Token::Build:
        return "'build'";
    case Token::Colon:
        return "':'";
    case Token::Default:
        return "'default'";
    case Token::Equals:
        return "'='";
    case Token::Ident:
        return "identifier";
    case Token::Include:
        return "'include'";
    case Token::Indent:
        return "indent";
    case Token::Newline:
        return "newline";
    case Token::Pipe:
        return "'|'";
    case Token::Pipe2:
        return "'||'";
    case Token::PipeAt:
        return "'|@'";
    case Token::Pool:
        return "'pool'";
    case Token::Rule:
        return "'rule'";
    case Token::Subninja:
        return "'subninja'";
    case Token::Eof:
        return "eof";
    }
    return "";
}

Lexer::Lexer(std::string_view filename, std::string_view text)
    : filename_(filename), begin_(text.data()), ofs_(text.data()) {}

Error Lexer::error(std::string_view message) const {
    int line = 1;
    const char* context = begin_;
    for (const char* p = begin_; p < last_token_; ++p) {
        if (*p == '\n') {
            ++line;
            context = p + 1;
        }
    }
    int col = last_token_ ? static_cast<int>(last_token_ - context) : 0;
    std::string where = fmt::format("{}:{}:{}", filename_, line, col + 1);
    // Like ninja: show the line (cut at 72 columns) and a caret when the column is useful.
    constexpr int kTruncateColumn = 72;
    std::string detail;
    if (col > 0 && col < kTruncateColumn) {
        int len = 0;
        bool truncated = true;
        for (; len < kTruncateColumn; ++len) {
            if (context[len] == '\0' || context[len] == '\n') {
                truncated = false;
                break;
            }
        }
        detail.assign(context, static_cast<size_t>(len));
        if (truncated) detail += "...";
        detail += '\n';
        detail.append(static_cast<size_t>(col), ' ');
        detail += "^ near here";
    }
    return error_at(std::move(where), std::string(message), std::move(detail));
}

const char* Lexer::describe_last_error() const {
    if (last_token_ && *last_token_ == '\t') return "tabs are not allowed, use spaces";
    return "lexing error";
}

Token Lexer::read_token() {
    const char* p = ofs_;
    // The commonest tokens first, with the outcome of the general loop below:
    // '=' after a name, a line's end, and the indent before a binding's name.
    if (*p == '=') {
        last_token_ = p;
        ofs_ = p + 1;
        eat_whitespace();
        return Token::Equals;
    }
    if (*p == '\n') {
        last_token_ = p;
        ofs_ = p + 1;
        return Token::Newline;
    }
    if (*p == ' ') {
        const char* s = p + 1;
        while (*s == ' ')
            ++s;
        if (is_varname_char(*s)) {
            last_token_ = p;
            ofs_ = s;
            return Token::Indent;
        }
    }
    const char* start;
    Token token;
    for (;;) {
        start = p;
        const char* s = p;
        while (*s == ' ')
            ++s;
        if (*s == '#') { // [ ]*"#"[^\000\n]*"\n" is a comment line
            const char* e = s;
            while (*e != '\0' && *e != '\n')
                ++e;
            if (*e == '\n') {
                p = e + 1;
                continue;
            }
        }
        if (*s == '\n') {
            p = s + 1;
            token = Token::Newline;
            break;
        }
        if (*s == '\r' && s[1] == '\n') {
            p = s + 2;
            token = Token::Newline;
            break;
        }
        if (s != p) {
            p = s;
            token = Token::Indent;
            break;
        }
        if (is_varname_char(*p)) {
            while (is_varname_char(*p))
                ++p;
            token = keyword(std::string_view(start, static_cast<size_t>(p - start)));
            break;
        }
        switch (*p) {
        case '=':
            token = Token::Equals;
            break;
        case ':':
            token = Token::Colon;
            break;
        case '|':
            if (p[1] == '@') {
                token = Token::PipeAt;
                ++p;
            } else if (p[1] == '|') {
                token = Token::Pipe2;
                ++p;
            } else {
                token = Token::Pipe;
            }
            break;
        case '\0':
            token = Token::Eof;
            break;
        default:
            token = Token::Error;
            break;
        }
        if (token != Token::Eof) ++p; // never step past the terminating NUL
        break;
    }
    last_token_ = start;
    ofs_ = p;
    if (token != Token::Newline && token != Token::Eof) eat_whitespace();
    return token;
}

bool Lexer::peek_token(Token t) {
    if (read_token() == t) return true;
    unread_token();
    return false;
}

void Lexer::eat_whitespace() {
    const char* p = ofs_;
    for (;;) {
        if (*p == ' ') {
            ++p;
        } else if (p[0] == '$' && p[1] == '\n') {
            p += 2;
        } else if (p[0] == '$' && p[1] == '\r' && p[2] == '\n') {
            p += 3;
        } else {
            break;
        }
    }
    ofs_ = p;
}

bool Lexer::read_ident(std::string_view* out) {
    const char* p = ofs_;
    while (is_varname_char(*p))
        ++p;
    last_token_ = ofs_;
    if (p == ofs_) return false;
    *out = std::string_view(ofs_, static_cast<size_t>(p - ofs_));
    ofs_ = p;
    eat_whitespace();
    return true;
}

template <bool path> Status Lexer::read_eval_string(EvalString* out) {
    // Whole runs of literal text are one part: in a value, ' ', ':' and '|' are
    // plain text (ninja's EvalString merges them into the run too).
    const char* p = ofs_;
    const char* start;
    for (;;) {
        start = p;
        if constexpr (path)
            p = skip_text<'$', ' ', ':', '|', '\r', '\n', '\0'>(p);
        else
            p = skip_text<'$', '\r', '\n', '\0'>(p);
        if (p != start) {
            out->add_text(std::string_view(start, static_cast<size_t>(p - start)));
            start = p;
        }
        switch (*p) {
        case '\r':
            if (p[1] != '\n') {
                last_token_ = start;
                return error(describe_last_error());
            }
            if constexpr (!path) p += 2;
            goto done;
        case '\n':
            if constexpr (!path) ++p;
            goto done;
        case '\0':
            last_token_ = start;
            return error("unexpected EOF");
        case '$':
            break;
        default: // ' ', ':' or '|' ending a path
            goto done;
        }
        // A '$' escape; an escaped character is a view of itself in the text.
        char n = p[1];
        if (n == '$' || n == ' ' || n == ':') {
            out->add_text(std::string_view(p + 1, 1));
            p += 2;
        } else if (n == '\n' || (n == '\r' && p[2] == '\n')) {
            p += n == '\n' ? 2 : 3;
            while (*p == ' ')
                ++p;
        } else if (n == '{') {
            const char* e = p + 2;
            while (is_varname_char(*e))
                ++e;
            if (e == p + 2 || *e != '}') {
                last_token_ = start;
                return error("bad $-escape (literal $ must be written as $$)");
            }
            out->add_variable(std::string_view(p + 2, static_cast<size_t>(e - p - 2)));
            p = e + 1;
        } else if (is_simple_varname_char(n)) {
            const char* e = p + 1;
            while (is_simple_varname_char(*e))
                ++e;
            out->add_variable(std::string_view(p + 1, static_cast<size_t>(e - p - 1)));
            p = e;
        } else {
            last_token_ = start;
            return error("bad $-escape (literal $ must be written as $$)");
        }
    }
done:
    last_token_ = start;
    ofs_ = p;
    if constexpr (path) eat_whitespace();
    return Ok{};
}

template Status Lexer::read_eval_string<true>(EvalString* out);
template Status Lexer::read_eval_string<false>(EvalString* out);

} // namespace phc::ninja
