// Reading GNU make's MAKEFLAGS: which jobserver (if any) is advertised, and -jN.
//
// Forms seen in the wild (the last --jobserver-auth/--jobserver-fds wins):
//   --jobserver-auth=fifo:PATH   make >= 4.4, ninja >= 1.13's pool, jobserver_pool.py
//   --jobserver-auth=R,W         make 4.2-4.3: an inherited pipe (read end R, write end W)
//   --jobserver-fds=R,W          make <= 4.1: the same pipe, older spelling
// make also writes " -jN" (N > 1 with a jobserver, "-j1" for -j1, "-j" alone for
// unlimited) and puts flags without arguments in a first word without a dash ("k").
// Words are separated by blanks; a blank inside a word is escaped with '\'.
// sccache hands the flags to compilers as CARGO_MAKEFLAGS and drops MAKEFLAGS.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::launch {

/// The jobserver a make-like parent advertised.
struct JobserverAuth {
    enum class Kind {
        None,    ///< nothing advertised
        Fifo,    ///< a named pipe at `path`
        Pipe,    ///< inherited descriptors `read_fd`, `write_fd`
        Invalid, ///< advertised but not understood (see `text`)
    };
    Kind kind = Kind::None;
    std::string path;
    int read_fd = -1;
    int write_fd = -1;
    std::string text; ///< the option as written, for messages
};

/// What MAKEFLAGS says about parallelism.
struct Makeflags {
    JobserverAuth auth;
    /// -jN: N; -j alone (unlimited): 0; no -j: empty.
    std::optional<int> jobs;
};

/// Splits MAKEFLAGS into words, honouring '\' escapes; stops at " -- " (variables follow).
std::vector<std::string> split_makeflags(std::string_view flags);

/// Parses one MAKEFLAGS value.
Makeflags parse_makeflags(std::string_view flags);

/// Parses the environment's flags: MAKEFLAGS when it advertises a jobserver, else
/// CARGO_MAKEFLAGS when that does, else MAKEFLAGS for its -j. Null means unset.
Makeflags makeflags_from_env(const char* makeflags, const char* cargo_makeflags);

} // namespace phc::launch
