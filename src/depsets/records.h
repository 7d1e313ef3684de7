// Restoring the deps records of split edges that a direct `cmake` run dropped.
//
// A `cmake` run by hand (not by ninja's re-run edge) ends with `ninja -t
// recompact` against CMake's own manifest, which keeps only the records of
// edges that manifest has: every device edge's record is gone, and ninja would
// recompile every object's device code once, though nothing changed. So each
// `phc-ninja deps-set` (depsets.h) also appends what ninja is about to record
// for its edge to SETS.records, one line per run:
//
//     <output's mtime, ns> <output> <dependency>...
//
// and regen, after writing the manifest, puts back into .ninja_deps the last
// record of each output the manifest writes that has no record there, when
// the output's mtime is still the recorded one (the record describes the file
// as it is). A lost or stale line only means no record: a rebuild, as without
// this. A line is put back only when a build could have written it
// (restorable()): a damaged one must not give ninja a dependency cycle or a
// record it cannot read. The file keeps the last line of each output when
// regen runs, and when builds in between grow it past 8 MB (compact_if_grown).
// .ninja_deps is only appended to, in ninja's format (ninja/deps_log.h), with one write after the
// last whole record, and never while a ninja builds in the directory: it numbers its own new paths
// from the log as it read it, so ours would make it write ids the log already has, and its next
// load would truncate the log there. Any other version, a damaged log or one that is not a regular
// file is left alone.
#pragma once

#include "ninja/deps_log.h"
#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace phc::depsets {

/// A record as SETS.records keeps it: what ninja would record in .ninja_deps.
using ninja::DepsRecord;

/// One line of SETS.records for `r` ("<mtime> <output> <dep>...\n").
std::string records_line(const DepsRecord& r);

/// The last record of each output in a SETS.records text (malformed lines skipped).
std::unordered_map<std::string, DepsRecord> parse_records(std::string_view text);

/// Whether a build could have recorded `r` and ninja can read it back: its
/// paths are as deps-set writes them (recordable_path), none of its
/// dependencies is a path an edge writes (`written`, sorted: every output of
/// the manifests; a damaged line naming one would be a dependency cycle), and
/// neither the record nor any of its paths is over ninja's record size limit.
bool restorable(const DepsRecord& r, const std::vector<std::string>& written);

/// The id of a process other than this one and its ancestors that runs ninja
/// (or samu) in the current directory, or 0 (read from /proc: a process of
/// another user is not seen).
long ninja_building_here();

/// Rewrites `records_file` (whose content is `text`) with only the last line
/// of each output, of `outputs` (sorted) when given, else of every output, in
/// order, after a first line "# compacted <bytes of the lines>" that
/// compact_if_grown() reads.
Status compact_records(const std::string& records_file, std::string_view text,
                       const std::vector<std::string>* outputs = nullptr);

/// After an append to `records_file`, whose size is now `size`: compacts it
/// when it is past 8 MB and more than twice its size after the last
/// compaction, so that builds between two regens cannot grow it without
/// bound. Skipped while another process compacts it (an flock). A line
/// appended by a concurrent edge while the file is replaced may be lost: that
/// output then has no record to put back, which only costs a rebuild.
void compact_if_grown(const std::string& records_file, long long size);

/// What restore_deps() did.
struct Restored {
    size_t records = 0; ///< records appended to the deps log
    size_t waiting = 0; ///< records not appended while ninja builds here
    long ninja = 0;     ///< that ninja's process id
};

/// Appends to `deps_log` the record of each of `outputs` (sorted, as ninja
/// spells them) that has none there, from `records_file`, when the output's
/// mtime is the recorded one and restorable() against `written` (sorted);
/// then rewrites `records_file` with only the last line of each of `outputs`
/// when it has grown to more than twice that. Nothing is appended while a
/// ninja builds in the current directory (`waiting`, `ninja`). An Error only
/// for a failed write; anything unusual (no deps log, another version, a
/// damaged one) restores nothing.
Result<Restored> restore_deps(const std::string& deps_log, const std::string& records_file,
                              const std::vector<std::string>& outputs,
                              const std::vector<std::string>& written);

/// What put_back_records() did: records appended, or why not (for the summary).
struct PutBack {
    size_t records = 0;
    std::string warning; ///< "" for none
};

/// regen's call once the manifests are written: restore_deps() into
/// `deps_log` from SETS.records, for `outputs` (the split edges', in any
/// order), none naming a path an edge writes (those and SETS.outputs). A
/// failure, or records held back while ninja builds here, is a warning: the
/// build then recompiles what has no record, as it would without this.
PutBack put_back_records(const std::string& sets, const std::string& deps_log,
                         std::vector<std::string> outputs);

} // namespace phc::depsets
