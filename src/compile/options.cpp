#include "compile/options.h"

#include <algorithm>

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

bool by_name(const OptionInfo& a, std::string_view b) {
    return a.name < b;
}

} // namespace

std::span<const OptionInfo> option_table() {
    return kOptions;
}

const OptionInfo* find_option(std::string_view name) {
    auto it = std::lower_bound(std::begin(kOptions), std::end(kOptions), name, by_name);
    return it != std::end(kOptions) && it->name == name ? &*it : nullptr;
}

namespace {

/// The longest table name that is a proper prefix of `word` and takes a glued value.
const OptionInfo* find_joined(std::string_view word) {
    for (size_t len = std::min<size_t>(word.size() - 1, 40); len >= 2; --len) {
        const OptionInfo* o = find_option(word.substr(0, len));
        if (o && (o->flags & (kJoined | kJoinedAndSep))) return o;
    }
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
