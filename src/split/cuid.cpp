#include "split/cuid.h"

#include "split/plan.h"
#include "util/hash.h"

#include <filesystem>

namespace phc::split {

namespace {

/// True when absolute `p` needs no lexical normalisation (the common case: a
/// cheap check, as regen hashes one CUID per edge).
bool is_normal(std::string_view p) {
    if (p.size() > 1 && p.back() == '/') return false;
    for (size_t k = 0; k + 1 < p.size(); ++k) {
        if (p[k] != '/') continue;
        std::string_view rest = p.substr(k + 1);
        if (rest.starts_with('/') || rest == "." || rest.starts_with("./") || rest == ".." ||
            rest.starts_with("../"))
            return false;
    }
    return true;
}

/// The length of the longest common directory prefix of normal absolute `a`
/// and `b` (0 for "/" only).
size_t common_length(std::string_view a, std::string_view b) {
    size_t n = 0, i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) {
        ++i;
        if ((i == a.size() || a[i] == '/') && (i == b.size() || b[i] == '/')) n = i;
    }
    return n == 1 ? 0 : n; // "/" alone is no common directory
}

/// The path from normal absolute directory `from` to normal absolute `to`,
/// lexically ("." when they are the same).
std::string relative_path(std::string_view from, std::string_view to) {
    if (from == to) return ".";
    size_t c = common_length(from, to);
    std::string out;
    // Each component of `from` below the common directory is one "..".
    std::string_view up = from.substr(c);
    for (char ch : up)
        if (ch == '/') out += out.empty() ? ".." : "/..";
    std::string_view down = to.substr(c);
    if (!down.empty() && down[0] == '/') down.remove_prefix(1);
    if (!down.empty()) out += out.empty() ? std::string(down) : "/" + std::string(down);
    return out.empty() ? "." : out;
}

/// The directory part of normal absolute `p` ("/a/b" -> "/a", "/a" -> "/").
std::string_view dir_part(std::string_view p) {
    size_t slash = p.rfind('/');
    return slash == 0 || slash == std::string_view::npos ? std::string_view("/")
                                                         : p.substr(0, slash);
}

/// Options whose value, joined to them, is a path ("-I/usr/include").
constexpr std::string_view kJoinedPathOptions[] = {
    "-B",         "-F",       "-I",       "-L",      "-MF",       "-MQ",      "-MT",
    "-idirafter", "-imacros", "-include", "-iquote", "-isysroot", "-isystem", "-o"};

/// True when a path may start at `at` in `word`: its start, after '=', ',' or
/// ':', or right after an option that takes a joined path ("-I", "-isystem").
bool path_may_start(std::string_view word, size_t at) {
    if (at == 0) return true;
    char before = word[at - 1];
    if (before == '=' || before == ',' || before == ':') return true;
    std::string_view option = word.substr(0, at);
    for (std::string_view o : kJoinedPathOptions)
        if (option == o) return true;
    return false;
}

} // namespace

std::string absolute_normal(const std::string& dir, const std::string& path) {
    std::string p = !path.empty() && path[0] == '/' ? path
                    : path.empty() || path == "."   ? dir
                    : dir == "/"                    ? "/" + path
                                                    : dir + "/" + path;
    if (is_normal(p)) return p;
    // Not ninja's rules: a folder of the file system hashed into the CUID (golden values pinned).
    std::string n = std::filesystem::path(p).lexically_normal().string();
    while (n.size() > 1 && n.back() == '/')
        n.pop_back();
    return n.empty() ? "/" : n;
}

CuidPlace cuid_place(const compile::Analysis& a, const std::string& root) {
    std::error_code ec;
    const std::string cwd = std::filesystem::current_path(ec).string();
    const std::string base = absolute_normal(cwd, a.base_dir);
    CuidPlace place;
    place.work_dir = absolute_normal(base, a.command.cwd);
    place.root = root.empty() ? base : absolute_normal(cwd, root);
    return place;
}

std::string root_from_basedir(const char* ccache_basedir) {
    if (ccache_basedir == nullptr || ccache_basedir[0] != '/') return "/";
    return absolute_normal("/", ccache_basedir);
}

std::string cuid_base(const CuidPlace& place, std::string_view source) {
    const std::string src = absolute_normal(place.work_dir, std::string(source));
    size_t n = common_length(place.root, dir_part(src));
    return place.root.substr(0, n);
}

std::string rebase_word(std::string_view word, std::string_view base, std::string_view rel) {
    if (base.empty()) return std::string(word);
    std::string out;
    size_t from = 0;
    for (size_t at = word.find(base); at != std::string_view::npos; at = word.find(base, at + 1)) {
        const size_t end = at + base.size();
        if (at < from || (end < word.size() && word[end] != '/') || !path_may_start(word, at))
            continue;
        out.append(word, from, at - from);
        out.append(rel);
        from = end;
    }
    if (from == 0) return std::string(word);
    out.append(word, from);
    return out;
}

std::string cuid_of(const CuidPlace& place, std::string_view output, std::string_view source,
                    const std::vector<std::string_view>& words, std::string_view argv0) {
    const std::string base = cuid_base(place, source);
    const std::string rel = base.empty() ? "" : relative_path(place.work_dir, base);
    const std::string dir = relative_path(place.root, place.work_dir);
    util::Hasher h;
    h.add_all({"phc-cuid-v2", dir});
    h.add(rebase_word(output, base, rel)).add(rebase_word(source, base, rel));
    for (std::string_view w : words)
        h.add(rebase_word(w, base, rel));
    h.add(rebase_word(argv0, base, rel));
    return h.hex64();
}

std::string make_cuid(const compile::Analysis& a, const CuidPlace& place) {
    if (!a.cuid.empty()) return a.cuid;
    if (a.cuid_none) return {};
    std::vector<std::string_view> words;
    for (size_t k : cuid_word_positions(a))
        words.push_back(a.command.argv[k]);
    return cuid_of(place, a.output, a.source, words, a.command.argv[0]);
}

} // namespace phc::split
