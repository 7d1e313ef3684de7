#include "split/link.h"

#include "compile/command.h"
#include "compile/rspfile.h"
#include "compile/shell.h"
#include "split/wrapper_link.h"
#include "split/wrapper_plan.h"
#include "util/file.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <unistd.h>

namespace phc::split {

namespace {

/// The assembly that embeds a fat binary as the symbol __hip_fatbin, as clang's
/// driver writes it for llvm-mc (HIPUtility.cpp; its comment lines left out):
/// the tests check the linked output against the driver's own.
std::string fatbin_assembly(const std::string& hipfb) {
    return "  .protected __hip_fatbin\\n"
           "  .type __hip_fatbin,@object\\n"
           "  .section .hip_fatbin,\"a\",@progbits\\n"
           "  .globl __hip_fatbin\\n"
           "  .p2align 12\\n"
           "__hip_fatbin:\\n"
           "  .incbin \"" +
           hipfb + "\"\\n";
}

bool has_word(const std::vector<std::string>& job, std::string_view w) {
    return std::find(job.begin() + 1, job.end(), w) != job.end();
}

/// clang-linker-wrapper linking a program (not the new driver's compile-time
/// code generation, --emit-fatbin-only).
bool is_wrapper_link(const std::vector<std::string>& job) {
    return compile::base_name(job[0]).starts_with("clang-linker-wrapper") &&
           !has_word(job, "--emit-fatbin-only");
}

/// A step of link `a`: in its directory, with its environment, described as
/// "<what> <output>".
Step link_step(const compile::LinkAnalysis& a, StepKind kind, std::string what) {
    Step s;
    s.kind = kind;
    s.cwd = a.command.cwd;
    s.env = a.command.env;
    s.description = std::move(what) + " " + a.output;
    return s;
}

/// Builds the steps, renaming the driver's temporary files as it goes.
class Planner {
public:
    Planner(LinkPlan& plan, const probe::DriverJobs& jobs, const FindSplitObject& find,
            const WrapperRun* wrapper)
        : plan_(plan), temp_(jobs.temp_dir + "/"), find_(find), wrapper_(wrapper),
          derived_(jobs.clang_major >= 19) {}

    /// Plans every job; false (with `why`) at the first one it cannot reproduce.
    bool run(const std::vector<std::vector<std::string>>& jobs) {
        for (size_t j = 0; j < jobs.size(); ++j)
            if (!job(j, jobs[j])) return false;
        if (!final_) return fail("no job of the driver writes '" + plan_.analysis.output + "'");
        return true;
    }

    std::string why;

private:
    bool fail(std::string text) {
        why = std::move(text);
        return false;
    }

    /// Where the temporary file starts in `w` (whole word or after '='), or npos.
    size_t temp_at(const std::string& w) const {
        size_t at = w.find(temp_);
        if (at == std::string::npos || (at != 0 && w[at - 1] != '=')) return std::string::npos;
        return at;
    }

    Step base(StepKind kind, std::string description) const {
        return link_step(plan_.analysis, kind, std::move(description));
    }

    /// `job` with every temporary file renamed: outputs (listed in `outs`, by
    /// temporary name) to their new names, inputs to the names earlier steps
    /// gave them. False when a temporary file is neither.
    bool rename(Step& s, std::vector<std::string> job,
                const std::map<std::string, std::string>& outs) {
        for (std::string& w : job) {
            size_t at = temp_at(w);
            if (at == std::string::npos) continue;
            std::string temp = w.substr(at);
            if (auto o = outs.find(temp); o != outs.end()) {
                w = w.substr(0, at) + o->second;
                s.outputs.push_back(o->second);
            } else if (auto r = renamed_.find(temp); r != renamed_.end()) {
                w = w.substr(0, at) + r->second;
                s.inputs.push_back(r->second);
            } else {
                return fail("the driver's job '" + std::string(compile::base_name(job[0])) +
                            "' reads a temporary file no earlier job writes");
            }
        }
        s.argv = std::move(job);
        for (const auto& [temp, name] : outs)
            renamed_[temp] = name;
        return true;
    }

