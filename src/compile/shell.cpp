#include "compile/shell.h"

#include "util/quote.h"

#include <array>
#include <cctype>

namespace phc::compile {

namespace {

bool is_name_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_operator_char(char c) {
    return c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '(' || c == ')';
}
bool is_blank(char c) {
    return c == ' ' || c == '\t' || c == '\n';
}

/// The lexer's state while it walks the command once, left to right.
class Lexer {
public:
    explicit Lexer(std::string_view s) : s_(s) {}

    ShellSplit run() {
        while (i_ < s_.size() && out_.unsupported.empty()) {
            char c = s_[i_];
            if (is_blank(c)) {
                end_word();
                ++i_;
            } else if (is_operator_char(c) && !in_word_) {
                lex_operator();
            } else if (is_operator_char(c)) {
                end_word();
            } else {
                lex_word_char(c);
            }
        }
        end_word();
        return std::move(out_);
    }

private:
    void fail(std::string why) {
        if (out_.unsupported.empty()) out_.unsupported = std::move(why);
    }

    void start_word() {
        if (in_word_) return;
        in_word_ = true;
        word_.clear();
        name_ok_ = true;
        assignment_ = false;
    }

    void end_word() {
        if (!in_word_) return;
        out_.tokens.push_back({ShellToken::Kind::Word, std::move(word_), assignment_});
        word_.clear();
        in_word_ = false;
    }

    /// Tracks whether the word so far is an unquoted NAME, to spot `NAME=`.
    void literal(char c, bool quoted) {
        if (name_ok_ && !assignment_) {
            if (!quoted && c == '=' && !word_.empty()) {
                assignment_ = true;
            } else if (quoted || !(word_.empty() ? is_name_start(c) : is_name_char(c))) {
                name_ok_ = false;
            }
        }
        word_ += c;
    }

    void lex_operator() {
        static constexpr std::array<std::string_view, 9> kOps = {"&&", "||", ";;", ">>", "<<",
                                                                 ">&", "<&", "<>", ">|"};
        for (auto op : kOps) {
            if (s_.substr(i_, op.size()) == op) {
                out_.tokens.push_back({ShellToken::Kind::Operator, std::string(op), false});
                i_ += op.size();
                return;
            }
        }
        out_.tokens.push_back({ShellToken::Kind::Operator, std::string(1, s_[i_]), false});
        ++i_;
    }

    void lex_word_char(char c) {
        if (!in_word_ && c == '#') return fail("a comment ('#')");
        if (c == '~' &&
            (!in_word_ || (assignment_ && (word_.back() == '=' || word_.back() == ':'))))
            return fail("a tilde expansion ('~')");
        start_word();
        switch (c) {
        case '\'':
            return single_quoted();
        case '"':
            return double_quoted();
        case '\\':
            return backslash();
        case '$':
            return fail("a '$' expansion");
        case '`':
            return fail("a command substitution ('`')");
        case '*':
        case '?':
        case '[':
            return fail(std::string("a glob pattern ('") + c + "')");
        default:
            literal(c, false);
            ++i_;
            if (name_ok_ && !assignment_) return; // still checking for `NAME=`
            // The rest of a run of ordinary characters goes in whole.
            size_t end = i_;
            while (end < s_.size() && kOrdinary[static_cast<unsigned char>(s_[end])])
                ++end;
            word_.append(s_, i_, end - i_);
            i_ = end;
        }
    }

    /// Characters that are literal inside an unquoted word wherever they appear.
    static constexpr std::array<bool, 256> kOrdinary = [] {
        std::array<bool, 256> t{};
        for (int c = 1; c < 256; ++c)
            t[c] = true;
        for (unsigned char c : std::string_view(" \t\n|&;<>()'\"\\$`*?[~#"))
            t[c] = false;
        return t;
    }();

    void single_quoted() {
        size_t end = s_.find('\'', i_ + 1);
        if (end == std::string_view::npos) return fail("an unterminated single quote");
        for (size_t k = i_ + 1; k < end; ++k)
            literal(s_[k], true);
        if (end == i_ + 1) name_ok_ = false;
        i_ = end + 1;
    }

