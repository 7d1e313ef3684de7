#include "gen/words.h"

#include "compile/shell.h"

namespace phc::gen {

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

} // namespace phc::gen
