#include "depsets/depsets.h"

#include "compile/shell.h"
#include "depsets/records.h"
#include "ninja/paths.h"
#include "ninja/version.h"
#include "util/args.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/lock.h"
#include "util/settings.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>
#include <unordered_set>

namespace phc::depsets {

namespace {

constexpr std::string_view kHeader =
    "# phc-ninja: header sets of the split device compiles (src/regen/depsets.h).\n"
    "# Written by the builds; regen keeps it. Do not edit. Should ninja ever fail\n"
    "# to read this file (its last line cut short by a power cut), run\n"
    "# `phc-ninja regen` in the folder above this one: it drops that line.\n";

/// Larger depfiles are not ours to read (100,000 headers take about 6 MB).
constexpr size_t kMaxDepfileBytes = 64u << 20;
/// Nor larger files of .phc-ninja/ (the sets, their outputs and index).
constexpr size_t kMaxStateBytes = 512u << 20;

/// Whether a ninja statement can carry `path` as it is.
bool plain_path(std::string_view path) {
    if (path.empty()) return false;
    for (char c : path) {
        auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u == 0x7f || c == ' ' || c == ':' || c == '$' || c == '|' || c == '#' ||
            c == '\\')
            return false;
    }
    return true;
}

/// True for the names of sets and chunks (phc_s_<hash>, phc_c_<hash>).
bool own_name(std::string_view name) {
    return name.size() == 22 && (name.starts_with("phc_s_") || name.starts_with("phc_c_")) &&
           name.find_first_not_of("0123456789abcdef", 6) == std::string_view::npos;
}

/// The headers the sets file declares, as the index keeps them: by a hash of
/// the path, in 256 files (SETS.index/h_<first two hex digits>, one hash a
/// line) read only when needed. (Sets and chunks have an empty file each; one
/// per header made a depfile of 100,000 headers cost 100,000 file creations.)
class HeaderIndex {
public:
    explicit HeaderIndex(std::string index) : index_(std::move(index)) {}

    static std::string hash(std::string_view path) { return util::Hasher().add(path).hex64(); }

    /// Whether the index has (or this run added) the header of hash `h`.
    bool has(const std::string& h) {
        auto [it, fresh] = buckets_.try_emplace(h.substr(0, 2));
        if (fresh)
            if (auto text = util::read_regular_file(file(h), kMaxStateBytes))
                for (std::string_view line : words_of_lines(*text))
                    it->second.known.emplace(line);
        return it->second.known.count(h) != 0;
    }
    /// Adds the header of hash `h` (after has() said no); written by save().
    void add(const std::string& h) {
        Bucket& b = buckets_[h.substr(0, 2)];
        b.known.insert(h);
        b.added += h + "\n";
    }
    /// Appends the added hashes to their files.
    Status save() {
        for (auto& [key, b] : buckets_) {
            if (b.added.empty()) continue;
            const std::string path = index_ + "/h_" + key;
            util::Fd fd =
                util::open_fd(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_NOCTTY);
            if (!fd.valid() || !util::write_all(fd.get(), b.added))
                return error_at(path, std::strerror(errno));
            b.added.clear();
        }
        return Ok{};
    }

private:
    struct Bucket {
        std::unordered_set<std::string> known;
        std::string added;
    };
    std::string file(const std::string& h) const { return index_ + "/h_" + h.substr(0, 2); }
    static std::vector<std::string_view> words_of_lines(std::string_view text) {
        std::vector<std::string_view> out;
        for (size_t at = 0; at < text.size();) {
            size_t nl = std::min(text.find('\n', at), text.size());
            if (nl > at) out.push_back(text.substr(at, nl - at));
            at = nl + 1;
        }
        return out;
    }
    std::string index_;
    std::map<std::string, Bucket> buckets_;
};

/// Sorted output paths of the manifests (what regen wrote), for declaring
/// headers: a path some edge writes must not be declared again. The paths are
/// views into `text`, so an Outputs is never copied or moved (a short string's
/// bytes move with it and the views would dangle).
struct Outputs {
    std::string text;
    std::vector<std::string_view> paths;

