#include "split/wrapper_link.h"

#include "compile/command.h"
#include "probe/probe.h"
#include "util/args.h"
#include "util/elf.h"
#include "util/file.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fmt/format.h>
#include <functional>
#include <nlohmann/json.hpp>
#include <unistd.h>

namespace phc::split {

namespace {

constexpr std::string_view kMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::string_view kLinker = "phc-wrapper-ld";    ///< the linker's name, in the temp folder
constexpr std::string_view kInfo = "phc-wrapper-ld.json"; ///< what it needs to know, beside it
constexpr std::string_view kRefused = "phc-wrapper-ld.refused"; ///< why it did not link
constexpr int kRefusedExit = 3;

/// The end of the header of a bundle with `entries`: the magic, the count,
/// then each entry's offset, size, name size and name.
uint64_t header_end(const std::vector<BundleEntry>& entries) {
    uint64_t at = kMagic.size() + 8;
    for (const BundleEntry& e : entries)
        at += 24 + e.triple.size();
    return at;
}

/// `w` from its first '=' on ("-targets=a,b" -> "a,b"), or nullopt without that prefix.
std::optional<std::string_view> value_of(std::string_view w, std::string_view prefix) {
    if (!w.starts_with(prefix)) return std::nullopt;
    return w.substr(prefix.size());
}

} // namespace

Result<std::vector<BundleEntry>> bundle_entries(std::string_view b) {
    if (b.starts_with("CCOB"))
        return make_error("the bundle is compressed (CCOB): its entries cannot be compared");
    if (!b.starts_with(kMagic) || b.size() < kMagic.size() + 8)
        return make_error("not an offload bundle (no __CLANG_OFFLOAD_BUNDLE__)");
    const uint64_t n = util::elf::read_le<uint64_t>(b, kMagic.size());
    if (n > b.size() / 24) return make_error("the bundle claims more entries than it can hold");
    std::vector<BundleEntry> out;
    uint64_t at = kMagic.size() + 8;
    for (uint64_t i = 0; i < n; ++i) {
        if (b.size() - at < 24) return make_error("the bundle's entries are cut short");
        BundleEntry e;
        e.offset = util::elf::read_le<uint64_t>(b, at);
        e.size = util::elf::read_le<uint64_t>(b, at + 8);
        const uint64_t len = util::elf::read_le<uint64_t>(b, at + 16);
        at += 24;
        if (len > b.size() - at) return make_error("an entry's name lies outside the bundle");
        e.triple = std::string(b.substr(at, len));
        at += len;
        if (e.offset > b.size() || e.size > b.size() - e.offset)
            return make_error("entry '" + e.triple + "' lies outside the bundle");
        out.push_back(std::move(e));
    }
    return out;
}

Result<std::string> fatbin_swapped(std::string_view object, std::string_view wrapper_bundle,
                                   std::string_view right) {
    auto obj = util::elf::parse(object);
    if (!obj) return make_error("the wrapper's object: " + obj.error().message);
    int at = -1;
    for (size_t i = 0; i < obj->sections.size(); ++i)
        if (obj->sections[i].name == ".hip_fatbin") {
            if (at >= 0) return make_error("the wrapper's object has two .hip_fatbin sections");
            at = static_cast<int>(i);
        }
    if (at < 0) return make_error("the wrapper's object has no .hip_fatbin section");
    const util::elf::Section& sec = obj->sections[static_cast<size_t>(at)];
    if (obj->contents(sec) != wrapper_bundle || sec.type == 8 /* NOBITS */)
        return make_error("the wrapper's .hip_fatbin is not its bundle byte for byte");
    if (right.size() != wrapper_bundle.size())
        return make_error(fmt::format("the fat binary is {} bytes, the wrapper's bundle {}",
                                      right.size(), wrapper_bundle.size()));
    auto theirs = bundle_entries(wrapper_bundle);
    if (!theirs) return make_error("the wrapper's bundle: " + theirs.error().message);
    auto ours = bundle_entries(right);
    if (!ours) return make_error("the fat binary: " + ours.error().message);
    if (theirs->size() != ours->size())
        return make_error(fmt::format("the fat binary has {} entries, the wrapper's bundle {}",
                                      ours->size(), theirs->size()));
    for (size_t i = 0; i < ours->size(); ++i) {
        const BundleEntry& t = (*theirs)[i];
        const BundleEntry& o = (*ours)[i];
        if (o.triple != t.triple && !o.triple.starts_with(t.triple + ":"))
            return make_error("entry " + std::to_string(i) + " is '" + o.triple +
                              "', the wrapper's '" + t.triple + "': not it with features");
        if (o.offset != t.offset || o.size != t.size)
            return make_error("entry '" + o.triple + "' lies elsewhere than the wrapper's");
    }
    // Every byte after the longer header is the same (the images and the
    // padding); between the two headers' ends the wrapper's has zeros only.
    const uint64_t end_theirs = header_end(*theirs), end_ours = header_end(*ours);
    if (end_ours < end_theirs)
        return make_error("the fat binary's header is shorter than the wrapper's");
    for (uint64_t p = end_theirs; p < end_ours; ++p)
        if (wrapper_bundle[p] != '\0')
            return make_error("the wrapper's bundle has data where the fat binary's header is");
    if (right.substr(end_ours) != wrapper_bundle.substr(end_ours))
        return make_error("the fat binary's images are not the wrapper's");
    std::string out(object);
    out.replace(sec.offset, sec.size, right);
    return out;
}

std::vector<std::string> without_images(const std::vector<std::string>& job) {
    std::vector<std::string> out;
    for (const std::string& w : job)
        if (!w.starts_with("--override-image=")) out.push_back(w);
    return out;
}

bool has_features(const std::vector<std::string>& archs) {
    return std::any_of(archs.begin(), archs.end(),
                       [](const std::string& a) { return a.find(':') != std::string::npos; });
}

Result<std::vector<std::string>>
bundle_job(const std::vector<std::string>& job,
           const std::vector<std::pair<std::string, std::string>>& images, const std::string& temp,
           const std::string& fatbin) {
    std::vector<std::string> out{job[0]};
    std::vector<int> used(images.size(), 0);
    int outputs = 0;
    for (size_t i = 1; i < job.size(); ++i) {
        const std::string& w = job[i];
        if (w.starts_with("-") &&
            std::string_view(w).substr(0, w.find('=')).find("compress") != std::string::npos)
            return make_error("the wrapper compresses its bundle ('" + w + "')");
        if (auto in = value_of(w, "-input="); in && in->starts_with(temp + "/")) {
            auto it = std::find_if(images.begin(), images.end(),
                                   [&](const auto& im) { return im.first == *in; });
            if (it == images.end())
                return make_error("the wrapper bundles '" + std::string(*in) +
                                  "', which no device link writes");
            ++used[static_cast<size_t>(it - images.begin())];
            out.push_back("-input=" + it->second);
        } else if (auto o = value_of(w, "-output=")) {
            ++outputs;
            out.push_back("-output=" + fatbin);
        } else if (w.find(temp) != std::string::npos) {
            return make_error("the wrapper's bundler job names '" + w + "'");
        } else {
            out.push_back(w);
        }
    }
    if (outputs != 1) return make_error("the wrapper's bundler job writes no one file");
    for (size_t k = 0; k < images.size(); ++k)
        if (used[k] != 1)
            return make_error("the wrapper's bundler job reads '" + images[k].first + "' " +
                              std::to_string(used[k]) + " times");
    return out;
}

std::vector<std::string> wrapper_link_command(const std::string& fatbin,
                                              const std::vector<std::string>& job) {
    std::vector<std::string> out{util::self_exe(), "wrapper-link", "--fatbin", fatbin, "--"};
    out.insert(out.end(), job.begin(), job.end());
    return out;
}

std::vector<std::string> wrapped_job(const std::vector<std::string>& argv) {
    if (argv.size() < 2 || (argv[1] != "wrapper-link" && argv[1] != "wrapper-image")) return argv;
    auto dash = std::find(argv.begin() + 2, argv.end(), "--");
    if (dash == argv.end()) return argv;
    return {dash + 1, argv.end()};
}

std::string bundle_jobs_differ(const std::vector<std::string>& processor,
                               const std::vector<std::string>& target_id) {
    if (processor.size() != target_id.size())
        return fmt::format("the wrapper's bundler job has {} words, the split's {}",
                           processor.size(), target_id.size());
    for (size_t i = 0; i < processor.size(); ++i) {
        const std::string& p = processor[i];
        const std::string& t = target_id[i];
        if (p.starts_with("-output=") && t.starts_with("-output=")) continue;
        if (p == t) continue;
        auto pt = value_of(p, "-targets=");
        auto tt = value_of(t, "-targets=");
        if (pt && tt) {
            std::vector<std::string> ps = util::split_on(*pt, ','), ts = util::split_on(*tt, ',');
            bool same = ps.size() == ts.size();
            for (size_t k = 0; same && k < ps.size(); ++k)
                same = ts[k] == ps[k] ||
                       (ps[k].find(':') == std::string::npos && ts[k].starts_with(ps[k] + ":"));
            if (same) continue;
        }
        return "the wrapper's bundler job given the images has '" + p +
               "' where the split's has '" + t + "'";
    }
    return {};
}

namespace {

/// The linker's refusal: why, for wrapper-link, and the exit the wrapper sees.
int refuse(const std::string& temp, const std::string& why) {
    if (!util::write_file_atomic(util::join_path(temp, std::string(kRefused)), why))
        std::fprintf(stderr, "phc-ninja wrapper-link: %s\n", why.c_str());
    return kRefusedExit;
}

/// The regular files of `dir` whose names end with `suffix`.
std::vector<std::string> files_ending(const std::string& dir, std::string_view suffix) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_regular_file(ec) && e.path().filename().string().ends_with(suffix))
            out.push_back(e.path().string());
    return out;
}

} // namespace

