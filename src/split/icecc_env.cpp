// `phc-ninja icecc-env`: the environment tarball icecc's remote daemons run a
// distributed HIP device compile in (a chroot). icecc-create-env packs the
// compiler; a HIP device compile of a preprocessed file also runs the
// bundler (unbundling its input) and lld (linking the code object), and links
// the device-library bitcode (every file of its folder). Which files, and where the driver looks
// for them, the driver's own `-###` of such a compile says; the bundler goes beside the compiler in
// the chroot (icecc-create-env's --addfile keeps a file's own path, Debian keeps the bundler
// elsewhere), with a writable /tmp and a /dev/null. Prints the ICECC_VERSION to set.
#include "compile/shell.h"
#include "split/distribute.h"
#include "util/args.h"
#include "util/error.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>
#include <string>
#include <vector>

namespace phc::split {

namespace {

namespace fs = std::filesystem;

/// What the chroot needs besides what icecc-create-env packs for the compiler.
struct Needs {
    std::string clang;                ///< the cc1 job's program (the real compiler)
    std::string bundler;              ///< clang-offload-bundler, as the driver runs it
    std::string linker;               ///< lld, at the path the driver calls
    std::vector<std::string> bitcode; ///< -mlink-builtin-bitcode files (of one architecture)
};

/// Runs `argv`; an Error with its output when it fails.
Result<util::Completed> run(const std::vector<std::string>& argv, const std::string& cwd = {}) {
    auto r = util::run_capture(argv, cwd);
    if (!r) return r.error();
    if (r->exit_code != 0)
        return make_error(fmt::format("'{}' failed (exit {}): {}", argv[0], r->exit_code,
                                      r->err.empty() ? r->out : r->err));
    return r;
}

/// The driver's jobs for a device compile of a preprocessed file, read from `-###`.
Result<Needs> needs_of(const std::vector<std::string>& compiler, const std::string& work) {
    const std::string ii = work + "/probe.ii";
    if (auto st = util::write_file_atomic(ii, ""); !st) return st.error();
    std::vector<std::string> argv = compiler;
    argv.insert(argv.end(),
                {"--offload-arch=gfx906", "--offload-device-only", "--no-gpu-bundle-output", "-c",
                 "-o", work + "/probe.o", "-xhip-cpp-output", ii, "-###"});
    auto r = run(argv);
    if (!r) return r.error();
    Needs n;
    size_t at = 0;
    const std::string& text = r->err;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + at, end - at);
        at = end + 1;
        if (!line.starts_with(" \"")) continue;
        compile::ShellSplit s = compile::split_shell(line);
        std::vector<std::string> words;
        for (const auto& t : s.tokens)
            words.push_back(t.text);
        if (words.empty()) continue;
        const std::string name(compile::base_name(words[0]));
        if (name.starts_with("clang-offload-bundler")) n.bundler = words[0];
        if (name == "lld" || name == "ld.lld") n.linker = words[0];
        for (size_t k = 1; k + 1 < words.size(); ++k) {
            if (words[k] == "-cc1") n.clang = words[0];
            if (words[k] == "-mlink-builtin-bitcode") n.bitcode.push_back(words[k + 1]);
        }
    }
    if (n.clang.empty() || n.bundler.empty() || n.linker.empty())
        return make_error(fmt::format("'{}' -### names no compiler, bundler or lld job for a "
                                      "HIP device compile",
                                      compiler[0]));
    return n;
}

/// Copies `from` to `root` + `to`, making its folder.
Status place(const std::string& from, const std::string& root, const std::string& to) {
    std::error_code ec;
    fs::create_directories(fs::path(root + to).parent_path(), ec);
    fs::copy_file(from, root + to, fs::copy_options::overwrite_existing, ec);
    if (ec)
        return make_error(
            fmt::format("cannot copy {} into the environment: {}", from, ec.message()));
    return Ok{};
}

/// Why `dir` cannot be the remote daemons' TMPDIR in the chroot, or "": it is
/// made mode 1777 below the environment's root, so it must be an absolute
/// path below "/" with no ".." (which would leave the root: with the work
/// folder in /tmp, "/../../.." names "/").
std::string tmpdir_problem(const std::string& dir) {
    if (dir.empty()) return {};
    if (dir.front() != '/') return "not an absolute path";
    bool below = false;
    for (const auto& part : fs::path(dir).relative_path()) {
        if (part == "..") return "'..' would leave the environment's root";
        below = below || (part != "." && !part.empty());
    }
    return below ? std::string() : "names the environment's root itself";
}

