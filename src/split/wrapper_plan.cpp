#include "split/wrapper_plan.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "probe/probe.h"
#include "split/guard.h"
#include "split/link.h"
#include "split/plan.h"
#include "split/wrapper_link.h"
#include "util/archive.h"
#include "util/args.h"
#include "util/elf.h"
#include "util/file.h"
#include "util/hash.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

namespace phc::split {

std::string device_link_plan(const std::string& dir, const std::string& arch) {
    return dir + "/" + safe_arch(arch) + ".plan";
}

std::string host_link_plan(const std::string& dir) {
    return dir + "/link.plan";
}

std::string device_link_image(const std::string& dir, const std::string& arch) {
    return dir + "/" + safe_arch(arch) + ".img";
}

std::string driver_device_link_output(const std::string& dir, const std::string& arch) {
    return dir + "/" + safe_arch(arch) + ".out";
}

namespace {

/// The little-endian u64 at `at` of `b` (the caller checked the bounds).
uint64_t u64(std::string_view b, size_t at) {
    return util::elf::read_le<uint64_t>(b, at);
}

/// The NUL-ended string at `off` of `bin`, or nullopt when it runs past it.
std::optional<std::string> c_string(std::string_view bin, uint64_t off) {
    if (off >= bin.size()) return std::nullopt;
    size_t end = bin.find('\0', static_cast<size_t>(off));
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(bin.substr(static_cast<size_t>(off), end - static_cast<size_t>(off)));
}

} // namespace

Result<std::vector<OffloadImage>> offload_images(std::string_view s) {
    std::vector<OffloadImage> out;
    for (size_t at = 0; at < s.size();) {
        std::string_view rest = s.substr(at);
        auto bad = [&](std::string_view what) {
            return make_error(fmt::format("offload binary at offset {}: {}", at, what));
        };
        if (rest.size() < 32 || rest.substr(0, 4) != std::string_view("\x10\xff\x10\xad", 4))
            return bad("no magic");
        if (uint64_t version = util::elf::read_le<uint32_t>(rest, 4); version != 1)
            return bad(fmt::format("version {} (known: 1)", version));
        const uint64_t size = u64(rest, 8), entry_at = u64(rest, 16), entry_size = u64(rest, 24);
        if (size < 32 || size > rest.size()) return bad("cut short");
        std::string_view bin = rest.substr(0, static_cast<size_t>(size));
        if (entry_size < 40 || entry_at > size || entry_size > size - entry_at)
            return bad("its entry lies outside it");
        const size_t e = static_cast<size_t>(entry_at);
        const uint64_t strings = u64(bin, e + 8), count = u64(bin, e + 16),
                       image_at = u64(bin, e + 24), image_size = u64(bin, e + 32);
        if (strings > size || count > (size - strings) / 16)
            return bad("its strings lie outside it");
        if (image_at > size || image_size > size - image_at)
            return bad("its image lies outside it");
        OffloadImage img;
        img.image = bin.substr(static_cast<size_t>(image_at), static_cast<size_t>(image_size));
        img.binary = bin;
        for (uint64_t k = 0; k < count; ++k) {
            const size_t at_k = static_cast<size_t>(strings + 16 * k);
            auto key = c_string(bin, u64(bin, at_k));
            auto value = c_string(bin, u64(bin, at_k + 8));
            if (!key || !value) return bad("a string runs past it");
            if (*key == "triple") img.triple = *value;
            if (*key == "arch") img.arch = *value;
        }
        out.push_back(std::move(img));
        at += static_cast<size_t>(size);
    }
    return out;
}

namespace {

/// The device code the link's inputs hold, as clang-linker-wrapper names what
/// it extracts: "<stem>-<triple>-<arch>-<random>.<ext>", the stem that of the
/// input or archive member (sys::path::stem). Every file the wrapper may read
/// is a candidate: the job's words that name files, and each archive a `-l`
/// may name in any -L folder. A name is resolved only when exactly one
/// candidate of that stem holds exactly one image of that triple and
/// architecture: when two could, the step cannot know which the wrapper read.
class DeviceInputs {
public:
    explicit DeviceInputs(const std::vector<std::string>& job) {
        std::vector<std::string> dirs, libs;
        for (size_t i = 1; i < job.size(); ++i) {
            const std::string& w = job[i];
            if (w.starts_with("@")) problem = "the wrapper reads a response file (" + w + ")";
            if (w.starts_with("--sysroot")) problem = "the link has a sysroot (" + w + ")";
            if (w.starts_with("--library")) problem = "the link names '" + w + "'";
            if (w == "-o") {
                ++i; // the program, not an input
            } else if ((w == "-L" || w == "-l") && i + 1 < job.size()) {
                (w == "-L" ? dirs : libs).push_back(job[++i]);
            } else if (w.starts_with("-L")) {
                dirs.push_back(w.substr(2));
            } else if (w.starts_with("-l")) {
                libs.push_back(w.substr(2));
            } else if (!w.starts_with("-") && util::file_exists(w)) {
                files_.push_back(w);
            }
        }
        for (const std::string& d : dirs)
            if (d.starts_with("=")) problem = "a -L folder is under the sysroot (" + d + ")";
        std::vector<util::FileId> seen;
        for (const std::string& lib : libs) {
            const std::string file = lib.starts_with(":") ? lib.substr(1) : "lib" + lib + ".a";
            for (const std::string& d : dirs) {
                const std::string path = util::join_path(d, file);
                if (!util::file_exists(path)) continue;
                util::FileId id = util::file_id(path);
                if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
                seen.push_back(id);
                files_.push_back(path);
            }
        }
    }