    void double_quoted() {
        name_ok_ = false;
        ++i_;
        while (i_ < s_.size()) {
            char c = s_[i_];
            if (c == '"') {
                ++i_;
                return;
            }
            if (c == '$' || c == '`') return fail("an expansion inside double quotes");
            if (c == '\\' && i_ + 1 < s_.size()) {
                char n = s_[i_ + 1];
                if (n == '\n') {
                    i_ += 2;
                    continue;
                }
                if (n == '$' || n == '`' || n == '"' || n == '\\') {
                    literal(n, true);
                    i_ += 2;
                    continue;
                }
            }
            literal(c, true);
            ++i_;
        }
        fail("an unterminated double quote");
    }

    void backslash() {
        if (i_ + 1 >= s_.size()) {
            ++i_; // a trailing backslash is kept literally by sh -c
            literal('\\', true);
            return;
        }
        char n = s_[i_ + 1];
        i_ += 2;
        if (n == '\n') return; // line continuation
        literal(n, true);
    }

    std::string_view s_;
    size_t i_ = 0;
    ShellSplit out_;
    bool in_word_ = false;
    std::string word_;
    bool name_ok_ = true;
    bool assignment_ = false;
};

/// The characters a word may hold and still need no quotes, as a table.
constexpr std::array<bool, 256> kSafe = [] {
    std::array<bool, 256> t{};
    for (int c = 0; c < 256; ++c)
        t[c] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    for (unsigned char c : kBarePunctuation)
        t[c] = true;
    return t;
}();

bool is_safe_word(std::string_view word) {
    for (char c : word)
        if (!kSafe[static_cast<unsigned char>(c)]) return false;
    return true;
}

/// Appends quote_word(word) to `out`.
void append_quoted(std::string& out, std::string_view word) {
    if (word.empty()) {
        out += "''";
        return;
    }
    if (is_safe_word(word))
        out += word;
    else
        util::append_single_quoted(out, word);
}

bool looks_like_assignment(std::string_view w) {
    size_t eq = w.find('=');
    if (eq == std::string_view::npos || eq == 0 || !is_name_start(w[0])) return false;
    for (size_t k = 1; k < eq; ++k)
        if (!is_name_char(w[k])) return false;
    return true;
}

bool is_keyword(std::string_view w) {
    static constexpr std::array<std::string_view, 16> kWords = {
        "!",    "{",  "}",   "case", "do", "done", "elif",  "else",
        "esac", "fi", "for", "if",   "in", "then", "until", "while"};
    for (auto k : kWords)
        if (w == k) return true;
    return false;
}

} // namespace

ShellSplit split_shell(std::string_view command) {
    return Lexer(command).run();
}

std::string split_words(std::string_view command, std::vector<std::string>& words) {
    ShellSplit s = split_shell(command);
    if (!s.unsupported.empty()) return s.unsupported;
    words.clear();
    for (auto& t : s.tokens) {
        if (t.kind == ShellToken::Kind::Operator) return "a shell operator ('" + t.text + "')";
        words.push_back(std::move(t.text));
    }
    return {};
}

std::string quote_word(std::string_view word) {
    std::string out;
    out.reserve(word.size() + 2);
    append_quoted(out, word);
    return out;
}

std::string join_command(const std::vector<std::string>& argv) {
    size_t size = 0;
    for (const std::string& a : argv)
        size += a.size() + 3;
    std::string out;
    out.reserve(size);
    for (size_t k = 0; k < argv.size(); ++k) {
        if (k) out += ' ';
        const std::string& w = argv[k];
        // A bare word in command position could read as an assignment or a keyword.
        if (k == 0 && !w.empty() && is_safe_word(w) &&
            (looks_like_assignment(w) || is_keyword(w))) {
            out += '\'';
            out += w;
            out += '\'';
        } else {
            append_quoted(out, w);
        }
    }
    return out;
}

std::string quote_assignment(std::string_view assignment) {
    size_t eq = assignment.find('=');
    if (eq == std::string_view::npos) return quote_word(assignment);
    std::string out(assignment.substr(0, eq + 1));
    append_quoted(out, assignment.substr(eq + 1));
    return out;
}

} // namespace phc::compile