    Outputs() = default;
    Outputs(const Outputs&) = delete;
    Outputs& operator=(const Outputs&) = delete;
    bool has(std::string_view p) const { return std::binary_search(paths.begin(), paths.end(), p); }
};

/// Reads SETS.outputs into `o`; false when it cannot be read.
bool load_outputs(const std::string& path, Outputs& o) {
    auto text = util::read_regular_file(path, kMaxStateBytes);
    if (!text) return false;
    o.text = std::move(*text);
    o.paths.clear();
    for (size_t at = 0; at < o.text.size();) {
        size_t nl = o.text.find('\n', at);
        if (nl == std::string::npos) nl = o.text.size();
        if (nl > at) o.paths.push_back(std::string_view(o.text).substr(at, nl - at));
        at = nl + 1;
    }
    if (!std::is_sorted(o.paths.begin(), o.paths.end())) std::sort(o.paths.begin(), o.paths.end());
    return true;
}

bool exists(const std::string& path) {
    return ::access(path.c_str(), F_OK) == 0;
}

/// An error when `path` is there but no regular file (links followed): the
/// files of .phc-ninja/ are only ever read and replaced as regular files.
Status regular_or_missing(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
        return error_at(path, "not a regular file");
    return Ok{};
}

/// Opens `path` to append to it when it is a regular file (never waiting on a
/// fifo); none otherwise.
util::Fd open_append(const std::string& path, int flags = 0) {
    util::Fd fd = util::open_fd(path, O_WRONLY | O_APPEND | O_NONBLOCK | O_NOCTTY | flags);
    struct stat st {};
    if (fd.valid() && (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))) fd.reset();
    return fd;
}

/// Creates an empty file (an index entry); true when it exists afterwards.
bool touch(const std::string& path) {
    return util::open_fd(path, O_WRONLY | O_CREAT | O_NONBLOCK | O_NOCTTY).valid();
}

/// The size of the sets file that `index` describes, or -1.
long long covered(const std::string& index) {
    auto text = util::read_regular_file(index + "/size", 64);
    if (!text || text->empty()) return -1;
    long long n = 0;
    for (char c : *text) {
        if (c == '\n') break;
        if (c < '0' || c > '9') return -1;
        n = n * 10 + (c - '0');
    }
    return n;
}

Status set_covered(const std::string& index, long long size) {
    return util::write_file_atomic(index + "/size", std::to_string(size) + "\n");
}

/// Removes every entry of the index folder (made when missing).
Status clear_index(const std::string& index) {
    if (auto st = util::make_dirs(index); !st) return st;
    DIR* dir = ::opendir(index.c_str());
    if (!dir) return error_at(index, std::strerror(errno));
    std::vector<std::string> names;
    while (dirent* e = ::readdir(dir)) {
        std::string_view n = e->d_name;
        if (n != "." && n != "..") names.emplace_back(n);
    }
    ::closedir(dir);
    for (const std::string& n : names)
        ::unlink((index + "/" + n).c_str());
    return Ok{};
}

/// The names `text` (a sets file) defines, and how much of it is whole lines.
std::vector<std::string_view> defined_names(std::string_view text, size_t* whole) {
    std::vector<std::string_view> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t nl = text.find('\n', at);
        if (nl == std::string_view::npos) break;
        std::string_view line = text.substr(at, nl - at);
        at = nl + 1;
        if (!line.starts_with("build ")) continue;
        size_t colon = line.find(':');
        if (colon != std::string_view::npos) out.push_back(line.substr(6, colon - 6));
    }
    *whole = at;
    return out;
}