    bool job(size_t j, const std::vector<std::string>& job) {
        std::string_view prog = compile::base_name(job[0]);
        const std::string dir = plan_.private_dir + "/";
        const std::string index = std::to_string(j);
        if (prog.starts_with("clang-offload-bundler") && has_word(job, "-unbundle"))
            return unbundle(j, job);
        if (prog.starts_with("clang-offload-bundler")) {
            if (!hipfb_.empty()) return fail("the driver bundles twice");
            hipfb_ = dir + "fatbin.hipfb";
            Step s = base(StepKind::Fatbin, "HIP fatbin");
            if (!rename(s, job, {{probe::job_value(job, "-output="), hipfb_}})) return false;
            plan_.steps.push_back(std::move(s));
            return true;
        }
        if ((prog == "lld" || prog.starts_with("lld-") || prog == "ld.lld") &&
            !probe::job_value(job, "-plugin-opt=mcpu=").empty()) {
            std::string arch = probe::job_value(job, "-plugin-opt=mcpu=");
            Step s = base(StepKind::DeviceLink, "HIP link " + arch);
            s.arch = arch;
            // Named by the architecture alone: adding another one leaves this
            // step's command as it was, so ninja does not run it again.
            std::string out = dir + safe_arch(arch) + ".out";
            if (std::find(plan_.archs.begin(), plan_.archs.end(), arch) != plan_.archs.end())
                out = dir + safe_arch(arch) + "-" + index + ".out";
            if (!rename(s, job, {{probe::job_word_after(job, "-o"), out}})) return false;
            if (s.outputs.empty()) return fail("the device link names no temporary output");
            plan_.archs.push_back(arch);
            plan_.steps.push_back(std::move(s));
            return true;
        }
        if (prog.starts_with("llvm-mc") || reads_assembly(job)) return fatbin_object(job);
        if (is_wrapper_link(job)) return wrapper_link(job);
        if (probe::job_word_after(job, "-o") == plan_.analysis.output) {
            Step s = base(StepKind::HostLink, "HIP host link");
            if (!rename(s, job, {})) return false;
            s.outputs.push_back(plan_.analysis.output);
            final_ = true;
            plan_.steps.push_back(std::move(s));
            return true;
        }
        return fail("the driver's link runs '" + std::string(prog) + "'");
    }

    /// An object's parts: from its split compile when there is one, else a step.
    bool unbundle(size_t j, const std::vector<std::string>& job) {
        const std::string input = probe::job_value(job, "-input=");
        const std::vector<std::string> targets = probe::bundle_targets(job);
        std::vector<std::string> outs;
        for (size_t i = 1; i < job.size(); ++i)
            if (job[i].starts_with("-output=")) outs.push_back(job[i].substr(8));
        if (outs.size() != targets.size())
            return fail("an unbundle job's outputs and targets differ");
        std::vector<std::string> parts; // the split compile's file of each target
        if (const SplitObject* so = find_(input)) {
            for (const std::string& t : targets) {
                std::string arch = probe::bundle_entry_arch(t);
                if (t.starts_with("host-"))
                    parts.push_back(so->private_dir + "/host.o");
                else if (std::find(so->archs.begin(), so->archs.end(), arch) != so->archs.end())
                    parts.push_back(so->private_dir + "/" + safe_arch(arch) + ".o");
                else
                    break;
            }
        }
        if (parts.size() == targets.size()) {
            for (size_t k = 0; k < outs.size(); ++k)
                renamed_[outs[k]] = parts[k];
            return true;
        }
        Step s = base(StepKind::Unbundle, "HIP unbundle " + input + " for");
        std::map<std::string, std::string> names;
        for (size_t k = 0; k < outs.size(); ++k)
            names[outs[k]] =
                plan_.private_dir + "/u" + std::to_string(j) + "-" + std::to_string(k) + ".o";
        if (!rename(s, job, names)) return false;
        s.inputs.push_back(input);
        plan_.steps.push_back(std::move(s));
        return true;
    }

    /// True when `job` reads the driver's temporary assembly (clang 22 assembles
    /// it with `clang -x assembler`, earlier drivers with llvm-mc).
    bool reads_assembly(const std::vector<std::string>& job) const {
        return std::any_of(job.begin() + 1, job.end(), [&](const std::string& w) {
            return temp_at(w) == 0 && w.ends_with(".mcin");
        });
    }

    /// The object embedding the fat binary. Up to clang 18 the driver's
    /// assembly is fixed: llvm-mc reads it from a pipe instead of its
    /// temporary .mcin file. From clang 19 it names the symbols the link's
    /// inputs leave undefined: `phc-ninja fatbin-asm` asks the driver for it
    /// when the step runs (fatbin_asm.h), into "<private>/fatbin.mcin".
    bool fatbin_object(std::vector<std::string> job) {
        if (hipfb_.empty()) return fail("the fat binary's object is made before the fat binary");
        for (char c : hipfb_)
            if (c == '\'' || c == '"' || c == '\\' || c == '%' || c == '\n' || c == '$' || c == '`')
                return fail("the fat binary's path needs quoting in assembly");
        const std::string mcin = derived_ ? plan_.private_dir + "/fatbin.mcin" : "-";
        size_t read = 0;
        for (size_t i = 1; i < job.size(); ++i)
            if (temp_at(job[i]) == 0 && job[i].ends_with(".mcin")) {
                job[i] = mcin;
                ++read;
            }
        if (read != 1) return fail("the fat binary's object is not made from one assembly file");
        Step s = base(StepKind::FatbinObject, "HIP fatbin object");
        const std::string obj = plan_.private_dir + "/fatbin.o";
        if (!rename(s, job, {{probe::job_word_after(job, "-o"), obj}})) return false;
        if (s.outputs != std::vector<std::string>{obj})
            return fail("the fat binary's object is not one temporary file");
        s.inputs.push_back(hipfb_);
        std::string script;
        if (derived_) {
            // The driver reads the link's inputs for their symbols.
            for (const compile::ParsedArg& p : plan_.analysis.args)
                if (p.input) s.inputs.push_back(p.value);
            std::vector<std::string> ask{
                util::self_exe(), "fatbin-asm", "--fatbin", hipfb_, "-o", mcin, "--"};
            ask.insert(ask.end(), plan_.analysis.command.argv.begin(),
                       plan_.analysis.command.argv.end());
            script = compile::join_command(ask) + " && " + compile::join_command(s.argv);
        } else {
            script = "printf '" + fatbin_assembly(hipfb_) + "' | " + compile::join_command(s.argv);
        }
        s.argv = {"/bin/sh", "-c", script};
        plan_.steps.push_back(std::move(s));
        return true;
    }

