// Reading a JSON compilation database (compile_commands.json) into checked
// entries: argv (from "arguments" or a split "command"), absolute directory,
// source and output. Every problem is an Error naming the file and the entry;
// a command with shell operators is none (Entry::shell), one the shell would
// expand or cannot split is.
#pragma once

#include "util/error.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace phc::gen {

/// One compile of the database, with every path absolute and normalised.
struct Entry {
    std::size_t index = 0;         ///< position in the JSON array (0-based), for messages
    std::string directory;         ///< where the command runs
    std::vector<std::string> argv; ///< the command as words; argv[0] is the compiler
    /// A "command" that is more than words (`a | b`, `x; y`), as written: it runs
    /// as it is, in `directory`, and `argv` holds only its words; empty otherwise.
    /// (`cd DIR && [NAME=value...] compiler ...` is understood as regen does:
    /// `directory` is then DIR and `argv` the compiler's.)
    std::string shell;
    std::string shell_reason; ///< why `shell` is not a simple command (for --explain)
    std::string file;         ///< the source file
    std::string output;       ///< the object it writes ("output", else the command's -o)
};

/// The entries of one database, in file order.
struct Database {
    std::string path; ///< as given; used in messages
    std::vector<Entry> entries;
};

/// Parses database text. `path` names it in messages; relative "directory"
/// values are resolved against `base_dir` (the database's own directory).
Result<Database> parse_compdb(std::string_view text, const std::string& path,
                              const std::string& base_dir);

/// Reads and parses the database file at `path`.
Result<Database> read_compdb(const std::string& path);

/// The value of the output option (-o X or -oX) in argv, or empty.
std::string find_output_arg(const std::vector<std::string>& argv);

} // namespace phc::gen