/// Makes the index describe the sets file open as `fd` (locked, `size` bytes),
/// dropping a last line cut short.
Status rebuild_index(const std::string& sets, const std::string& index, int fd, long long* size) {
    auto text = util::read_regular_file(sets, kMaxStateBytes);
    if (!text) return text.error();
    size_t whole = 0;
    auto names = defined_names(*text, &whole);
    if (whole != text->size()) {
        if (::ftruncate(fd, static_cast<off_t>(whole)) != 0)
            return error_at(sets, std::strerror(errno));
    }
    if (auto st = clear_index(index); !st) return st;
    HeaderIndex headers(index);
    for (std::string_view n : names) {
        if (!own_name(n)) {
            if (std::string h = HeaderIndex::hash(n); !headers.has(h)) headers.add(h);
            continue;
        }
        if (!touch(index + "/" + std::string(n)))
            return error_at(fmt::format("{}/{}", index, n), std::strerror(errno));
    }
    if (auto st = headers.save(); !st) return st;
    *size = static_cast<long long>(whole);
    return set_covered(index, *size);
}

/// Appends what `set` needs to the sets file (open as `fd`, locked) and indexes
/// it: its new headers (each as a phony of no inputs, unless an edge writes it,
/// so that a deleted header is a missing input, not an error), new chunks, the set.
Status append_set(const std::string& sets, const std::string& index, int fd, const DepSet& set,
                  const Outputs& outputs) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return error_at(sets, std::strerror(errno));
    long long size = st.st_size;
    if (covered(index) != size)
        if (auto rebuilt = rebuild_index(sets, index, fd, &size); !rebuilt) return rebuilt;
    if (exists(index + "/" + set.name)) return Ok{}; // another compile added it meanwhile
    std::string text;
    std::vector<std::string> names; // of the new chunks and the set
    HeaderIndex headers(index);
    for (const auto& c : set.chunks) {
        if (exists(index + "/" + c.name)) continue;
        for (const std::string& h : c.paths) {
            if (outputs.has(h)) continue;
            if (std::string hash = HeaderIndex::hash(h); !headers.has(hash)) {
                text.append("build ").append(h).append(": phony\n");
                headers.add(hash);
            }
        }
    }
    for (const auto& c : set.chunks) {
        if (exists(index + "/" + c.name)) continue;
        text += c.line;
        names.push_back(c.name);
    }
    text += set.line;
    names.push_back(set.name);
    util::StopSignalsHeld held; // the lines, their index entries and the covered size go together
    if (!util::write_all(fd, text)) {
        // A full disk (or a file size limit) cut the append short: undo it, so
        // that ninja never reads a cut line. Should that fail too, the index no
        // longer covers the file, and the next deps-set (or regen) drops the
        // cut line before anything else.
        const std::string why = std::strerror(errno);
        const bool undone = ::ftruncate(fd, static_cast<off_t>(size)) == 0;
        return error_at(sets, fmt::format("cannot append: {}{}", why,
                                          undone ? " (undone)" : "; run `phc-ninja regen`"));
    }
    if (auto saved = headers.save(); !saved) return saved;
    for (const std::string& n : names)
        if (!touch(index + "/" + n))
            return error_at(fmt::format("{}/{}", index, n), std::strerror(errno));
    return set_covered(index, size + static_cast<long long>(text.size()));
}

/// Appends what ninja is about to record for `target` to SETS.records
/// (records.h), in one write: lines of concurrent edges never mix. Nothing
/// when the target cannot be stat'ed or there is no .phc-ninja/ folder.
void remember_record(const std::string& sets, std::string target, std::vector<std::string> deps) {
    // A line is words split on spaces: an output a depfile could not carry has none.
    if (!plain_path(target) || !exists(sets)) return;
    const int64_t mtime = ninja::mtime_ns(target);
    if (mtime < 0) return;
    DepsRecord r{std::move(target), mtime, std::move(deps)};
    const std::string records = sets + ".records";
    util::Fd fd = open_append(records, O_CREAT);
    if (!fd.valid()) return;
    const bool written = util::write_all(fd.get(), records_line(r));
    struct stat now;
    const bool grown = written && ::fstat(fd.get(), &now) == 0;
    fd.reset();
    if (grown) compact_if_grown(records, static_cast<long long>(now.st_size));
}

} // namespace

