#include "split/embed.h"

#include "util/args.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <cstdio>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace phc::split {

namespace {

constexpr std::string_view kFatbin = ".hip_fatbin";
constexpr std::string_view kWrapper = ".hipFatBinSegment";

/// The first relocation outside the wrapper that points into section `fatbin`.
Result<std::string> stray_reference(const util::elf::Object& o, int fatbin) {
    auto refs = util::elf::references_to(o, fatbin);
    if (!refs) return refs.error();
    for (const util::elf::Reference& r : *refs) {
        const std::string& from = o.sections.at(static_cast<size_t>(r.from)).name;
        if (from != kWrapper) return fmt::format("{} at offset {:#x}", from, r.offset);
    }
    return std::string();
}

/// What makes an object one the guard cannot vouch for: two sections named
/// .hip_fatbin (objcopy would replace the first), relocations of a kind it
/// does not read (SHT_CREL, 0x40000014), relocations that patch .hip_fatbin
/// itself (they would apply to the bundle). "" for none.
std::string unreadable_layout(const util::elf::Object& o, int fatbin) {
    constexpr uint32_t kRel = 9, kRela = 4, kCrel = 0x40000014;
    int named = 0;
    for (const util::elf::Section& s : o.sections) {
        named += s.name == kFatbin;
        if (s.type == kCrel) return "the host object has relocations of a kind (CREL) not checked";
        if ((s.type == kRel || s.type == kRela) && fatbin >= 0 &&
            s.info == static_cast<uint32_t>(fatbin))
            return "relocations patch .hip_fatbin itself";
    }
    return named > 1 ? "the host object has more than one .hip_fatbin section" : "";
}

/// Removes a temporary file of ours: a regular file, or nothing.
void remove_temporary(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::unlink(path.c_str());
}

/// objcopy --update-section of the host object into `out`.
Status update_section(const EmbedFiles& f, const std::string& section, const std::string& out) {
    auto r = util::run_capture(
        {f.objcopy, "--update-section", std::string(kFatbin) + "=" + section, f.host_object, out});
    if (!r) return r.error();
    if (r->exit_code != 0) {
        std::string why = r->err.substr(0, r->err.find('\n'));
        return error_at(f.output,
                        fmt::format("{} failed (exit {}): {}", f.objcopy, r->exit_code, why));
    }
    return Ok{};
}

} // namespace

Result<FatbinTail> fatbin_tail(const util::elf::Object& host, std::string_view placeholder) {
    const int fatbin = host.find(kFatbin);
    if (auto bad = unreadable_layout(host, fatbin); !bad.empty()) return make_error(bad);
    if (fatbin < 0) {
        if (host.find(kWrapper) >= 0)
            return make_error("the host object has a fat-binary wrapper but no .hip_fatbin");
        return FatbinTail{};
    }
    std::string_view bytes = host.contents(host.sections[static_cast<size_t>(fatbin)]);
    std::string_view tail = bytes.substr(std::min(bytes.size(), placeholder.size()));
    if (!bytes.starts_with(placeholder) || (!tail.empty() && tail != std::string_view("\0", 1)))
        return make_error("its .hip_fatbin does not hold the placeholder the host compile "
                          "embedded (did the source change during the build?)");
    auto stray = stray_reference(host, fatbin);
    if (!stray) return stray.error();
    if (!stray->empty())
        return make_error(fmt::format(
            "{} refers to .hip_fatbin: a constant of the host code shares the placeholder, so "
            "the object would differ from the driver's; build it without --overlap-host",
            *stray));
    return FatbinTail{true, std::string(tail)};
}

Status embed(const EmbedFiles& f) {
    auto host_bytes = util::read_file(f.host_object);
    if (!host_bytes) return host_bytes.error();
    auto host = util::elf::parse(*host_bytes);
    if (!host) return error_at(f.host_object, host.error().message);
    // Written by the overlapped host compile: a host object made by hand stays.
    const bool ours = f.host_object.ends_with(".phc/host.o") ||
                      f.host_object.find("/.phc-ninja/") != std::string::npos;
    auto placeholder = util::read_file(f.placeholder);
    if (!placeholder) return placeholder.error();
    auto tail = fatbin_tail(*host, *placeholder);
    if (!tail) {
        // The next build must compile the host code again, not embed into this one.
        if (ours) remove_temporary(f.host_object);
        return error_at(f.output, tail.error().message);
    }
    if (!tail->present) return util::write_file_atomic(f.output, *host_bytes);
    auto bundle = util::read_file(f.bundle);
    if (!bundle) return bundle.error();
    const std::string section = f.host_object + ".fatbin", joined = f.host_object + ".embedded";
    std::string want = *bundle + tail->tail;
    Status st = util::write_file_atomic(section, want);
    if (st) st = update_section(f, section, joined);
    remove_temporary(section);
    if (!st) {
        remove_temporary(joined);
        return st;
    }
    auto out = util::read_file(joined);
    remove_temporary(joined);
    if (!out) return out.error();
    auto o = util::elf::parse(*out);
    if (!o) return error_at(f.output, "objcopy wrote no object: " + o.error().message);
    const int fatbin = o->find(kFatbin);
    if (fatbin < 0 || o->contents(o->sections[static_cast<size_t>(fatbin)]) != want)
        return error_at(f.output, "objcopy did not put the device code into .hip_fatbin");
    auto stray = stray_reference(*o, fatbin);
    if (!stray) return error_at(f.output, stray.error().message);
    if (!stray->empty()) return error_at(f.output, *stray + " refers to .hip_fatbin after objcopy");
    // Every other byte and header field as the compiler wrote it (util/elf.h):
    // what the driver's own object holds, given the same device code.
    if (std::string c = util::elf::difference_outside(*host, *o, fatbin); !c.empty())
        return error_at(f.output, fmt::format("{} changed more than .hip_fatbin ({}): the object "
                                              "would not be the driver's; use an objcopy that "
                                              "keeps the other bytes (llvm-objcopy 19 or later)",
                                              f.objcopy, c));
    return util::write_file_atomic(f.output, *out);
}

int embed_main(int argc, char** argv) {
    EmbedFiles f;
    util::CommandLine cl{"phc-ninja embed",
                         "--objcopy PROGRAM --placeholder FILE --bundle FILE --host FILE -o OUT",
                         "(run by the embed steps of --overlap-host) puts the device code into "
                         "the host object, after checking that nothing else points into it.",
                         {},
                         {}};
    cl.options = {
        util::text_option({"--objcopy"}, "PROGRAM", "llvm-objcopy", f.objcopy),
        util::text_option({"--placeholder"}, "FILE", "the file the host compile embedded",
                          f.placeholder),
        util::text_option({"--bundle"}, "FILE", "the device code", f.bundle),
        util::text_option({"--host"}, "FILE", "the host compile's object", f.host_object),
        util::text_option({"-o"}, "OUT", "the object to write", f.output),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    for (const std::string* s : {&f.objcopy, &f.placeholder, &f.bundle, &f.host_object, &f.output})
        if (s->empty())
            return util::usage_error(
                cl, "every one of --objcopy, --placeholder, --bundle, --host and -o is needed");
    if (Status st = embed(f); !st) return print_error(cl.name, st.error());
    return 0;
}

} // namespace phc::split