    /// Why the step cannot know every file the wrapper reads, or "".
    std::string problem;

    /// "FILE(MEMBER)" of the first archive member the wrapper may read that
    /// holds device code, or "".
    Result<std::string> device_archive() {
        for (const std::string& file : files_) {
            if (!starts_as_archive(file)) continue;
            auto bytes = load(file);
            if (!bytes) return bytes.error();
            auto members = members_of(file, **bytes);
            if (!members) return members.error();
            for (const util::ar::Member& m : **members) {
                auto obj = util::elf::parse(m.data);
                if (!obj) continue; // not an object: nothing the wrapper links as device code
                int at = obj->find(".llvm.offloading");
                if (at >= 0 && obj->sections[static_cast<size_t>(at)].size > 0)
                    return file + "(" + m.name + ")";
            }
        }
        return std::string();
    }

    /// The one image the wrapper's temporary file `name` holds.
    Result<std::string_view> find(const std::string& name, const std::string& triple) {
        std::vector<std::string> where;
        std::string_view found;
        std::string unreadable;
        auto consider = [&](const std::string& what, std::string_view stem,
                            std::string_view bytes) {
            const std::string prefix = std::string(stem) + "-" + triple + "-";
            if (!name.starts_with(prefix)) return;
            std::string rest = name.substr(prefix.size());
            if (size_t dot = rest.rfind('.'); dot != std::string::npos) rest.resize(dot);
            size_t dash = rest.rfind('-');
            if (dash == std::string::npos) return;
            const std::string arch = rest.substr(0, dash);
            auto obj = util::elf::parse(bytes);
            if (!obj) {
                unreadable = what + ": " + obj.error().message;
                return;
            }
            int at = obj->find(".llvm.offloading");
            if (at < 0) return;
            auto images = offload_images(obj->contents(obj->sections[static_cast<size_t>(at)]));
            if (!images) {
                unreadable = what + ": " + images.error().message;
                return;
            }
            for (const OffloadImage& img : *images)
                if (img.triple == triple && img.arch == arch) {
                    where.push_back(what);
                    found = img.image;
                }
        };
        for (const std::string& file : files_) {
            // Only archives and files of a matching stem are read.
            const std::string_view base_stem = stem(compile::base_name(file));
            const bool named = name.starts_with(std::string(base_stem) + "-" + triple + "-");
            if (!named && !starts_as_archive(file)) continue;
            auto bytes = load(file);
            if (!bytes) return bytes.error();
            if (util::ar::is_archive(**bytes)) {
                auto members = members_of(file, **bytes);
                if (!members) return members.error();
                for (const util::ar::Member& m : **members)
                    consider(file + "(" + m.name + ")", stem(m.name), m.data);
            } else {
                consider(file, base_stem, **bytes);
            }
        }
        if (!unreadable.empty())
            return make_error("the wrapper's '" + name + "' may come from " + unreadable);
        if (where.empty())
            return make_error("no input of the link holds the wrapper's '" + name + "'");
        if (where.size() > 1)
            return make_error("the wrapper's '" + name + "' may come from " + where[0] + " or " +
                              where[1]);
        return found;
    }

private:
    static std::string_view stem(std::string_view file) {
        size_t dot = file.rfind('.');
        return dot == std::string_view::npos || dot == 0 ? file : file.substr(0, dot);
    }