bool is_wrapper_linker(std::string_view argv0) {
    size_t slash = argv0.rfind('/');
    return argv0.substr(slash == std::string_view::npos ? 0 : slash + 1) == kLinker;
}

namespace {

/// The image mode of the linker (wrapper-image): the one image the wrapper
/// linked, "<output>.<kind>.<arch>-<random>.img" in its temporary folder, is
/// copied to "<temp>/phc-image"; nothing is linked.
int keep_image(const std::string& temp, const std::string& arch) {
    std::vector<std::string> images = files_ending(temp, ".img");
    if (images.size() != 1 || images[0].find("." + arch + "-") == std::string::npos) {
        std::string names;
        for (const std::string& i : images)
            names += " " + i.substr(temp.size() + 1);
        std::fprintf(stderr,
                     "phc-ninja wrapper-image: error: the wrapper linked these images, not one of "
                     "%s:%s\n",
                     arch.c_str(), names.empty() ? " none" : names.c_str());
        return 2;
    }
    auto bytes = util::read_file(images[0]);
    if (!bytes) {
        std::fprintf(stderr, "phc-ninja wrapper-image: error: %s\n", bytes.error().message.c_str());
        return 2;
    }
    if (Status st = util::write_file_atomic(util::join_path(temp, "phc-image"), *bytes); !st) {
        std::fprintf(stderr, "phc-ninja wrapper-image: error: %s\n", st.error().message.c_str());
        return 2;
    }
    return 0;
}

/// `job` with phc-ninja as its linker: a link named phc-wrapper-ld to it in
/// `temp`, beside what `info` (given the real linker) says it is to do.
Result<std::vector<std::string>>
with_our_linker(const std::vector<std::string>& job, const util::TempDir& temp,
                const std::function<nlohmann::json(const std::string&)>& info) {
    if (temp.path().empty()) return make_error("cannot make a temporary folder");
    const std::string shim = util::join_path(temp.path(), std::string(kLinker));
    std::vector<std::string> ours = job;
    std::string linker;
    int paths = 0;
    for (std::string& w : ours)
        if (auto l = value_of(w, "--linker-path=")) {
            ++paths;
            linker = std::string(*l);
            w = "--linker-path=" + shim;
        }
    if (paths != 1)
        return make_error("the job names --linker-path= " + std::to_string(paths) +
                          " times, not once");
    std::error_code ec;
    std::filesystem::create_symlink(util::self_exe(), shim, ec);
    if (ec) return make_error("cannot make " + shim + ": " + ec.message());
    if (Status st = util::write_file_atomic(util::join_path(temp.path(), std::string(kInfo)),
                                            info(linker).dump());
        !st)
        return st.error();
    return ours;
}

} // namespace

