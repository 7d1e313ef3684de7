// The CUID of a split compile: the one value every step of an object passes
// as -cuid= (clang names the object's __hip_cuid_ symbol and its device-side
// statics after it). It must differ between any two objects of one build (a
// duplicate is a `duplicate symbol __hip_cuid_...` at link time, fatal with
// -fgpu-rdc), and it should not depend on where the checkout and the build
// directory are, so that a shared cache (ccache's base_dir and remote storage)
// hits across checkouts and machines. So it hashes the compile as seen from
// inside the build: the working directory relative to the build's root, and
// absolute paths of the checkout made relative to the working directory, as
// ccache's base_dir sees them. Paths elsewhere (/usr/include) are hashed as
// written.
#pragma once

#include "compile/analysis.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::split {

/// Where a compile's paths are seen from when its CUID is made. Both absolute
/// and lexically normal (no "." or ".." parts, no trailing '/').
struct CuidPlace {
    /// The build's root: regen's build directory, gen's ninja file's directory,
    /// the launcher's CCACHE_BASEDIR ("/" without one). Objects are told apart
    /// by their path from here.
    std::string root = "/";
    std::string work_dir = "/"; ///< the directory the compiler runs in
};

/// The place of `a`: its work_dir() made absolute against the current
/// directory; `root` made absolute too, "" meaning `a`'s base_dir (regen and
/// explain: the build directory the commands run in).
CuidPlace cuid_place(const compile::Analysis& a, const std::string& root = "");

/// The CUID of a compile: its explicit -cuid= if any, "" for -fuse-cuid=none,
/// else cuid_of() its object, source, the words at cuid_word_positions() (plan.h) and
/// argv[0], so that adding an architecture changes no other step's command.
std::string make_cuid(const compile::Analysis& a, const CuidPlace& place);

/// make_cuid()'s hash from its parts: the working directory relative to the
/// root, then the object, the source, `words` and `argv0`, each with absolute
/// paths under the checkout (see cuid_base) rewritten relative to the working
/// directory.
std::string cuid_of(const CuidPlace& place, std::string_view output, std::string_view source,
                    const std::vector<std::string_view>& words, std::string_view argv0);

/// The directory whose absolute paths cuid_of() hashes relative to the working
/// directory (the checkout, as far as one command shows it): the deepest
/// directory holding both the root and the source; "" when that is "/".
std::string cuid_base(const CuidPlace& place, std::string_view source);

/// `word` with each absolute path under `base` (where a path can start: at the
/// word's start, after '=', ',' or ':', or after an option name such as -I)
/// rewritten as `rel` (the path from the working directory to `base`) plus the
/// rest of the path. "" base: `word` unchanged.
std::string rebase_word(std::string_view word, std::string_view base, std::string_view rel);

/// The root of a command seen alone (the launcher): ccache's base directory
/// (`ccache_basedir`, the value of CCACHE_BASEDIR) when it is absolute, as
/// ccache relocates only what lies under it; else "/", so the working directory
/// is hashed whole. Either way two directories never give one CUID to the same
/// command.
std::string root_from_basedir(const char* ccache_basedir);

/// `path` made absolute against absolute `dir` and lexically normal.
std::string absolute_normal(const std::string& dir, const std::string& path);

} // namespace phc::split