Status build(const std::vector<std::string>& compiler, const std::string& output,
             const std::string& tmpdir, const std::string& work) {
    auto n = needs_of(compiler, work);
    if (!n) return n.error();
    std::error_code ec;
    const std::string clang = fs::canonical(n->clang, ec).string();
    if (ec) return make_error(fmt::format("{}: {}", n->clang, ec.message()));
    // Unpacked at once below: not compressed (for clang 22: 19 s, not 32), where
    // icecc-create-env knows --compression (icecream 1.3 and later), else as it
    // packs by default. (Its options after the compiler's: it reads them in
    // that order.)
    const std::vector<std::string> create = {"icecc-create-env", "--clang", clang, "--addfile",
                                             n->linker};
    std::vector<std::string> uncompressed = create;
    uncompressed.insert(uncompressed.begin() + 3, {"--compression", "none"});
    if (!run(uncompressed, work))
        if (auto r = run(create, work); !r) return r.error();
    std::string packed;
    for (const auto& e : fs::directory_iterator(work, ec))
        if (const std::string name = e.path().string();
            name.ends_with(".tar") || name.ends_with(".tar.gz"))
            packed = name;
    if (packed.empty()) return make_error("icecc-create-env wrote no tarball");
    const std::string root = work + "/root";
    fs::create_directories(root, ec);
    // GNU tar finds the compression, if any, itself.
    if (auto r = run({"tar", "-C", root, "-xf", packed}); !r) return r.error();
    fs::remove(packed, ec);
    // In the chroot the compiler is /usr/bin/clang: the driver looks for the
    // bundler beside it.
    if (auto st = place(n->bundler, root, "/usr/bin/clang-offload-bundler"); !st) return st;
    // The bundler looks for llvm-objcopy beside itself (clang 22's refuses to
    // run without it: "unable to find 'llvm-objcopy' in path"); from its own
    // folder, of its own LLVM, whose libraries icecc-create-env packed.
    const std::string objcopy = (fs::path(n->bundler).parent_path() / "llvm-objcopy").string();
    if (util::file_exists(objcopy))
        if (auto st = place(objcopy, root, "/usr/bin/llvm-objcopy"); !st) return st;
    // Every library of the folders the driver links from: it checks for the
    // folder's whole set, and other architectures link other files.
    std::set<std::string> folders;
    for (const std::string& bc : n->bitcode)
        folders.insert(fs::path(bc).parent_path().string());
    for (const std::string& folder : folders)
        for (const auto& e : fs::directory_iterator(folder, ec))
            if (e.path().extension() == ".bc")
                if (auto st = place(e.path().string(), root, e.path().string()); !st) return st;
    const fs::path inside = fs::canonical(root, ec);
    for (const std::string& d : {std::string("/tmp"), tmpdir}) {
        if (d.empty()) continue;
        fs::create_directories(root + d, ec);
        // Made world-writable only where it is the chroot's own folder (a link
        // the tarball holds may lead elsewhere).
        const fs::path made = fs::canonical(root + d, ec);
        const auto [end, at] =
            std::mismatch(inside.begin(), inside.end(), made.begin(), made.end());
        if (ec || end != inside.end() || at == made.end())
            return make_error(fmt::format("--tmpdir {}: not a folder inside the environment", d));
        fs::permissions(made, fs::perms::all | fs::perms::sticky_bit, ec);
    }
    fs::create_directories(root + "/dev", ec);
    if (auto st = util::write_file_atomic(root + "/dev/null", ""); !st) return st.error();
    fs::permissions(root + "/dev/null",
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                        fs::perms::group_write | fs::perms::others_read | fs::perms::others_write,
                    ec);
    if (auto r = run({"tar", "-C", root, "-czf", output, "."}); !r) return r.error();
    return Ok{};
}

} // namespace

int icecc_env_main(int argc, char** argv) {
    std::string output = "hip-icecc-env.tar.gz", tmpdir;
    util::CommandLine cl{"phc-ninja icecc-env",
                         "[-o FILE] [--tmpdir DIR] -- COMPILER [FLAGS...]",
                         "Writes the environment (a chroot tarball) in which icecc's remote "
                         "daemons run\ndistributed HIP device compiles of COMPILER with FLAGS "
                         "(--rocm-path,\n--hip-device-lib-path, ...), and prints the "
                         "ICECC_VERSION to set. Needs\nicecc-create-env (which works in "
                         "/tmp).",
                         {},
                         {}};
    cl.positional = true;
    cl.options = {
        util::text_option({"-o"}, "FILE", "the tarball (default: hip-icecc-env.tar.gz)", output),
        util::text_option({"--tmpdir"}, "DIR",
                          "the remote daemons' TMPDIR, made writable in the chroot too", tmpdir),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (parsed.positional.empty()) return util::usage_error(cl, "no compiler given");
    if (std::string why = tmpdir_problem(tmpdir); !why.empty())
        return util::usage_error(cl, fmt::format("--tmpdir {}: {}", tmpdir, why));
    std::error_code ec;
    output = fs::absolute(output, ec).string();
    const char* t = std::getenv("TMPDIR");
    std::string work = std::string(t && *t ? t : "/tmp") + "/phc-icecc-env-XXXXXX";
    if (!::mkdtemp(work.data()))
        return print_error(cl.name, make_error("cannot make a work folder in TMPDIR"));
    Status st = build(parsed.positional, output, tmpdir, work);
    fs::remove_all(work, ec);
    if (!st) return print_error(cl.name, st.error());
    std::printf("export ICECC_VERSION=%s\n", output.c_str());
    return 0;
}

} // namespace phc::split