int wrapper_linker_main(int argc, char** argv) {
    const std::string self = argv[0];
    const std::string temp = self.substr(0, self.rfind('/'));
    std::string fatbin, linker, arch;
    try {
        auto text = util::read_file(util::join_path(temp, std::string(kInfo)));
        if (!text) throw std::runtime_error(text.error().message);
        nlohmann::json j = nlohmann::json::parse(*text);
        arch = j.value("image_of", std::string());
        if (arch.empty()) {
            fatbin = j.at("fatbin").get<std::string>();
            linker = j.at("linker").get<std::string>();
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "phc-ninja wrapper-link: error: %s/%s: %s\n", temp.c_str(),
                     std::string(kInfo).c_str(), e.what());
        return 2;
    }
    if (!arch.empty()) return keep_image(temp, arch);
    std::vector<std::string> args(argv + 1, argv + argc);
    // The wrapper's registration object: the one argument that is a file of its temporary folder.
    std::vector<std::string> objects;
    for (const std::string& a : args)
        if (a.starts_with(temp + "/") && a.ends_with(".o") && util::file_exists(a))
            objects.push_back(a);
    if (objects.size() != 1)
        return refuse(temp, fmt::format("the wrapper's link names {} objects of its own, not one",
                                        objects.size()));
    const std::vector<std::string> bundles = files_ending(temp, ".hipfb");
    if (bundles.size() != 1)
        return refuse(temp, fmt::format("the wrapper made {} bundles, not one", bundles.size()));
    auto object = util::read_file(objects[0]);
    auto theirs = util::read_file(bundles[0]);
    auto ours = util::read_file(fatbin);
    if (!object || !theirs || !ours)
        return refuse(temp, "cannot read the wrapper's object, its bundle or " + fatbin);
    auto swapped = fatbin_swapped(*object, *theirs, *ours);
    if (!swapped) return refuse(temp, swapped.error().message);
    if (Status st = util::write_file_atomic(objects[0], *swapped); !st)
        return refuse(temp, st.error().message);
    std::vector<std::string> real{linker};
    real.insert(real.end(), args.begin(), args.end());
    int code = 127;
    Error e = util::exec_program(real, &code);
    std::fprintf(stderr, "phc-ninja wrapper-link: error: %s\n", e.message.c_str());
    return code;
}