    /// The new driver's link: clang-linker-wrapper's device links, one step per
    /// architecture, then the wrapper itself with their images in place of its
    /// own device links (--override-image), which bundles, wraps and links.
    bool wrapper_link(const std::vector<std::string>& job) {
        if (!wrapper_) return fail("clang-linker-wrapper's device links are not known");
        const std::string wtemp = wrapper_->temp_dir + "/";
        std::vector<std::string> images;
        std::vector<std::pair<std::string, std::string>> written; // the wrapper's name, the image
        const std::vector<std::string>* bundler = nullptr;
        for (const auto& w : wrapper_->jobs) {
            std::string_view prog = compile::base_name(w[0]);
            if (prog.starts_with("clang-offload-bundler")) {
                if (bundler) return fail("clang-linker-wrapper bundles twice");
                bundler = &w;
                continue;
            }
            if (probe::job_word_after(w, "-o") == plan_.analysis.output)
                continue; // the final step runs this itself
            const std::string arch = probe::job_value(w, "-mcpu=");
            if (arch.empty()) return fail("clang-linker-wrapper runs '" + std::string(prog) + "'");
            if (std::find(plan_.archs.begin(), plan_.archs.end(), arch) != plan_.archs.end())
                return fail("clang-linker-wrapper links " + arch + " twice");
            Step s = base(StepKind::DeviceLink, "HIP link " + arch);
            s.arch = arch;
            const std::string out = plan_.private_dir + "/" + safe_arch(arch) + ".img";
            for (size_t i = 0; i < w.size(); ++i) {
                std::string word = w[i];
                if (i > 0 && w[i - 1] == "-o") {
                    word = out;
                    s.outputs.push_back(out);
                } else if (word.starts_with(wtemp)) {
                    auto in = device_input(word.substr(wtemp.size()), arch);
                    if (!in) return false;
                    word = *in;
                    s.inputs.push_back(word);
                } else if (word.find(wrapper_->temp_dir) != std::string::npos) {
                    return fail("a device link names a temporary file in a form not known");
                }
                s.argv.push_back(std::move(word));
            }
            if (s.outputs.size() != 1) return fail("a device link writes no one image");
            written.emplace_back(probe::job_word_after(w, "-o"), out);
            images.push_back(out);
            plan_.archs.push_back(arch);
            plan_.steps.push_back(std::move(s));
        }
        if (images.empty()) return fail("clang-linker-wrapper links no device code");
        Step s = base(StepKind::HostLink, "HIP host link");
        s.argv = job;
        for (const std::string& image : images)
            s.argv.push_back("--override-image=hip=" + image);
        s.inputs = images;
        if (has_features(plan_.archs)) {
            // The wrapper names the images it is given by processor alone: the
            // fat binary is bundled as its dry run bundles (by target ID), and
            // put in place of the wrapper's own (wrapper_link.h).
            if (!bundler) return fail("clang-linker-wrapper bundles no fat binary");
            hipfb_ = plan_.private_dir + "/fatbin.hipfb";
            auto b = bundle_job(*bundler, written, wrapper_->temp_dir, hipfb_);
            if (!b) return fail(b.error().message);
            Step f = base(StepKind::Fatbin, "HIP fatbin");
            f.argv = std::move(*b);
            f.inputs = images;
            f.outputs = {hipfb_};
            plan_.steps.push_back(std::move(f));
            s.argv = wrapper_link_command(hipfb_, s.argv);
            s.inputs.push_back(hipfb_);
        }
        s.outputs.push_back(plan_.analysis.output);
        final_ = true;
        plan_.steps.push_back(std::move(s));
        return true;
    }

