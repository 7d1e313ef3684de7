// Reading whole files and replacing files atomically.
#pragma once

#include "util/error.h"

#include <csignal>
#include <span>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace phc::util {

/// Joins a relative `path` onto `dir` ("" and absolute paths stay as they are).
std::string join_path(const std::string& dir, const std::string& path);

/// The parts of `text` between the `sep` characters ("a,,b" -> "a", "", "b";
/// "" -> one empty part).
std::vector<std::string> split_on(std::string_view text, char sep);

/// The extension of `path`: from the last '.' of its last component ("obj/x.hip"
/// -> ".hip"), or "" when that component has no '.'.
std::string_view extension(std::string_view path);

/// Reads the whole file. Errors name the path and the reason (strerror).
Result<std::string> read_file(const std::string& path);

/// Reads the whole file when it is a regular file (links followed) of at most
/// `max_bytes`, checked before and after the open as the probe cache does: a
/// fifo is never waited on (opened O_NONBLOCK), a /dev/zero-like node never
/// read, a file that grows past the limit meanwhile refused. Errors name the
/// path: "not a regular file", "larger than N bytes", or the reason (strerror).
Result<std::string> read_regular_file(const std::string& path, size_t max_bytes);

/// Writes `content` to `path`. Only regular files are ever replaced, and a
/// user's file is never left half-written. What happens depends on what `path`
/// is (lstat):
/// - missing: created through a temporary file in the same directory and
///   rename(2) (0666 less the umask);
/// - a regular file: replaced the same way, so readers see either the old or the
///   new file; its permission bits are kept;
/// - a symlink (or a chain of them) to a regular file: that final target is
///   replaced the same way; the links stay;
/// - a character device or a fifo, directly or through links (/dev/null,
///   /dev/stdout -> /proc/self/fd/1 -> a pipe): written through (opened
///   O_WRONLY|O_NOCTTY, never created, truncated or renamed over);
/// - a link whose target is missing or cannot be resolved, a directory, a block
///   device, a socket, anything else: refused, with a one-line error naming `path`.
/// The temporary file is "<target>.phc-tmp-" and six letters. SIGINT, SIGTERM,
/// SIGHUP and SIGQUIT are blocked in the calling thread from its creation to its
/// rename or removal, so a stop signal takes effect only after that (other
/// threads must not be running with those signals unblocked and their default
/// action). Temporaries of that exact naming next to the target that are older
/// than 60 seconds (left by SIGKILL or a power cut) are removed first.
Status write_file_atomic(const std::string& path, std::string_view content);

/// write_file_atomic() of the concatenation of `pieces`, written with writev(2) so
/// a large text made of many parts is never copied into one string.
Status write_file_atomic(const std::string& path, std::span<const std::string_view> pieces);

/// Whether write_file_atomic() waits for the data to reach the disk (fsync)
/// before the rename. Without it the replacement is still atomic for readers and
/// against the writer being interrupted; only a power loss may lose it.
enum class Sync { Disk, None };

/// write_file_atomic() of `pieces`, choosing whether to fsync.
Status write_file_atomic(const std::string& path, std::span<const std::string_view> pieces,
                         Sync sync);

/// What write_file_atomic() does with a path (see there).
enum class WriteMode {
    Create,  ///< missing: a new regular file
    Replace, ///< a regular file, or links to one: the file is replaced by rename(2)
    Through, ///< a character device or fifo, also through links: written into
};

/// How write_file_atomic() would treat `path` now, or the error it would refuse
/// it with; for checking an output before any work is done.
Result<WriteMode> write_mode(const std::string& path);

/// Which file a path names, to tell whether two paths name the same file: the
/// device and inode when it exists (links followed; a path the kernel cannot
/// resolve is tried lexically normalised, "a/missing/../b" as "a/b"), else the
/// normalised absolute path. Equal ids: the same file (or place, when missing).
struct FileId {
    bool exists = false;
    dev_t dev = 0;
    ino_t ino = 0;
    std::string path; ///< only when it does not exist
    bool operator==(const FileId&) const = default;
};

/// The FileId of `path` (relative paths against the current directory).
FileId file_id(const std::string& path);

/// True when `path` is "-" or names the file standard output is (the same
/// device and inode: /dev/stdout, a file stdout is redirected to).
bool is_stdout(const std::string& path);

/// True when `path` is a regular file holding exactly the concatenation of `pieces`.
/// A size that differs answers without reading; otherwise the file is compared
/// through a fixed buffer. Any error (missing, unreadable) answers false.
bool file_holds(const std::string& path, std::span<const std::string_view> pieces);

/// Blocks the signals that ask a process to stop (SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT) in this thread while it lives; one that arrives meanwhile is
/// delivered when the old mask comes back (write_file_atomic: after the
/// temporary file is renamed or removed; regen's sets: after an append and its
/// index entries).
class StopSignalsHeld {
public:
    StopSignalsHeld() {
        sigset_t set;
        sigemptyset(&set);
        for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT})
            sigaddset(&set, sig);
        ::pthread_sigmask(SIG_BLOCK, &set, &old_);
    }
    ~StopSignalsHeld() { ::pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
    StopSignalsHeld(const StopSignalsHeld&) = delete;
    StopSignalsHeld& operator=(const StopSignalsHeld&) = delete;

private:
    sigset_t old_;
};

/// Writes all of `data` to `fd`, retrying short writes and EINTR. False on error.
bool write_all(int fd, std::string_view data);

/// Writes the concatenation of `pieces` to `fd` with writev(2), IOV_MAX pieces a
/// call, retrying short writes and EINTR. Empty pieces are allowed. False on error.
bool write_all(int fd, std::span<const std::string_view> pieces);

/// True when `path` names an existing file (or directory).
bool file_exists(const std::string& path);

/// Creates a directory and its parents (like mkdir -p).
Status make_dirs(const std::string& path);

/// Makes `path` a folder of this user's alone: created mode 0700 when missing
/// (its parents as make_dirs does), then refused unless it is a real folder
/// (not a symbolic link) owned by this user and writable by no one else. For
/// a folder in a place others may write to (/tmp): errors name `path` and say
/// which of these it is not.
Status make_user_dir(const std::string& path);

/// The user's cache folder: $XDG_CACHE_HOME, else $HOME/.cache, else "".
std::string user_cache_dir();

} // namespace phc::util
