// POSIX shell words: splitting a command string the way `/bin/sh -c` would, and
// quoting argv back. The one place in phc-ninja that knows shell quoting rules
// (ninja/paths.h only reproduces ninja's own $in escaping, through the same
// util/quote.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace phc::compile {

/// One lexical unit of a simple shell command line.
struct ShellToken {
    enum class Kind { Word, Operator };
    Kind kind = Kind::Word;
    std::string text; ///< the word after quote removal, or the operator ("&&", "|", ...)
    bool assignment =
        false; ///< an unquoted `NAME=` prefix: a variable assignment in command position
};

/// The tokens of a command string, or why the shell would do more than split it.
struct ShellSplit {
    std::vector<ShellToken> tokens;
    std::string unsupported; ///< non-empty: expansion/structure we cannot resolve (human text)
};

/// Splits `command` like /bin/sh: quotes, backslashes, operators (| & ; < > ( )).
/// Unquoted `$`, backquotes, globs, `~` and comments make it `unsupported`.
ShellSplit split_shell(std::string_view command);

/// Splits a command that must be plain words (no operators); empty on success,
/// otherwise the reason.
std::string split_words(std::string_view command, std::vector<std::string>& words);

/// Besides ASCII letters and digits, the characters a word may hold and need no
/// quotes (quote_word leaves such words bare; /bin/sh splits them nowhere).
inline constexpr std::string_view kBarePunctuation = "_-./+,:@%=";

/// Quotes one word minimally: unchanged when it is made only of safe characters
/// (letters, digits, kBarePunctuation), otherwise in single quotes ('' for the
/// empty word).
std::string quote_word(std::string_view word);

/// Joins argv into a command string that /bin/sh splits back into exactly argv.
/// argv[0] is quoted when it would otherwise read as an assignment or a keyword.
std::string join_command(const std::vector<std::string>& argv);

/// Renders `NAME=value` with the value quoted as needed.
std::string quote_assignment(std::string_view assignment);

} // namespace phc::compile