bool recordable_path(std::string_view path) {
    // "/" is no node ninja records: it spells it "".
    return plain_path(path) && ninja::canonicalize_path(path) == path && path != ".";
}

std::optional<Depfile> parse_depfile(std::string_view text) {
    // Join continued lines; any other backslash is an escape we do not carry.
    std::string joined;
    joined.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\') {
            if (i + 1 < text.size() && text[i + 1] == '\n') {
                joined += ' ';
                ++i;
                continue;
            }
            if (i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') {
                joined += ' ';
                i += 2;
                continue;
            }
            return std::nullopt;
        }
        joined += c == '\r' ? ' ' : c;
    }
    // One rule: one line with text (blank lines around it are fine).
    std::string_view rule;
    for (size_t at = 0; at < joined.size();) {
        size_t nl = joined.find('\n', at);
        std::string_view line =
            std::string_view(joined).substr(at, nl == std::string::npos ? nl : nl - at);
        at = nl == std::string::npos ? joined.size() : nl + 1;
        if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
        if (!rule.empty()) return std::nullopt;
        rule = line;
    }
    size_t colon = rule.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    Depfile d;
    auto words = [](std::string_view s) {
        std::vector<std::string> out;
        for (size_t at = 0; at < s.size();) {
            size_t start = s.find_first_not_of(" \t", at);
            if (start == std::string_view::npos) break;
            size_t end = s.find_first_of(" \t", start);
            if (end == std::string_view::npos) end = s.size();
            out.emplace_back(s.substr(start, end - start));
            at = end;
        }
        return out;
    };
    auto targets = words(rule.substr(0, colon));
    if (targets.size() != 1 || !plain_path(targets[0])) return std::nullopt;
    d.target = std::move(targets[0]);
    d.deps = words(rule.substr(colon + 1));
    for (const std::string& dep : d.deps) {
        if (!plain_path(dep)) return std::nullopt;
        // A folder is no header ("/", ".", "dir/", "a/..", "/a/..", which ninja
        // spells ""): keep such a list whole.
        std::string c = ninja::canonicalize_path(dep);
        if (dep.ends_with('/') || c.empty() || c == ".") return std::nullopt;
    }
    return d;
}

DepSet make_depset(std::vector<std::string> deps) {
    for (std::string& d : deps)
        d = ninja::canonicalize_path(d);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    std::map<std::string_view, std::vector<std::string_view>> by_folder;
    for (const std::string& p : deps) {
        size_t slash = p.rfind('/');
        by_folder[std::string_view(p).substr(0, slash == std::string::npos ? 0 : slash)].push_back(
            p);
    }
    DepSet set;
    util::Hasher whole;
    for (const auto& [folder, paths] : by_folder) {
        util::Hasher h;
        for (std::string_view p : paths)
            h.add(p);
        DepSet::Chunk c;
        c.paths.assign(paths.begin(), paths.end());
        c.name = "phc_c_" + h.hex64();
        c.line = "build " + c.name + ": phony";
        for (std::string_view p : paths) {
            c.line += ' ';
            c.line += p;
        }
        c.line += '\n';
        whole.add(c.name);
        set.chunks.push_back(std::move(c));
    }
    set.name = "phc_s_" + whole.hex64();
    set.line = "build " + set.name + ": phony";
    for (const auto& c : set.chunks)
        set.line += " " + c.name;
    set.line += '\n';
    return set;
}