    /// The file a device link reads for the wrapper's temporary input `name`
    /// (relative to its temporary folder): a split object's bitcode for a stand-in.
    std::optional<std::string> device_input(const std::string& name, const std::string& arch) {
        size_t k = 0;
        if (std::sscanf(name.c_str(), "phcobj%zu-", &k) != 1 || k >= wrapper_->stand_ins.size() ||
            !wrapper_->stand_ins[k]) {
            fail("a device link reads '" + name +
                 "', not the device code of a split object: clang-linker-wrapper makes it in "
                 "its own process");
            return std::nullopt;
        }
        const SplitObject& so = *wrapper_->stand_ins[k];
        if (std::find(so.archs.begin(), so.archs.end(), arch) == so.archs.end()) {
            fail("a device link for " + arch + " reads " + so.private_dir +
                 ", whose compile has no such architecture");
            return std::nullopt;
        }
        return so.private_dir + "/" + safe_arch(arch) + ".o";
    }

    LinkPlan& plan_;
    std::string temp_;
    const FindSplitObject& find_;
    const WrapperRun* wrapper_;
    bool derived_; ///< the fat binary's assembly depends on the inputs (clang >= 19)
    std::map<std::string, std::string> renamed_; ///< temporary file -> its name in the plan
    std::string hipfb_;
    bool final_ = false;
};

/// The -L folders and the -l names of a command or job, in order.
struct LibraryArgs {
    std::vector<std::string> dirs, names;
};

LibraryArgs library_args(const std::vector<std::string>& argv) {
    LibraryArgs out;
    for (size_t i = 1; i < argv.size(); ++i) {
        const std::string& w = argv[i];
        for (auto [flag, into] : {std::pair{"-L", &out.dirs}, {"-l", &out.names}}) {
            if (!w.starts_with(flag)) continue;
            if (w.size() > 2)
                into->push_back(w.substr(2));
            else if (i + 1 < argv.size())
                into->push_back(argv[++i]);
        }
    }
    return out;
}

/// The system's library folders, searched after the -L ones.
constexpr const char* kSystemLibDirs[] = {"/usr/lib",
                                          "/usr/lib/x86_64-linux-gnu",
                                          "/lib/x86_64-linux-gnu",
                                          "/lib",
                                          "/usr/local/lib",
                                          "/usr/lib64",
                                          "/lib64"};

/// The file each `-l` library of `argv` names now, from the -L folders and the
/// system's library folders ("" for one not found), in command order, with its name.
std::vector<std::pair<std::string, std::string>> libraries(const std::vector<std::string>& argv,
                                                           const std::string& cwd) {
    LibraryArgs args = library_args(argv);
    std::vector<std::string>& dirs = args.dirs;
    for (const char* d : kSystemLibDirs)
        dirs.emplace_back(d);
    std::vector<std::pair<std::string, std::string>> out;
    for (const std::string& n : args.names) {
        std::vector<std::string> files;
        if (n.starts_with(":"))
            files = {n.substr(1)};
        else
            files = {"lib" + n + ".so", "lib" + n + ".a"}; // the linker's preference
        std::string found;
        for (const std::string& d : dirs)
            for (const std::string& f : files)
                if (found.empty() && util::file_exists(util::join_path(cwd, d + "/" + f)))
                    found = d + "/" + f;
        out.emplace_back(n, found);
    }
    return out;
}

/// The files, relative to a search folder, that `-l<name>` may resolve to: the
/// linker's (lib<name>.so, lib<name>.a; the name itself for "-l:file") and the
/// static device libraries the driver looks for (clang's SDLSearch and
/// GetSDLFromOffloadArchive: libdevice/ first, bitcode "libbc-" archives).
std::vector<std::string> library_files(const std::string& name,
                                       const std::vector<std::string>& archs) {
    if (name.starts_with(":")) return {name.substr(1)};
    std::vector<std::string> out;
    for (std::string dir : {"libdevice/", ""}) {
        for (const char* suffix : {".a", ".so", ".bc"})
            out.push_back(dir + "lib" + name + suffix);
        out.push_back(dir + "libbc-" + name + ".a");
        for (const std::string& arch : archs) {
            out.push_back(dir + "libbc-" + name + "-" + arch + ".a");
            std::string gpu = arch.substr(0, arch.find(':'));
            if (gpu != arch) out.push_back(dir + "libbc-" + name + "-" + gpu + ".a");
        }
    }
    return out;
}

/// The value of `name` in `env` (NAME=value words), else in this process's.
std::string env_value(const std::vector<std::string>& env, const std::string& name) {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
        if (it->starts_with(name + "=")) return it->substr(name.size() + 1);
    const char* v = std::getenv(name.c_str());
    return v ? v : "";
}

} // namespace

std::string unknown_library(const compile::LinkAnalysis& a,
                            const std::vector<std::string>& host_link, const IsBuilt& built) {
    const LibraryArgs args = library_args(a.command.argv);
    if (args.names.empty()) return {};
    // Every folder the driver's device search or the linker may look in.
    std::vector<std::string> dirs;
    for (const std::string& d : util::split_on(env_value(a.command.env, "LIBRARY_PATH"), ':'))
        if (!d.empty()) dirs.push_back(d);
    dirs.insert(dirs.end(), args.dirs.begin(), args.dirs.end());
    if (!host_link.empty()) {
        std::vector<std::string> more = library_args(host_link).dirs;
        dirs.insert(dirs.end(), more.begin(), more.end());
    }
    dirs.insert(dirs.end(), std::begin(kSystemLibDirs), std::end(kSystemLibDirs));
    const std::string cwd = a.work_dir();
    for (const std::string& name : args.names) {
        std::vector<util::FileId> held; // the folders holding a file of this name
        std::vector<std::string> first; // a file of each
        for (std::string d : dirs) {
            if (d.size() > 1 && d.ends_with('/')) d.pop_back();
            for (const std::string& f : library_files(name, a.archs)) {
                const std::string path = d + "/" + f;
                if (built && built(path))
                    return "-l" + name + " may name " + path +
                           ", which the build makes: which archive the driver takes device "
                           "code from is known only when the link runs";
                if (!util::file_exists(util::join_path(cwd, path))) continue;
                util::FileId id = util::file_id(util::join_path(cwd, d));
                if (std::find(held.begin(), held.end(), id) != held.end()) continue;
                held.push_back(id);
                first.push_back(path);
            }
        }
        if (held.size() > 1)
            return "-l" + name + " names files in several folders (" + first[0] + ", " + first[1] +
                   "): which one the driver takes device code from and which one the linker "
                   "links depend on their search orders and on what exists when the link runs";
    }
    return {};
}

namespace {

/// The first `-l` library of `argv` that no -L folder nor the system's library
/// folders hold now ("" when all are found). The driver looks for static
/// device libraries when it plans the link: one that the build makes later
/// would be missing from a plan made now.
std::string missing_library(const std::vector<std::string>& argv, const std::string& cwd) {
    for (const auto& [name, file] : libraries(argv, cwd))
        if (file.empty()) return name;
    return {};
}

bool is_shared_library(std::string_view path) {
    std::string_view name = compile::base_name(path);
    size_t so = name.find(".so");
    return so != std::string_view::npos &&
           (so + 3 == name.size() || name[so + 3] == '.'); // libx.so, libx.so.5.2
}

/// For a new-driver link planned before its inputs are built: the first input
/// that may hold device code the plan cannot know (an object whose compile was
/// not split, a static archive), or "".
std::string unknown_device_input(const compile::LinkAnalysis& a, const FindSplitObject& find) {
    for (const compile::ParsedArg& p : a.args)
        if (p.input && !find(p.value) && !is_shared_library(p.value)) return p.value;
    for (const auto& [name, file] : libraries(a.command.argv, a.work_dir()))
        if (!is_shared_library(file)) return "-l" + name;
    return {};
}

/// The plan of a link left alone as not modelled, saying why.
LinkPlan left_alone(compile::LinkAnalysis a, std::string why) {
    LinkPlan p;
    p.analysis = std::move(a);
    p.analysis.decision = {compile::Reason::LinkUnmodelled, std::move(why)};
    return p;
}

} // namespace

std::string packer_beside(const std::string& wrapper) {
    std::string dir(wrapper, 0, wrapper.rfind('/') + 1);
    for (const char* name : {"llvm-offload-binary", "clang-offload-packager"})
        if (::access((dir + name).c_str(), X_OK) == 0) return dir + name;
    return {};
}

Status write_stand_in_bitcode(const std::string& packer, const std::string& path) {
    const std::string clang = packer.substr(0, packer.rfind('/') + 1) + "clang";
    auto made = util::run_capture({clang, "-cc1", "-triple", "amdgcn-amd-amdhsa", "-emit-llvm-bc",
                                   "-o", path, "-x", "c", "/dev/null"});
    if (!made || made->exit_code != 0)
        return make_error("'" + clang + "' cannot write stand-in device bitcode");
    return Ok{};
}

Status pack_stand_in(const std::string& packer, const std::string& bitcode,
                     const std::string& output,
                     const std::vector<std::pair<std::string, std::string>>& targets) {
    std::vector<std::string> pack{packer, "-o", output};
    for (const auto& [triple, arch] : targets)
        pack.push_back("--image=file=" + bitcode + ",triple=" + triple + ",arch=" + arch +
                       ",kind=hip");
    auto packed = util::run_capture(pack);
    if (!packed || packed->exit_code != 0)
        return make_error("'" + packer + "' cannot pack stand-in device code");
    return Ok{};
}

void rename_files(std::vector<std::vector<std::string>>& jobs,
                  const std::vector<std::pair<std::string, std::string>>& names) {
    for (auto& job : jobs)
        for (std::string& w : job)
            for (const auto& [from, to] : names) {
                if (w == from)
                    w = to;
                else if (w.ends_with("=" + from))
                    w = w.substr(0, w.size() - from.size()) + to;
            }
}

namespace {

/// Static archives among the inputs of a link planned before they are built:
/// the driver unbundles an archive input's device code only when the file
/// is an archive (clang 19 reads its magic), so it is asked with an empty
/// archive of the same name in `scratch` in place of each missing one, and
/// the stand-ins' paths in its jobs are put back to the inputs' names.
class StandInArchives {
public:
    /// Replaces each missing `.a` input of `argv` (by `a`'s classification).
    StandInArchives(const compile::LinkAnalysis& a, std::vector<std::string>& argv,
                    const std::string& scratch) {
        for (const compile::ParsedArg& p : a.args) {
            if (!p.input || !p.value.ends_with(".a") || p.index >= argv.size() ||
                argv[p.index] != p.value ||
                util::file_exists(util::join_path(a.work_dir(), p.value)))
                continue;
            const std::string dir = scratch + "/a" + std::to_string(back_.size());
            const std::string stand_in = dir + "/" + std::string(compile::base_name(p.value));
            std::error_code ec;
            std::filesystem::create_directories(dir, ec);
            if (ec || !util::write_file_atomic(stand_in, "!<arch>\n")) {
                failed_ = true;
                continue;
            }
            argv[p.index] = stand_in;
            back_.emplace_back(stand_in, p.value);
        }
    }

