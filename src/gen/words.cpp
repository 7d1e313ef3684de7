#include "gen/words.h"

#if __has_include("compile/shell.h")
#include "compile/shell.h"
#define PHC_GEN_HAVE_SHELL 1
#else
#include <cctype>
#endif

namespace phc::gen {

#ifdef PHC_GEN_HAVE_SHELL

Result<std::vector<std::string>> split_command(std::string_view command) {
    std::vector<std::string> words;
    if (auto why = compile::split_words(command, words); !why.empty()) return make_error(why);
    return words;
}

std::string join_command(const std::vector<std::string>& argv) {
    return compile::join_command(argv);
}

std::string quote_word(std::string_view word) {
    return compile::quote_word(word);
}

#else
// Stand-in until src/compile lands: plain words, quotes and backslashes only.

Result<std::vector<std::string>> split_command(std::string_view s) {
    std::vector<std::string> words;
    std::string w;
    bool in_word = false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(w);
            w.clear();
            in_word = false;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            auto end = s.find('\'', i + 1);
            if (end == std::string_view::npos) return make_error("unterminated single quote");
            w += s.substr(i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i; i < s.size() && s[i] != '"'; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) ++i;
                w += s[i];
            }
            if (i >= s.size()) return make_error("unterminated double quote");
        } else if (c == '\\' && i + 1 < s.size()) {
            w += s[++i];
        } else {
            w += c;
        }
    }
    if (in_word) words.push_back(w);
    return words;
}

std::string quote_word(std::string_view word) {
    bool safe = !word.empty();
    for (char c : word)
        if (!(std::isalnum(static_cast<unsigned char>(c)) ||
              std::string_view("@%_-+=:,./").find(c) != std::string_view::npos))
            safe = false;
    if (safe) return std::string(word);
    std::string out = "'";
    for (char c : word)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string join_command(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv)
        out += (out.empty() ? "" : " ") + quote_word(a);
    return out;
}

#endif

} // namespace phc::gen