Status deps_set(const std::string& sets, const std::string& depfile,
                const std::vector<std::string>& inputs, const std::string& output) {
    // Only a regular file of a sane size: a fifo would hang the build, a
    // /dev/zero-like node would eat its memory.
    auto text = util::read_regular_file(depfile, kMaxDepfileBytes);
    if (!text) return exists(depfile) ? Status(text.error()) : Ok{}; // none: nothing to share
    auto d = parse_depfile(*text);
    if (!d) return Ok{};
    // The edge's own inputs are its dependencies anyway (the source): leaving
    // them out lets every object with the same headers share one set.
    std::vector<std::string> deps;
    for (const std::string& dep : d->deps) {
        std::string c = ninja::canonicalize_path(dep);
        bool input = std::any_of(inputs.begin(), inputs.end(), [&](const std::string& in) {
            return ninja::canonicalize_path(in) == c;
        });
        if (!input) deps.push_back(std::move(c));
    }
    if (deps.empty()) {
        // The depfile stays; ninja records its list.
        std::vector<std::string> all;
        for (const std::string& dep : d->deps)
            all.push_back(ninja::canonicalize_path(dep));
        remember_record(sets, ninja::canonicalize_path(output.empty() ? d->target : output),
                        std::move(all));
        return Ok{};
    }
    const DepSet set = make_depset(std::move(deps));
    const std::string index = sets + ".index";
    if (!exists(index + "/" + set.name)) {
        // Headers may be declared only knowing what the manifest writes.
        Outputs outputs;
        if (!load_outputs(sets + ".outputs", outputs)) return Ok{};
        util::FileLock file(open_append(sets), sets);
        if (file.fd() < 0) return Ok{}; // no sets file (regen did not make one): keep the list
        (void)file.lock(); // where flock is refused (ENOLCK), appends go ahead as before
        if (Status st = append_set(sets, index, file.fd(), set, outputs); !st) return st;
    }
    const std::string rewritten = d->target + ": " + set.name + "\n";
    util::Fd fd = util::open_fd(depfile, O_WRONLY | O_TRUNC | O_NONBLOCK | O_NOCTTY);
    if (!fd.valid() || !util::write_all(fd.get(), rewritten))
        return error_at(depfile, std::string("cannot rewrite: ") + std::strerror(errno));
    fd.reset();
    remember_record(sets, ninja::canonicalize_path(output.empty() ? d->target : output),
                    {set.name});
    return Ok{};
}