    /// False when a stand-in could not be made (the plan would differ).
    bool ok() const { return !failed_; }

    /// Every word of `jobs` naming a stand-in (whole, or after '=') names its input again.
    void restore(std::vector<std::vector<std::string>>& jobs) const { rename_files(jobs, back_); }

private:
    std::vector<std::pair<std::string, std::string>> back_; ///< stand-in, input
    bool failed_ = false;
};

/// Runs clang-linker-wrapper's `job` with --dry-run, its temporary files in a
/// scratch folder, each split object replaced by a stand-in packed like it
/// (its architectures, stand-in images).
Result<WrapperRun> dry_run_wrapper(std::vector<std::string> job, const compile::LinkAnalysis& a,
                                   const FindSplitObject& find, const util::TempDir& scratch) {
    WrapperRun run;
    run.temp_dir = scratch.path();
    if (run.temp_dir.empty()) return make_error("cannot create a scratch directory");
    const std::string packer = packer_beside(job[0]);
    if (packer.empty()) return run; // no device links: the link is left alone
    // Stand-in device code is bitcode, as the compiles write it: a wrapper
    // that links bitcode in its own process then shows it (clang 19).
    const std::string image = run.temp_dir + "/phc-image.bc";
    if (Status st = write_stand_in_bitcode(packer, image); !st) return st.error();
    for (size_t i = 1; i < job.size(); ++i) {
        const SplitObject* so = find(job[i]);
        if (!so) continue;
        std::string stand_in =
            run.temp_dir + "/phcobj" + std::to_string(run.stand_ins.size()) + ".o";
        std::vector<std::pair<std::string, std::string>> targets;
        for (const std::string& arch : so->archs)
            targets.emplace_back("amdgcn-amd-amdhsa", arch);
        if (Status st = pack_stand_in(packer, image, stand_in, targets); !st) return st.error();
        run.inputs.push_back(job[i]);
        job[i] = stand_in;
        run.stand_ins.push_back(so);
    }
    std::vector<std::string> argv{"env", "TMPDIR=" + run.temp_dir};
    argv.insert(argv.end(), a.command.env.begin(), a.command.env.end());
    argv.insert(argv.end(), job.begin(), job.end());
    argv.push_back("--dry-run");
    auto ran = util::run_capture(argv, a.work_dir());
    if (!ran) return ran.error();
    if (ran->exit_code != 0)
        return make_error("clang-linker-wrapper --dry-run failed: " + ran->err.substr(0, 300));
    run.jobs = probe::wrapper_jobs(ran->err + ran->out);
    return run;
}

/// The wrapper's dry run of the new driver's host link step, the last of
/// `plan`: the split objects' stand-ins as dry_run_wrapper makes them, and in
/// place of each device link's image a code object of its architecture (the
/// wrapper reads the architecture from the image), named back as the plan
/// names the image.
Result<WrapperRun> dry_run_host(const LinkPlan& plan, const FindSplitObject& find) {
    std::vector<std::string> job = wrapped_job(plan.steps.back().argv);
    util::TempDir images("phc-img");
    if (images.path().empty()) return make_error("cannot create a scratch directory");
    const std::string clang = job[0].substr(0, job[0].rfind('/') + 1) + "clang";
    std::vector<std::pair<std::string, std::string>> back; // stand-in, the plan's image
    for (const Step& s : plan.steps) {
        if (s.kind != StepKind::DeviceLink || s.outputs.size() != 1) continue;
        const std::string stand_in = images.path() + "/" + safe_arch(s.arch) + ".img";
        // A target ID's features ("gfx90a:xnack+") are target features to -cc1.
        std::vector<std::string> parts = util::split_on(s.arch, ':');
        std::vector<std::string> cc1{clang,         "-cc1",  "-triple", "amdgcn-amd-amdhsa",
                                     "-target-cpu", parts[0]};
        for (size_t k = 1; k < parts.size(); ++k)
            if (!parts[k].empty())
                cc1.insert(cc1.end(), {"-target-feature",
                                       parts[k].back() + parts[k].substr(0, parts[k].size() - 1)});
        cc1.insert(cc1.end(), {"-emit-obj", "-o", stand_in, "-x", "c", "/dev/null"});
        auto made = util::run_capture(cc1);
        if (!made || made->exit_code != 0)
            return make_error("'" + clang + "' cannot write a stand-in image for " + s.arch);
        for (std::string& w : job)
            if (w == "--override-image=hip=" + s.outputs[0]) w = "--override-image=hip=" + stand_in;
        back.emplace_back(stand_in, s.outputs[0]);
    }
    util::TempDir scratch("phc-link");
    auto run = dry_run_wrapper(job, plan.analysis, find, scratch);
    if (run) rename_files(run->jobs, back);
    return run;
}

/// `plan` when the guard finds its jobs the driver's (link_jobs_differ), else
/// the link left alone with the difference. `wrapper`: the new driver's dry
/// run of the original wrapper job.
LinkPlan guarded(LinkPlan plan, const probe::DriverJobs& jobs, const FindSplitObject& find,
                 const WrapperRun* wrapper = nullptr) {
    if (!plan.split()) return plan;
    std::string why;
    std::optional<WrapperRun> host;
    if (wrapper) {
        auto h = dry_run_host(plan, find);
        if (h)
            host = std::move(*h);
        else
            why = "clang-linker-wrapper: its dry run given the device links' images failed: " +
                  h.error().message;
    }
    if (why.empty()) why = link_jobs_differ(plan, jobs, find, wrapper, host ? &*host : nullptr);
    if (why.empty()) return plan;
    plan.steps.clear();
    plan.archs.clear();
    plan.analysis.decision = {compile::Reason::JobsDiffer, std::move(why)};
    return plan;
}

/// A link whose device inputs are decided when it runs (wrapper_plan.h): the
/// plan step, one device link per architecture and the host link, each
/// running what the plan step wrote. `job` is the wrapper's job, or with
/// `driver` the old driver's link command.
LinkPlan deferred_link_plan(compile::LinkAnalysis a, const std::vector<std::string>& job,
                            const std::string& private_dir, bool driver, bool in_process = false) {
    std::vector<std::string> archs;
    for (const std::string& w : job)
        if (!driver && w.starts_with("--should-extract=")) archs.push_back(w.substr(17));
    if (archs.empty()) archs = a.archs;
    LinkPlan plan;
    plan.analysis = std::move(a);
    plan.private_dir = private_dir.empty() ? plan.analysis.output + ".phc" : private_dir;
    const std::string& dir = plan.private_dir;
    auto base = [&](StepKind kind, std::string what) {
        return link_step(plan.analysis, kind, std::move(what));
    };
    std::string joined;
    for (const std::string& arch : archs)
        joined += (joined.empty() ? "" : ",") + arch;
    Step p = base(StepKind::LinkPlan, "HIP link plan");
    p.argv = {util::self_exe(), "link-plan"};
    if (driver) p.argv.push_back("--driver");
    if (in_process) p.argv.push_back("--in-process");
    p.argv.insert(p.argv.end(), {"--dir", dir, "--archs", joined, "--"});
    p.argv.insert(p.argv.end(), job.begin(), job.end());
    for (const compile::ParsedArg& arg : plan.analysis.args)
        if (arg.input) p.inputs.push_back(arg.value);
    for (const std::string& arch : archs)
        p.outputs.push_back(device_link_plan(dir, arch));
    p.outputs.push_back(host_link_plan(dir));
    plan.steps.push_back(std::move(p));
    Step host = base(StepKind::HostLink, "HIP host link");
    host.argv = {util::self_exe(), "planned", host_link_plan(dir)};
    host.inputs.push_back(host_link_plan(dir));
    for (const std::string& arch : archs) {
        Step s = base(StepKind::DeviceLink, "HIP link " + arch);
        s.arch = arch;
        s.argv = {util::self_exe(), "planned", device_link_plan(dir, arch)};
        s.inputs = {device_link_plan(dir, arch)};
        s.outputs = {driver ? driver_device_link_output(dir, arch) : device_link_image(dir, arch)};
        host.inputs.push_back(s.outputs[0]);
        plan.steps.push_back(std::move(s));
        plan.archs.push_back(arch);
    }
    host.outputs.push_back(plan.analysis.output);
    plan.steps.push_back(std::move(host));
    return plan;
}

} // namespace

LinkPlan make_link_plan(compile::LinkAnalysis a, const probe::DriverJobs& jobs,
                        const FindSplitObject& find, const std::string& private_dir,
                        const WrapperRun* wrapper) {
    LinkPlan plan;
    plan.analysis = std::move(a);
    if (!plan.analysis.decision.split()) return plan;
    plan.private_dir = private_dir.empty() ? plan.analysis.output + ".phc" : private_dir;
    Planner p(plan, jobs, find, wrapper);
    if (!p.run(jobs.jobs)) {
        plan.steps.clear();
        plan.archs.clear();
        plan.analysis.decision = {compile::Reason::LinkUnmodelled, p.why};
    } else if (plan.archs.size() < 2) {
        plan.steps.clear();
        plan.analysis.decision = {compile::Reason::SingleArch,
                                  "the driver links fewer than two architectures"};
    }
    return plan;
}

Result<LinkPlan> plan_link(compile::LinkAnalysis a, const FindSplitObject& find,
                           const std::string& private_dir, LinkInputs inputs,
                           const IsBuilt& built) {
    if (!a.decision.split()) {
        LinkPlan p;
        p.analysis = std::move(a);
        return p;
    }
    // The driver reads the link's response files itself: only what expand_rsp
    // reads (a fifo would hang it, a /dev/zero-like node fill its memory).
    if (compile::Expanded e = compile::expand_rsp(a.command.argv, {a.work_dir(), {}, {}});
        !e.unreadable.empty())
        return left_alone(std::move(a),
                          "the driver cannot be asked for the link's jobs: " + e.unreadable);
    // The old driver looks for static device libraries when the link is
    // planned (the new one's wrapper when it runs).
    std::string missing = missing_library(a.command.argv, a.work_dir());
    if (!missing.empty())
        missing = "-l" + missing +
                  " is not there yet: the driver looks for static device libraries when the "
                  "link is planned";
    probe::ProbeRequest req{a.command.env, a.command.argv, a.work_dir()};
    util::TempDir scratch("phc-link");
    std::optional<StandInArchives> archives;
    if (inputs == LinkInputs::Planned) {
        archives.emplace(a, req.argv, scratch.path());
        if (scratch.path().empty() || !archives->ok())
            return left_alone(std::move(a), "cannot make a stand-in for a static archive input");
    }
    auto jobs = probe::run_driver_jobs(req);
    if (!jobs && !missing.empty()) return left_alone(std::move(a), missing);
    if (!jobs) return jobs.error();
    if (archives) archives->restore(jobs->jobs);
    auto wrapper = std::find_if(jobs->jobs.begin(), jobs->jobs.end(), is_wrapper_link);
    if (wrapper == jobs->jobs.end()) {
        if (inputs == LinkInputs::Present) {
            if (!missing.empty()) return left_alone(std::move(a), missing);
            return guarded(make_link_plan(std::move(a), *jobs, find, private_dir), *jobs, find);
        }
        // The driver looked for device libraries now; the link looks when it
        // runs. When that may find others, the link is planned when it runs.
        std::string why = missing;
        if (why.empty()) {
            auto host = std::find_if(jobs->jobs.begin(), jobs->jobs.end(), [&](const auto& job) {
                return probe::job_word_after(job, "-o") == a.output;
            });
            why = unknown_library(a, host == jobs->jobs.end() ? std::vector<std::string>{} : *host,
                                  built);
        }
        if (!why.empty()) {
            // Only a plan of the old driver's jobs can run then.
            LinkPlan now = make_link_plan(a, *jobs, find, private_dir);
            if (now.analysis.decision.reason == compile::Reason::LinkUnmodelled)
                return left_alone(std::move(a), now.analysis.decision.text);
            const std::vector<std::string> link = a.command.argv;
            return deferred_link_plan(std::move(a), link, private_dir, true);
        }
        return guarded(make_link_plan(std::move(a), *jobs, find, private_dir), *jobs, find);
    }
    // clang 19's wrapper links the device code in its own process (its LTO):
    // each architecture's link is the wrapper given that architecture's device
    // code alone, which the plan step cuts out of the inputs when they exist.
    const bool in_process = jobs->clang_major == 19;
    if (jobs->clang_major > 0 && jobs->clang_major < 19)
        return left_alone(std::move(a), "clang-linker-wrapper " +
                                            std::to_string(jobs->clang_major) +
                                            " links the device code in its own process (its LTO)");
    if (inputs == LinkInputs::Present || in_process || !unknown_device_input(a, find).empty()) {
        // Device code not all from split objects: decided when the link runs.
        return deferred_link_plan(std::move(a), *wrapper, private_dir, false, in_process);
    }
    auto run = dry_run_wrapper(*wrapper, a, find, scratch);
    if (!run) return run.error();
    return guarded(make_link_plan(std::move(a), *jobs, find, private_dir, &*run), *jobs, find,
                   &*run);
}

} // namespace phc::split