    /// Whether `file` starts with an archive's magic (its first 8 bytes read, once).
    bool starts_as_archive(const std::string& file) {
        auto [it, added] = archive_.emplace(file, false);
        if (!added) return it->second;
        char head[8] = {};
        if (std::FILE* f = std::fopen(file.c_str(), "rb")) {
            const size_t n = std::fread(head, 1, sizeof head, f);
            std::fclose(f);
            it->second = util::ar::is_archive(std::string_view(head, n));
        }
        return it->second;
    }

    /// The members of archive `file` (its `bytes`), parsed once.
    Result<const std::vector<util::ar::Member>*> members_of(const std::string& file,
                                                            std::string_view bytes) {
        auto it = members_.find(file);
        if (it == members_.end()) {
            auto members = util::ar::members(bytes);
            if (!members) return make_error(file + ": " + members.error().message);
            it = members_.emplace(file, std::move(*members)).first;
        }
        return &it->second;
    }

    /// A file's bytes, read once.
    Result<const std::string*> load(const std::string& file) {
        auto it = bytes_.find(file);
        if (it == bytes_.end()) {
            auto read = util::read_file(file);
            if (!read) return make_error("cannot read " + file + ": " + read.error().message);
            it = bytes_.emplace(file, std::move(*read)).first;
        }
        return &it->second;
    }

