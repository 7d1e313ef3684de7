// Header sets: one deps-log entry per device edge instead of its whole header list.
//
// Every split object has one device edge per architecture, and each needs its
// headers as dependencies (a header only device code reads must rebuild the
// device code). Kept by ninja in .ninja_deps, that is one record of a few
// hundred headers per device edge: what makes a split build slow to load.
// Instead, a device edge's command ends with `phc-ninja deps-set SETS DEPFILE`,
// which reads the depfile the compile wrote and replaces its list by one name,
// phc_s_<hash of the list>, after making sure that SETS (a ninja file the
// rewritten manifest includes) defines it:
//
//     build phc_c_<hash>: phony /usr/include/hip/a.h /usr/include/hip/b.h   # a chunk:
//     build phc_c_<hash>: phony /src/include/x.h                            # one folder
//     build phc_s_<hash>: phony phc_c_<hash> phc_c_<hash>                   # the set
//
// Since ninja 1.11 a phony's time is its newest input's, so the device edge is
// dirty exactly when one of its headers is newer than its output, as with the
// whole list in its record. Sets and chunks are written once for all objects
// and architectures that share them (the architectures of one object almost
// always do; the source, an input of the edge anyway, is left out). The host
// edge's depfile (the original's, deps = gcc) becomes a set the same way.
//
// SETS grows by appends under an flock. Which names it defines is kept in
// SETS.index/: an empty file per set and chunk, the headers' hashes in 256
// files h_<two hex digits>, and SETS.index/size holding the size of SETS they
// describe; whenever that size is not SETS's own (a write that was cut short,
// a lost index), the index is rebuilt from SETS before anything is appended,
// so no name is ever defined twice. An append that fails (a full disk) is
// undone before the lock is released: ninja never reads a cut line, short of
// a power cut in the middle of one, which the next deps-set or regen repairs. Each header is
// declared once, `build <header>: phony` (as CMake declares its own inputs), unless an edge writes
// it (SETS.outputs, from regen): a deleted header is then an input that is missing (a rebuild), not
// an error. Anything unusual (a depfile of several rules, a path with a space, ':', '$' or '\', no
// SETS) leaves the depfile as it is: the edge then records the whole list, correct as before.
#pragma once

#include "util/error.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::depsets {

/// Where the sets of a build directory are (relative to it).
inline constexpr const char* kSetsFile = ".phc-ninja/deps.ninja";

/// A depfile of one rule.
struct Depfile {
    std::string target;
    std::vector<std::string> deps;
};

/// Parses a depfile as clang writes it: "target: dep dep \<newline> dep ...".
/// nullopt for anything else, for paths a ninja statement cannot carry as
/// they are (a space, ':', '$', '|', '#', '\', a control character), and for
/// folders ("/", ".", "dir/").
std::optional<Depfile> parse_depfile(std::string_view text);

/// True when `path` is one a build records (deps-set writes it to SETS.records):
/// a path a ninja statement carries as it is (see parse_depfile), spelled as
/// ninja spells its nodes ("." components, "//" and "dir/.." folded).
bool recordable_path(std::string_view path);

/// The statements that define the set of `deps` (as ninja spells the paths,
/// sorted, duplicates dropped).
struct DepSet {
    struct Chunk {
        std::vector<std::string> paths; ///< one folder's, sorted
        std::string name;               ///< phc_c_<hash>
        std::string line;               ///< "build phc_c_<hash>: phony <paths of one folder>\n"
    };
    std::string name;          ///< phc_s_<hash>
    std::vector<Chunk> chunks; ///< by folder, in order
    std::string line;          ///< "build phc_s_<hash>: phony <chunk names>\n"
};
DepSet make_depset(std::vector<std::string> deps);

/// Replaces the list of `depfile` by its set's name, writing the set into
/// `sets` first when it is new (see above); dependencies that are among the
/// edge's `inputs` (the source) are left out of the set. Leaves the depfile
/// alone when it is unusual, or `sets` or its list of outputs does not exist;
/// an Error only for a failure that may have left `sets` inconsistent with its
/// index (the next run repairs the index). What ninja will record is also
/// appended to SETS.records (records.h), for `output` (the edge's output, when
/// it is not the depfile's target) or the depfile's target.
Status deps_set(const std::string& sets, const std::string& depfile,
                const std::vector<std::string>& inputs = {}, const std::string& output = {});

/// For regen: makes `sets` ready to include: created when missing; a last line
/// cut short is dropped, and any header now among `outputs` (every path an
/// edge of the manifests writes, kept as SETS.outputs); the index is cleared
/// when it does not describe `sets`.
Status prepare_sets(const std::string& sets, std::vector<std::string> outputs);

/// Where and whether a build records header sets.
struct SetsUse {
    std::string self;     ///< phc-ninja's path ("" for none: no sets)
    std::string sets;     ///< the sets file, as the edges' commands name it
    std::string ninja;    ///< the ninja that builds ("" when unknown: no sets)
    bool no_dir = false;  ///< no writable private folder: no sets
    bool dry_run = false; ///< write nothing (the file is still named)
};

/// The sets file (use.sets) in which the step runners of device edges record
/// header sets (deps_set()), or "" to keep whole records: when PHC_REGEN_DEPSETS=0, without
/// phc-ninja's path, without a writable private folder, or when the ninja
/// that builds (regen: CMake's CMAKE_MAKE_PROGRAM, else `ninja` in PATH; gen:
/// `ninja` in PATH) is older than 1.11 (a phony's time is its newest input's
/// only since 1.11) or unknown. The manifest requires 1.11 when sets are used,
/// so an older ninja stops loudly. Unless `dry_run`, prepares the sets file
/// (prepare_sets()) for the paths any edge writes, from `outputs`, which is
/// called only then.
std::string header_sets(const SetsUse& use,
                        const std::function<std::vector<std::string>()>& outputs);

/// `phc-ninja deps-set SETS DEPFILE [INPUT...]` (run by the device and host edges regen writes).
int deps_set_main(int argc, char** argv);

/// The words of `text` between single spaces, empty ones skipped (views into
/// it): a line of deps.ninja or of its records.
std::vector<std::string_view> words_of(std::string_view text);

} // namespace phc::depsets
