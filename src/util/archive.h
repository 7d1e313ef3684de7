// A reader of Unix `ar` archives (static libraries): each member's name and
// bytes. Just what the build-time plan of a new-driver RDC link needs to find
// the member whose device code clang-linker-wrapper names; it never writes.
//
// The format (System V / GNU, as GNU ar and llvm-ar write it; `man 5 ar`):
// the magic "!<arch>\n", then members, each a 60-byte header (name 16 bytes,
// date 12, uid 6, gid 6, mode 8, size 10 in decimal, then "`\n") and `size`
// bytes, padded to an even offset. Names end in '/' ("b.o/"); "/" and
// "/SYM64/" are symbol tables and "//" holds long names, which members name
// as "/<offset>" (each ended by "/\n"). BSD archives name a member "#1/<n>"
// and put its n-byte name first in its bytes. Thin archives ("!<thin>\n"),
// whose members are other files, are refused.
#pragma once

#include "util/error.h"

#include <string>
#include <string_view>
#include <vector>

namespace phc::util::ar {

/// One member: a view into the archive's bytes, which the caller keeps alive.
struct Member {
    std::string name;      ///< as stored ("b.hip.o"), without the GNU '/'
    std::string_view data; ///< its bytes
};

/// True when `bytes` starts with an archive's magic (thin archives included).
bool is_archive(std::string_view bytes);

/// The members of `bytes`, in order (symbol and long-name tables left out).
/// An Error naming the offset for a thin archive or anything cut short.
Result<std::vector<Member>> members(std::string_view bytes);

} // namespace phc::util::ar
