// Reading whole files and replacing files atomically.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>

namespace phc::util {

/// Reads the whole file. Errors name the path and the reason (strerror).
Result<std::string> read_file(const std::string& path);

/// Writes `content` to `path` through a temporary file in the same directory and
/// rename(2), so readers see either the old or the new file, never a half-written one.
/// Keeps the old file's permission bits when it exists (a new file gets 0666 less
/// the umask); a symlink's target is replaced, the link stays.
Status write_file_atomic(const std::string& path, std::string_view content);

/// Writes all of `data` to `fd`, retrying short writes and EINTR. False on error.
bool write_all(int fd, std::string_view data);

/// True when `path` names an existing file (or directory).
bool file_exists(const std::string& path);

/// Creates a directory and its parents (like mkdir -p).
Status make_dirs(const std::string& path);

} // namespace phc::util