Status prepare_sets(const std::string& sets, std::vector<std::string> outputs) {
    const std::string index = sets + ".index";
    size_t slash = sets.rfind('/');
    if (slash != std::string::npos)
        if (auto st = util::make_dirs(sets.substr(0, slash)); !st) return st;
    for (const std::string& f : {sets, sets + ".outputs"})
        if (auto st = regular_or_missing(f); !st) return st;
    for (std::string& o : outputs)
        o = ninja::canonicalize_path(o);
    std::sort(outputs.begin(), outputs.end());
    outputs.erase(std::unique(outputs.begin(), outputs.end()), outputs.end());
    std::string listed;
    for (const std::string& o : outputs)
        if (o.find('\n') == std::string::npos) listed += o + "\n";
    if (auto was = util::read_regular_file(sets + ".outputs", kMaxStateBytes);
        !was || *was != listed)
        if (auto st = util::write_file_atomic(sets + ".outputs", listed); !st) return st;
    auto written = [&](std::string_view path) {
        return std::binary_search(outputs.begin(), outputs.end(), path);
    };
    std::string keep;
    bool reset = true, changed = false;
    size_t whole = 0;
    if (auto text = util::read_regular_file(sets, kMaxStateBytes)) {
        // Keep only whole lines of the shapes deps_set() writes, and no header
        // that an edge now writes (CMake re-ran: it would be defined twice).
        reset = false;
        std::unordered_set<std::string_view> declared, listed_in_chunks;
        size_t at = 0;
        while (at < text->size()) {
            size_t nl = text->find('\n', at);
            if (nl == std::string::npos) break;
            std::string_view line = std::string_view(*text).substr(at, nl - at);
            at = nl + 1;
            const bool chunk = line.starts_with("build phc_c_") && line.find(": phony") == 28;
            const bool own =
                chunk || (line.starts_with("build phc_s_") && line.find(": phony") == 28);
            const bool header = line.starts_with("build ") && line.ends_with(": phony") &&
                                line.find(':') == line.size() - 7;
            if (header && written(line.substr(6, line.size() - 13))) {
                changed = true;
                continue;
            }
            if (!line.empty() && line[0] != '#' && !own && !header) {
                reset = true;
                break;
            }
            if (header) declared.insert(line.substr(6, line.size() - 13));
            if (chunk)
                for (std::string_view h : words_of(line.substr(35)))
                    listed_in_chunks.insert(h);
            keep.append(line).append("\n");
        }
        whole = at;
        if (!reset) {
            // A header that an edge wrote when its chunk was made is declared
            // by nothing once no edge writes it (CMake re-ran without that
            // edge): declare it now, so that its absence is a rebuild, not
            // "missing and no known rule to make it".
            std::vector<std::string_view> orphans;
            for (std::string_view h : listed_in_chunks)
                if (declared.count(h) == 0 && !written(h)) orphans.push_back(h);
            std::sort(orphans.begin(), orphans.end());
            for (std::string_view h : orphans)
                keep.append("build ").append(h).append(": phony\n");
            changed = changed || !orphans.empty();
        }
        if (!reset && !changed && whole == text->size() &&
            covered(index) == static_cast<long long>(whole))
            return Ok{}; // whole, and the index describes it
        if (reset) keep.clear();
    }
    if (keep.empty()) keep = std::string(kHeader);
    if (auto st = clear_index(index); !st) return st;
    if (auto st = util::write_file_atomic(sets, keep); !st) return st;
    return Ok{}; // the next deps-set rebuilds the index from the file
}

std::string header_sets(const SetsUse& use,
                        const std::function<std::vector<std::string>()>& outputs) {
    if (util::get("PHC_REGEN_DEPSETS") == "0" || use.self.empty() || use.no_dir) return {};
    if (use.ninja.empty() || ninja::version_of(use.ninja) < std::pair{1, 11}) return {};
    if (!use.dry_run)
        if (auto st = prepare_sets(use.sets, outputs()); !st) return {};
    return use.sets;
}

int deps_set_main(int argc, char** argv) {
    std::string output;
    util::CommandLine cl{"phc-ninja deps-set",
                         "SETS DEPFILE [INPUT...] [--output=OUTPUT]",
                         "(run by the device and host edges phc-ninja writes after their "
                         "compile) replaces DEPFILE's list of headers by the name of one shared "
                         "set, defined in SETS unless it is there already; INPUTs (the edge's "
                         "source) stay out of the set. A failure leaves the depfile whole.",
                         {},
                         {},
                         true};
    cl.options = {util::text_option({"--output"}, "OUTPUT",
                                    "the edge's output, when the depfile names another", output)};
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (parsed.positional.size() < 2) return util::usage_error(cl, "SETS and DEPFILE are needed");
    const std::vector<std::string> inputs(parsed.positional.begin() + 2, parsed.positional.end());
    // A file size limit must make an append fail (and be undone), not kill us mid-write.
    std::signal(SIGXFSZ, SIG_IGN);
    // A failure keeps the depfile's whole list, which is correct: warn, never fail the build.
    if (auto st = deps_set(parsed.positional[0], parsed.positional[1], inputs, output); !st)
        std::fprintf(stderr, "phc-ninja deps-set: warning: %s\n", st.error().text().c_str());
    return 0;
}

std::vector<std::string_view> words_of(std::string_view text) {
    std::vector<std::string_view> out;
    for (size_t at = 0; at <= text.size();) {
        size_t sp = std::min(text.find(' ', at), text.size());
        if (sp > at) out.push_back(text.substr(at, sp - at));
        at = sp + 1;
    }
    return out;
}

} // namespace phc::depsets