int wrapper_image_main(int argc, char** argv) {
    std::string arch, image;
    util::CommandLine cl{"phc-ninja wrapper-image",
                         "--arch ARCH -o IMAGE -- JOB...",
                         "(run by the device link edges of clang 19's new-driver RDC links) runs "
                         "clang-linker-wrapper's JOB, whose inputs hold device code of ARCH "
                         "alone, and writes the image it links for ARCH to IMAGE; nothing is "
                         "linked for the host.",
                         {},
                         {},
                         true,
                         true};
    cl.options = {util::text_option({"--arch"}, "ARCH", "the architecture", arch),
                  util::text_option({"-o"}, "IMAGE", "where the image goes", image)};
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (arch.empty() || image.empty() || parsed.positional.empty())
        return util::usage_error(cl, "--arch, -o and the job are needed");
    util::TempDir temp("phc-wimage");
    auto ours = with_our_linker(parsed.positional, temp, [&](const std::string&) {
        return nlohmann::json{{"image_of", arch}};
    });
    if (!ours) return print_error(cl.name, ours.error());
    auto ran = util::run_capture_tmp(*ours, temp.path());
    if (!ran) return print_error(cl.name, ran.error());
    std::fputs(ran->out.c_str(), stdout);
    std::fputs(ran->err.c_str(), stderr);
    if (ran->exit_code != 0) return ran->exit_code;
    auto bytes = util::read_file(util::join_path(temp.path(), "phc-image"));
    if (!bytes)
        return print_error(cl.name, make_error("the wrapper ran no linker: no image of " + arch));
    if (Status st = util::write_file_atomic(image, *bytes); !st)
        return print_error(cl.name, st.error());
    return 0;
}

int wrapper_link_main(int argc, char** argv) {
    std::string fatbin;
    util::CommandLine cl{"phc-ninja wrapper-link",
                         "--fatbin FILE -- JOB...",
                         "(run by split new-driver RDC links whose architectures are target IDs "
                         "with features) runs clang-linker-wrapper's JOB, given the device links' "
                         "images, with FILE, the fat binary bundled by target ID, in place of "
                         "the wrapper's own bundle (which names its entries by processor).",
                         {},
                         {},
                         true,
                         true};
    cl.options = {util::text_option({"--fatbin"}, "FILE", "the fat binary to embed", fatbin)};
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (fatbin.empty() || parsed.positional.empty())
        return util::usage_error(cl, "--fatbin and the job are needed");
    const std::vector<std::string>& job = parsed.positional;
    util::TempDir temp("phc-wlink");
    std::error_code ec;
    auto ours = with_our_linker(job, temp, [&](const std::string& linker) {
        return nlohmann::json{{"fatbin", std::filesystem::absolute(fatbin, ec).string()},
                              {"linker", linker}};
    });
    if (!ours) return print_error(cl.name, ours.error());
    auto ran = util::run_capture_tmp(*ours, temp.path());
    if (!ran) return print_error(cl.name, ran.error());
    auto why = util::read_file(util::join_path(temp.path(), std::string(kRefused)));
    if (ran->exit_code == 0 || !why) {
        std::fputs(ran->out.c_str(), stdout);
        std::fputs(ran->err.c_str(), stderr);
        return ran->exit_code;
    }
    // What the split cannot prove is left to the wrapper: every architecture
    // linked again in its own job, the driver's program.
    std::fprintf(stderr,
                 "phc-ninja wrapper-link: note: %s: the wrapper links the device code itself: %s\n",
                 probe::job_word_after(job, "-o").c_str(), why->c_str());
    auto rc = util::run_inheriting(without_images(job));
    if (!rc) return print_error(cl.name, rc.error());
    return *rc;
}

} // namespace phc::split
