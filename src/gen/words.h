// The one seam between the compilation database and shell syntax: a "command"
// string becomes argv through phc::compile's shell splitter.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::gen {

/// Splits a database "command" string into words the way /bin/sh would. An
/// Error (message text only, no location) when it uses more than plain words.
Result<std::vector<std::string>> split_command(std::string_view command);

/// Renders argv as one /bin/sh command string that splits back to argv.
std::string join_command(const std::vector<std::string>& argv);

/// Quotes one word for /bin/sh.
std::string quote_word(std::string_view word);

} // namespace phc::gen