    std::vector<std::string> files_;
    std::map<std::string, std::string> bytes_; ///< files read, by name (nodes stay put)
    std::map<std::string, bool> archive_;      ///< whether a file is an archive
    std::map<std::string, std::vector<util::ar::Member>> members_; ///< views into bytes_
};

/// The wrapper links the device code itself, for `why`.
LinkPlanFiles wrapper_links_all(const std::vector<std::string>& job, size_t archs,
                                std::string why) {
    LinkPlanFiles r;
    r.device.assign(archs, {});
    r.device_inputs_hash.assign(archs, {});
    r.host = {job};
    r.why = std::move(why);
    return r;
}

Status write_if_changed(const std::string& path, std::string_view content) {
    const std::string_view pieces[] = {content};
    if (util::file_holds(path, pieces)) return Ok{};
    return util::write_file_atomic(path, content);
}

/// Whether device job `w` of the wrapper's dry run links what the wrapper
/// linked in its own process (clang 19: no -flto, and its one temporary input
/// is "<output>.<triple>.<arch>-<random>.o", the wrapper's LTO output).
bool links_in_process(const std::vector<std::string>& w, const std::string& output,
                      const std::string& prefix) {
    if (std::find(w.begin(), w.end(), "-flto") != w.end()) return false;
    const std::string arch = probe::job_value(w, "-mcpu=");
    const std::string name = std::string(compile::base_name(output)) + "." +
                             probe::job_value(w, "--target=") + "." + arch + "-";
    int reads = 0, lto = 0;
    for (size_t i = 1; i < w.size(); ++i) {
        if (w[i - 1] == "-o" || !w[i].starts_with(prefix)) continue;
        ++reads;
        lto += w[i].substr(prefix.size()).starts_with(name) ? 1 : 0;
    }
    return reads == 1 && lto == 1;
}

/// Calls `each(i, object, section, images)` for each word i of `job` naming
/// an input object whose .llvm.offloading section (index `section`) holds
/// device code: its images. Other words are not given.
Status for_each_device_object(const std::vector<std::string>& job,
                              const std::function<Status(size_t, const util::elf::Object&, int,
                                                         const std::vector<OffloadImage>&)>& each) {
    for (size_t i = 1; i < job.size(); ++i) {
        const std::string& w = job[i];
        if (job[i - 1] == "-o" || w.starts_with("-") || !util::file_exists(w)) continue;
        auto bytes = util::read_file(w);
        if (!bytes) return make_error("cannot read " + w + ": " + bytes.error().message);
        auto obj = util::elf::parse(*bytes);
        int at = obj ? obj->find(".llvm.offloading") : -1;
        if (at < 0) continue; // no device code (archives were looked into before)
        auto images = offload_images(obj->contents(obj->sections[static_cast<size_t>(at)]));
        if (!images) return make_error(w + ": " + images.error().message);
        if (Status st = each(i, *obj, at, *images); !st) return st;
    }
    return Ok{};
}

/// The device link of `arch` for a wrapper that links in its own process:
/// the wrapper's own job given, for each input object holding device code,
/// an object holding that architecture's offload binary alone
/// ("<dir>/x/<arch>/<k>/<name>", rewritten only when it changes), run by
/// `phc-ninja wrapper-image`. `hash` gets what the objects hold.
Result<std::vector<std::string>> per_arch_wrapper(const std::vector<std::string>& job,
                                                  const std::string& arch,
                                                  const std::string& triple, const std::string& dir,
                                                  util::Hasher& hash,
                                                  const std::string& slices = {}) {
    std::vector<std::string> out{util::self_exe(),
                                 "wrapper-image",
                                 "--arch",
                                 arch,
                                 "-o",
                                 device_link_image(dir, arch),
                                 "--"};
    const std::string xdir = slices.empty() ? dir + "/x" : slices;
    out.insert(out.end(), job.begin(), job.end());
    const size_t first = out.size() - job.size();
    size_t k = 0;
    Status done = for_each_device_object(
        job,
        [&](size_t i, const util::elf::Object& obj, int at,
            const std::vector<OffloadImage>& images) -> Status {
            std::string_view slice;
            int n = 0;
            for (const OffloadImage& img : images)
                if (img.triple == triple && img.arch == arch) {
                    slice = img.binary;
                    ++n;
                }
            if (n > 1)
                return make_error(job[i] + " holds " + std::to_string(n) + " images of " + arch);
            const std::string folder = xdir + "/" + safe_arch(arch) + "/" + std::to_string(k++);
            if (Status made = util::make_dirs(folder); !made) return made.error();
            const std::string path = folder + "/" + std::string(compile::base_name(job[i]));
            if (Status st = write_if_changed(path, util::elf::only_section(obj, at, slice)); !st)
                return st;
            hash.add(path).add(slice);
            out[first + i] = path;
            return Ok{};
        });
    if (!done) return done.error();
    return out;
}

} // namespace

Result<LinkPlanFiles> decide_link_plan(const std::vector<std::string>& job,
                                       const std::vector<std::string>& archs,
                                       const std::string& dir, std::string_view dry_run,
                                       const std::string& temp) {
    auto alone = [&](std::string why) {
        return wrapper_links_all(job, archs.size(), std::move(why));
    };
    DeviceInputs inputs(job);
    if (!inputs.problem.empty()) return alone(inputs.problem);
    LinkPlanFiles r = wrapper_links_all(job, archs.size(), {}); // then given the images
    for (const std::string& arch : archs)
        r.host[0].push_back("--override-image=hip=" + device_link_image(dir, arch));
    if (Status made = util::make_dirs(dir + "/x"); !made) return made.error();
    const std::string output = probe::job_word_after(job, "-o");
    const std::string prefix = temp + "/";
    const std::vector<std::vector<std::string>> jobs = probe::wrapper_jobs(dry_run);
    bool checked_archives = false;
    std::vector<std::pair<std::string, std::string>> written; // the wrapper's name, the image
    const std::vector<std::string>* bundler = nullptr;
    for (const std::vector<std::string>& w : jobs) {
        std::string_view prog = compile::base_name(w[0]);
        if (prog.starts_with("clang-offload-bundler")) {
            if (bundler) return alone("the wrapper bundles twice");
            bundler = &w;
            continue;
        }
        if (probe::job_word_after(w, "-o") == output) continue; // the host link runs it itself
        const std::string arch = probe::job_value(w, "-mcpu=");
        if (arch.empty()) return alone("the wrapper runs '" + std::string(prog) + "'");
        auto at = std::find(archs.begin(), archs.end(), arch);
        if (at == archs.end())
            return alone("the wrapper links " + arch + ", which the link does not name");
        const size_t k = static_cast<size_t>(at - archs.begin());
        if (!r.device[k].empty()) return alone("the wrapper links " + arch + " twice");
        const std::string triple = probe::job_value(w, "--target=");
        util::Hasher hash;
        if (links_in_process(w, output, prefix)) {
            // clang 19: the wrapper given one architecture's device code links it alone.
            if (!checked_archives) {
                auto archive = inputs.device_archive();
                if (!archive) return alone(archive.error().message);
                if (!archive->empty())
                    return alone("the wrapper links " + *archive +
                                 "'s device code in its own process, picking archive members by "
                                 "their symbols");
                checked_archives = true;
            }
            auto cmd = per_arch_wrapper(job, arch, triple, dir, hash);
            if (!cmd) return alone(cmd.error().message);
            written.emplace_back(probe::job_word_after(w, "-o"), device_link_image(dir, arch));
            r.device[k] = std::move(*cmd);
            r.device_inputs_hash[k] = hash.hex128();
            continue;
        }
        std::vector<std::string> argv;
        size_t n = 0;
        for (size_t i = 0; i < w.size(); ++i) {
            std::string word = w[i];
            if (i > 0 && w[i - 1] == "-o") {
                written.emplace_back(word, device_link_image(dir, arch));
                word = device_link_image(dir, arch);
            } else if (word.starts_with(prefix)) {
                const std::string name = word.substr(prefix.size());
                auto image = inputs.find(name, triple);
                if (!image) return alone(image.error().message);
                word = dir + "/x/" + safe_arch(arch) + "-" + std::to_string(n++) + ".o";
                if (Status st = write_if_changed(word, *image); !st) return st.error();
                hash.add(word).add(*image);
            } else if (word.find(temp) != std::string::npos) {
                return alone("a device link names a temporary file in a form not known ('" + word +
                             "')");
            }
            argv.push_back(std::move(word));
        }
        if (n == 0)
            return alone("the wrapper's device link for " + arch + " reads no extracted file");
        r.device[k] = std::move(argv);
        r.device_inputs_hash[k] = hash.hex128();
    }
    for (size_t k = 0; k < archs.size(); ++k)
        if (r.device[k].empty())
            return alone("the wrapper links no device code for " + archs[k] +
                         " (clang 19's wrapper links in its own process)");
    if (has_features(archs)) {
        // The wrapper names the images it is given by processor alone: the fat
        // binary is bundled as its dry run bundles (by target ID), and put in
        // place of the wrapper's own (wrapper_link.h).
        if (!bundler) return alone("the wrapper bundles no fat binary");
        const std::string fatbin = dir + "/fatbin.hipfb";
        auto b = bundle_job(*bundler, written, temp, fatbin);
        if (!b) return alone(b.error().message);
        r.host = {std::move(*b), wrapper_link_command(fatbin, r.host[0])};
    }
    return r;
}

namespace {

Status write_plans(const LinkPlanFiles& r, const std::vector<std::string>& archs,
                   const std::string& dir, bool driver) {
    auto output_of = [&](const std::string& arch) {
        return driver ? driver_device_link_output(dir, arch) : device_link_image(dir, arch);
    };
    for (size_t k = 0; k < archs.size(); ++k) {
        nlohmann::json j{{"commands", r.device[k].empty() ? nlohmann::json::array()
                                                          : nlohmann::json::array({r.device[k]})},
                         {"output", output_of(archs[k])},
                         {"inputs", r.device_inputs_hash[k]},
                         {"why", r.why}};
        if (Status st = write_if_changed(device_link_plan(dir, archs[k]), j.dump() + "\n"); !st)
            return st;
    }
    nlohmann::json host{{"commands", r.host}, {"why", r.why}};
    return write_if_changed(host_link_plan(dir), host.dump() + "\n");
}

} // namespace

Result<LinkPlanFiles> decide_driver_plan(const LinkPlan& p, const std::vector<std::string>& link,
                                         const std::vector<std::string>& archs,
                                         const std::string& dir) {
    auto alone = [&](std::string why) {
        return wrapper_links_all(link, archs.size(), std::move(why));
    };
    if (!p.split()) return alone(p.analysis.decision.text);
    LinkPlanFiles r;
    r.device.assign(archs.size(), {});
    r.device_inputs_hash.assign(archs.size(), {});
    for (const Step& s : p.steps) {
        switch (s.kind) {
        case StepKind::Unbundle: {
            // Cheap, and what the device links read: run now.
            auto ran = util::run_capture(s.argv, s.cwd);
            if (!ran) return ran.error();
            if (ran->exit_code != 0)
                return alone(fmt::format("unbundling {} failed (exit {})",
                                         s.inputs.empty() ? "an input" : s.inputs[0],
                                         ran->exit_code));
            break;
        }
        case StepKind::DeviceLink: {
            auto at = std::find(archs.begin(), archs.end(), s.arch);
            if (at == archs.end())
                return alone("the driver links " + s.arch + ", which the link's edges do not");
            const size_t k = static_cast<size_t>(at - archs.begin());
            if (!r.device[k].empty()) return alone("the driver links " + s.arch + " twice");
            if (s.outputs != std::vector<std::string>{driver_device_link_output(dir, s.arch)})
                return alone("the device link for " + s.arch + " writes another file");
            util::Hasher hash;
            for (const std::string& in : s.inputs) {
                auto bytes = util::read_file(util::join_path(s.cwd, in));
                if (!bytes) return make_error("cannot read " + in + ": " + bytes.error().message);
                hash.add(in).add(*bytes);
            }
            r.device[k] = s.argv;
            r.device_inputs_hash[k] = hash.hex128();
            break;
        }
        case StepKind::Fatbin:
        case StepKind::FatbinObject:
        case StepKind::HostLink:
            r.host.push_back(s.argv);
            break;
        default:
            return alone("the driver's link runs a '" + std::string(step_kind_name(s.kind)) +
                         "' step");
        }
    }
    for (size_t k = 0; k < archs.size(); ++k)
        if (r.device[k].empty()) return alone("the driver links no device code for " + archs[k]);
    return r;
}

namespace {

/// --driver: the old driver's link `link`, planned from its `-###` now.
Result<LinkPlanFiles> plan_driver_link(const std::vector<std::string>& link,
                                       const std::vector<std::string>& archs,
                                       const std::string& dir) {
    compile::LinkAnalysis a = compile::analyze_link_string(compile::join_command(link), {});
    if (!a.decision.split()) return wrapper_links_all(link, archs.size(), a.decision.text);
    auto jobs = probe::run_driver_jobs(probe::ProbeRequest{{}, link, "."});
    if (!jobs)
        return wrapper_links_all(link, archs.size(),
                                 "the driver's -### failed: " + jobs.error().message);
    auto none = [](const std::string&) -> const SplitObject* { return nullptr; };
    LinkPlan p = make_link_plan(std::move(a), *jobs, none, dir);
    return decide_driver_plan(p, link, archs, dir);
}

/// The device job of `arch` among a wrapper's dry-run jobs, or null.
const std::vector<std::string>* device_job_of(const std::vector<std::vector<std::string>>& jobs,
                                              const std::string& arch) {
    const std::vector<std::string>* found = nullptr;
    for (const auto& j : jobs)
        if (probe::job_value(j, "-mcpu=") == arch) {
            if (found) return nullptr;
            found = &j;
        }
    return found;
}

/// "" when the wrapper-image command `cmd`'s job, run with --dry-run, runs
/// for `arch` the device job `original` (the original job's dry run) runs
/// for it, and no other device job; else the difference.
std::string per_arch_jobs_differ(const std::vector<std::vector<std::string>>& original,
                                 const std::vector<std::string>& cmd, const std::string& arch) {
    std::vector<std::string> dry = wrapped_job(cmd);
    dry.push_back("--dry-run");
    util::TempDir scratch("phc-link-plan");
    if (scratch.path().empty()) return "cannot make a temporary folder";
    auto ran = util::run_capture_tmp(dry, scratch.path());
    if (!ran || ran->exit_code != 0)
        return "the wrapper's --dry-run given " + arch + "'s device code alone failed";
    const std::vector<std::vector<std::string>> jobs = probe::wrapper_jobs(ran->err + ran->out);
    size_t devices = 0;
    for (const auto& j : jobs)
        devices += probe::job_value(j, "-mcpu=").empty() ? 0 : 1;
    const std::vector<std::string>* ours = device_job_of(jobs, arch);
    const std::vector<std::string>* theirs = device_job_of(original, arch);
    if (!ours || !theirs || devices != 1)
        return "the wrapper given " + arch + "'s device code alone links other device code";
    // Temporary files are named by the job that writes them on both sides.
    const std::string temp = probe::job_word_after(*theirs, "-o");
    JobSet a, b;
    a.jobs = {*theirs};
    a.temp_dirs = {temp.substr(0, temp.rfind('/'))};
    const std::string mine = probe::job_word_after(*ours, "-o");
    b.jobs = {*ours};
    b.temp_dirs = {mine.substr(0, mine.rfind('/'))};
    std::string why = compare_jobs(a, b);
    return why.empty() ? why : "the wrapper given " + arch + "'s device code alone: " + why;
}

/// `job` with each input object that holds device code replaced by a
/// stand-in in `scratch` of the same name holding, for each of its images'
/// triples and architectures, empty device bitcode: clang 19's wrapper links
/// the device code even for --dry-run (its LTO runs in its own process), and
/// the jobs it prints do not depend on what the code is.
Result<std::vector<std::string>> with_stand_ins(const std::vector<std::string>& job,
                                                const std::string& scratch) {
    const std::string packer = packer_beside(job[0]);
    if (packer.empty()) return make_error("no offload packer beside " + job[0]);
    const std::string bitcode = scratch + "/phc-empty.bc";
    if (Status st = write_stand_in_bitcode(packer, bitcode); !st) return st.error();
    std::vector<std::string> out = job;
    size_t k = 0;
    Status done = for_each_device_object(
        job,
        [&](size_t i, const util::elf::Object& obj, int at,
            const std::vector<OffloadImage>& images) -> Status {
            const std::string folder = scratch + "/s" + std::to_string(k++);
            if (Status st = util::make_dirs(folder); !st) return st;
            std::vector<std::pair<std::string, std::string>> targets;
            for (const OffloadImage& img : images)
                targets.emplace_back(img.triple, img.arch);
            if (Status st = pack_stand_in(packer, bitcode, folder + "/packed", targets); !st)
                return st;
            auto binary = util::read_file(folder + "/packed");
            if (!binary) return binary.error();
            const std::string stand_in = folder + "/" + std::string(compile::base_name(job[i]));
            if (Status st =
                    util::write_file_atomic(stand_in, util::elf::only_section(obj, at, *binary));
                !st)
                return st;
            out[i] = stand_in;
            return Ok{};
        });
    if (!done) return done.error();
    return out;
}

/// The wrapper's job, planned from its --dry-run now (`in_process`: a
/// wrapper that links device code for --dry-run too, asked with stand-ins).
Result<LinkPlanFiles> plan_wrapper_link(const std::vector<std::string>& job,
                                        const std::vector<std::string>& archs,
                                        const std::string& dir, bool in_process) {
    util::TempDir scratch("phc-link-plan");
    if (scratch.path().empty()) return make_error("cannot make a temporary folder");
    std::vector<std::string> dry = job;
    if (in_process) {
        auto stood = with_stand_ins(job, scratch.path());
        if (!stood) return wrapper_links_all(job, archs.size(), stood.error().message);
        dry = std::move(*stood);
    }
    const std::vector<std::string> asked = dry;
    dry.push_back("--dry-run");
    auto ran = util::run_capture_tmp(dry, scratch.path());
    if (!ran) return ran.error();
    if (ran->exit_code != 0)
        return wrapper_links_all(job, archs.size(),
                                 fmt::format("its --dry-run failed (exit {})", ran->exit_code));
    const std::string said = ran->err + ran->out;
    auto r = decide_link_plan(job, archs, dir, said, scratch.path());
    if (!r || !r->why.empty()) return r;
    // A device link the wrapper runs given one architecture's device code
    // (clang 19's, wrapper-image) must be the one it runs for that
    // architecture given all of it, as their dry runs say.
    const std::vector<std::vector<std::string>> original = probe::wrapper_jobs(said);
    for (size_t k = 0; k < archs.size(); ++k) {
        const std::vector<std::string>& cmd = r->device[k];
        if (cmd.size() < 2 || cmd[1] != "wrapper-image") continue;
        // Asked as the original was: of the stand-ins, cut as the real inputs are.
        const std::vector<std::string>* theirs = device_job_of(original, archs[k]);
        util::Hasher unused;
        auto stood =
            per_arch_wrapper(asked, archs[k], theirs ? probe::job_value(*theirs, "--target=") : "",
                             dir, unused, scratch.path() + "/x");
        if (!stood) return wrapper_links_all(job, archs.size(), stood.error().message);
        if (std::string why = per_arch_jobs_differ(original, *stood, archs[k]); !why.empty())
            return wrapper_links_all(job, archs.size(), why);
    }
    return r;
}

} // namespace

int link_plan_main(int argc, char** argv) {
    std::string dir, archs_text;
    bool driver = false, in_process = false;
    util::CommandLine cl{"phc-ninja link-plan",
                         "[--driver | --in-process] --dir DIR --archs A,B,... -- JOB...",
                         "(run by the edges of a split RDC link, once its inputs exist) decides "
                         "which device code each architecture links, as clang-linker-wrapper "
                         "(JOB, its job) or, with --driver, the old driver (JOB, the link "
                         "command) would, and writes DIR's plans.",
                         {},
                         {},
                         true,
                         true};
    cl.options = {
        util::flag_option({"--driver"}, "JOB is the old driver's link command", driver),
        util::flag_option({"--in-process"},
                          "the wrapper links device code in its own process, even for --dry-run "
                          "(clang 19): it is asked with stand-ins of the inputs' device code",
                          in_process),
        util::text_option({"--dir"}, "DIR", "the link's private folder", dir),
        util::text_option({"--archs"}, "A,B,...", "the architectures the link's edges link",
                          archs_text),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    std::vector<std::string> archs = util::split_on(archs_text, ',');
    archs.erase(std::remove(archs.begin(), archs.end(), std::string()), archs.end());
    if (dir.empty() || archs.empty() || parsed.positional.empty())
        return util::usage_error(cl, "--dir, --archs and the job are needed");
    const std::vector<std::string>& job = parsed.positional;
    if (Status made = util::make_dirs(dir); !made) return print_error(cl.name, made.error());
    Result<LinkPlanFiles> r =
        driver ? plan_driver_link(job, archs, dir) : plan_wrapper_link(job, archs, dir, in_process);
    if (!r) return print_error(cl.name, r.error());
    if (Status st = write_plans(*r, archs, dir, driver); !st)
        return print_error(cl.name, st.error());
    if (!r->why.empty())
        std::fprintf(stderr, "phc-ninja: %s: the %s links its device code itself: %s\n",
                     probe::job_word_after(job, "-o").c_str(), driver ? "driver" : "wrapper",
                     r->why.c_str());
    return 0;
}

int planned_main(int argc, char** argv) {
    util::CommandLine cl{"phc-ninja planned",
                         "PLAN",
                         "(run by the edges of a split RDC link) runs the commands PLAN names, "
                         "in order, as `phc-ninja link-plan` wrote it.",
                         {},
                         {},
                         true,
                         false};
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (parsed.positional.size() != 1) return util::usage_error(cl, "one PLAN is needed");
    const std::string& file = parsed.positional[0];
    auto text = util::read_regular_file(file, 64u << 20);
    if (!text) return print_error(cl.name, make_error(file + ": " + text.error().message));
    std::vector<std::vector<std::string>> commands;
    std::string output;
    try {
        nlohmann::json j = nlohmann::json::parse(*text);
        commands = j.at("commands").get<std::vector<std::vector<std::string>>>();
        output = j.value("output", std::string());
    } catch (const std::exception& e) {
        return print_error(cl.name, make_error(file + ": not a plan phc-ninja link-plan wrote (" +
                                               e.what() + ")"));
    }
    for (const auto& c : commands)
        if (c.empty()) return print_error(cl.name, make_error(file + ": an empty command"));
    if (commands.empty()) {
        // The wrapper (the driver) links this architecture's device code in the host link.
        if (output.empty()) return print_error(cl.name, make_error(file + ": names no command"));
        if (Status st = util::write_file_atomic(output, ""); !st)
            return print_error(cl.name, st.error());
        return 0;
    }
    for (size_t i = 0; i + 1 < commands.size(); ++i) {
        auto rc = util::run_inheriting(commands[i]);
        if (!rc) {
            print_error(cl.name, rc.error());
            return 127;
        }
        if (*rc != 0) return *rc;
    }
    print_error(cl.name, util::exec_program(commands.back()));
    return 127;
}

} // namespace phc::split
