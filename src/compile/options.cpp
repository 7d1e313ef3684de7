#include "compile/options.h"

#include <algorithm>
#include <array>

namespace phc::compile {

namespace {

constexpr unsigned kSepJoined = kSeparate | kJoined;
constexpr unsigned kPathArg = kSepJoined | kPath | kNotDriver;
constexpr unsigned kDep = kAffectsSplit | kNotDriver | kDependency;

// Keep sorted by name (byte order); test_compile_options.cpp checks it.
constexpr OptionInfo kOptions[] = {
    {"--config", kSeparate | kPath},
    {"--config=", kJoined | kPath},
    {"--cuda-device-only", kAffectsSplit},
    {"--cuda-gpu-arch=", kJoined | kAffectsSplit},
    {"--cuda-host-only", kAffectsSplit},
    {"--gpu-bundle-output", kAffectsSplit},
    {"--hip-device-lib-path=", kJoined | kPath},
    {"--hip-link", kAffectsSplit},
    {"--hip-path=", kJoined | kPath},
    {"--no-cuda-gpu-arch=", kJoined | kAffectsSplit},
    {"--no-gpu-bundle-output", kAffectsSplit},
    {"--no-offload-arch=", kJoined | kAffectsSplit},
    {"--no-offload-compress", kAffectsSplit},
    {"--no-offload-new-driver", kAffectsSplit},
    {"--offload-arch=", kJoined | kAffectsSplit},
    {"--offload-compress", kAffectsSplit},
    {"--offload-compression-level=", kJoined | kAffectsSplit},
    {"--offload-device-only", kAffectsSplit},
    {"--offload-host-device", kAffectsSplit},
    {"--offload-host-only", kAffectsSplit},
    {"--offload-jobs=", kJoined | kAffectsSplit | kNotDriver},
    {"--offload-new-driver", kAffectsSplit},
    {"--rocm-path=", kJoined | kPath},
    {"--sysroot", kSeparate | kPath},
    {"--sysroot=", kJoined | kPath},
    {"--target=", kJoined},
    {"-B", kSepJoined | kPath},
    {"-D", kSepJoined | kNotDriver},
    {"-E", kAffectsSplit},
    {"-I", kPathArg},
    {"-M", kAffectsSplit},
    {"-MD", kDep},
    {"-MF", kSepJoined | kPath | kDep},
    {"-MJ", kSepJoined | kPath | kAffectsSplit},
    {"-MM", kAffectsSplit},
    {"-MMD", kDep},
    {"-MP", kDep},
    {"-MQ", kSepJoined | kDep},
    {"-MT", kSepJoined | kDep},
    {"-S", kAffectsSplit},
    {"-U", kSepJoined | kNotDriver},
    {"-Xarch_", kJoinedAndSep},
    {"-Xarch_device", kSeparate},
    {"-Xarch_host", kSeparate},
    {"-Xclang", kSeparate},
    {"-Xoffload-linker", kJoinedAndSep},
    {"-c", kAffectsSplit},
    {"-cuid=", kJoined | kAffectsSplit | kNotDriver},
    {"-emit-llvm", kAffectsSplit},
    {"-fgpu-rdc", kAffectsSplit},
    {"-fno-gpu-rdc", kAffectsSplit},
    {"-foffload-via-llvm", kAffectsSplit},
    {"-fsyntax-only", kAffectsSplit},
    {"-ftime-trace", kAffectsSplit},
    {"-ftime-trace=", kJoined | kAffectsSplit},
    {"-fuse-cuid=", kJoined | kAffectsSplit},
    {"-gno-split-dwarf", kAffectsSplit},
    {"-gsplit-dwarf", kAffectsSplit},
    {"-gsplit-dwarf=", kJoined | kAffectsSplit},
    {"-idirafter", kPathArg},
    {"-imacros", kPathArg},
    {"-include", kPathArg},
    {"-include-pch", kSeparate | kPath | kNotDriver},
    {"-iquote", kPathArg},
    {"-isystem", kPathArg},
    {"-mllvm", kSeparate},
    {"-o", kSepJoined | kPath | kAffectsSplit | kNotDriver},
    {"-parallel-jobs=", kJoined | kAffectsSplit | kNotDriver},
    {"-save-temps", kAffectsSplit},
    {"-save-temps=", kJoined | kAffectsSplit},
    {"-target", kSeparate},
    {"-x", kSepJoined | kAffectsSplit},
};

constexpr size_t kNoBucket = static_cast<size_t>(-1);

/// Bucket of a name or word: its byte after the leading '-', or for "--x" its third
/// byte (offset by 256). A table name and every word it is a prefix of share one.
size_t bucket_of(std::string_view s) {
    if (s.size() < 2) return kNoBucket;
    if (s[1] == '-' && s.size() >= 3) return 256 + static_cast<unsigned char>(s[2]);
    return static_cast<unsigned char>(s[1]);
}

/// The table by bucket, so a lookup compares a word with a handful of names instead
/// of a binary search per candidate prefix: every row, and the rows taking a glued
/// value longest first (the first that fits is the longest).
struct Index {
    std::array<std::vector<const OptionInfo*>, 512> exact, joined;

