// Response files (`@file`): expanded, so that the analysis and the plan see
// every argument; the steps of a command that read one write their own.
#pragma once

#include <string>
#include <vector>

namespace phc::compile {

/// Where the contents of response files come from.
struct RspSource {
    std::string base_dir;        ///< directory that relative @file paths are read from
    std::string rspfile;         ///< ninja's `rspfile` name (as written in the command), or ""
    std::string rspfile_content; ///< ninja's `rspfile_content`, used for `@<rspfile>`
};

/// argv with every `@file` replaced by its words, and where each word came from.
struct Expanded {
    std::vector<std::string> argv;
    std::vector<bool> from_rsp; ///< per word of argv: it came from a response file
    bool nested = false;        ///< a response file names another response file
    /// Non-empty: why a response file could not be read (human text). The
    /// command is then left alone (Reason::ResponseFile): a decision, not an error.
    std::string unreadable;
};

/// Splits response-file text the way clang does on Linux (GNU rules: blanks
/// separate, quotes group, backslash escapes).
std::vector<std::string> split_rsp(const std::string& text);

/// Expands `@file` words of argv[1..] (recursively, at most 16 levels). Only
/// regular files of at most 64 MB are read; anything else is `unreadable`.
Expanded expand_rsp(const std::vector<std::string>& argv, const RspSource& src);

} // namespace phc::compile