    Index() {
        for (const OptionInfo& o : kOptions) {
            size_t b = bucket_of(o.name);
            if (b == kNoBucket) continue;
            exact[b].push_back(&o);
            if (o.flags & (kJoined | kJoinedAndSep)) joined[b].push_back(&o);
        }
        for (auto& v : joined)
            std::stable_sort(v.begin(), v.end(), [](const OptionInfo* a, const OptionInfo* b) {
                return a->name.size() > b->name.size();
            });
    }
};

const Index& index() {
    static const Index kIndex;
    return kIndex;
}

} // namespace

std::span<const OptionInfo> option_table() {
    return kOptions;
}

const OptionInfo* find_option(std::string_view name) {
    size_t b = bucket_of(name);
    if (b == kNoBucket) return nullptr;
    for (const OptionInfo* o : index().exact[b])
        if (o->name == name) return o;
    return nullptr;
}

namespace {

/// The longest table name that is a proper prefix of `word` and takes a glued value.
const OptionInfo* find_joined(std::string_view word) {
    size_t b = bucket_of(word);
    if (b == kNoBucket) return nullptr;
    for (const OptionInfo* o : index().joined[b])
        if (o->name.size() < word.size() && word.starts_with(o->name)) return o;
    return nullptr;
}

} // namespace

std::vector<ParsedArg> parse_args(const std::vector<std::string>& argv, size_t first) {
    std::vector<ParsedArg> out;
    bool only_inputs = false;
    for (size_t i = first; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        ParsedArg a;
        a.index = i;
        if (!only_inputs && w.size() > 1 && w[0] == '@') { // a response file: kept as is
            a.value = w;
            out.push_back(std::move(a));
            continue;
        }
        if (!only_inputs && w == "--") {
            only_inputs = true;
            continue;
        }
        if (only_inputs || w.size() < 2 || w[0] != '-') {
            a.input = true;
            a.value = w;
            out.push_back(std::move(a));
            continue;
        }
        if (const OptionInfo* o = find_option(w)) {
            a.option = o;
            if ((o->flags & (kSeparate | kJoinedAndSep)) && i + 1 < argv.size()) {
                a.value = argv[i + 1];
                a.count = 2;
                ++i;
            }
        } else if (const OptionInfo* j = find_joined(w)) {
            a.option = j;
            a.value = w.substr(j->name.size());
            if ((j->flags & kJoinedAndSep) && i + 1 < argv.size()) {
                a.count = 2; // the value is the glued suffix; the next word is its argument
                ++i;
            }
        }
        out.push_back(std::move(a));
    }
    return out;
}

} // namespace phc::compile
