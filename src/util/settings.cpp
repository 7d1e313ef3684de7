#include "util/settings.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>
#include <fmt/format.h>

namespace phc::util {

namespace {

constexpr Setting kSettings[] = {
    {"CCACHE_BASEDIR", "none",
     "ccache's base_dir: the CUID sees the checkout's paths relative to it", "phc-launch, explain"},
    {"CCACHE_EXTRAFILES", "none",
     "ccache's extra files: the host step under ccache adds the bundle", "phc-launch"},
    {"PHC_CHECK", "0", "1: compile each split object with the driver too and fail when they differ",
     "phc-launch"},
    {"PHC_COMPILER", "none",
     "the compiler to run: every argument of phc-launch is then the compiler's", "phc-launch"},
    {"PHC_DEVICE_WARNINGS", "all",
     "first: only the first architecture's device edge prints warnings (the others get -w, "
     "which leaves their objects as they were); not with -Werror or a recorded command line",
     "regen"},
    {"PHC_DISTRIBUTE", "auto",
     "icecc, distcc: send device compiles there (--distribute); none: never; auto: when the "
     "launcher is one",
     "phc-launch"},
    {"PHC_FIRST_ORDER", "hosts",
     "with no .ninja_log and no step history: hosts: the generator's order, with "
     "--overlap-host's host compiles before every device compile; size: each object's edges "
     "and the objects by their source's size, largest first; given: the generator's order",
     "regen, gen"},
    {"PHC_HISTORY", "$XDG_CACHE_HOME/phc-ninja/history",
     "the folder of the projects' step histories, which order and size the first build of a "
     "fresh build directory; off: none",
     "regen, gen"},
    {"PHC_JOBS", "the CPUs this process may use (affinity, cgroup quota)",
     "the size of the CPU pool every launcher of the user shares without a make jobserver",
     "phc-launch"},
    {"PHC_MEMORY", "the cgroup's memory limit, else the machine's memory, less 10%",
     "the memory budget of a build's steps: SIZE (512M, 8G) or PERCENT (75%) of that; "
     "at build time it overrides regen's and gen's --memory; phc-launch runs its steps under "
     "it only when it is set",
     "regen, gen, step (the edges regen and gen write), phc-launch"},
    {"PHC_NINJA_TRACE", "none", "a .ninja_log-style file to which each step's times are appended",
     "phc-launch"},
    {"PHC_OBJCOPY", "the newest that keeps an object's bytes",
     "the objcopy of --overlap-host's embed steps (it must keep every byte outside .hip_fatbin, "
     "else --overlap-host is not used)",
     "regen, gen, phc-launch, explain"},
    {"PHC_OVERLAP_HOST", "0", "1: the host compile beside the device compiles (--overlap-host)",
     "phc-launch"},
    {"PHC_POOL_DIR", "$XDG_RUNTIME_DIR/phc-pool, else /tmp/phc-pool-<uid>",
     "the CPU pool's folder (one lock file per slot), made 0700; refused when it is a link, "
     "another user's or writable by others",
     "phc-launch"},
    {"PHC_PROBE_CACHE", "$XDG_CACHE_HOME/phc-ninja/probes.json",
     "the driver probe cache (JSON) of the launcher", "phc-launch"},
    {"PHC_RECORDS", "$XDG_CACHE_HOME/phc-ninja/steps",
     "with PHC_MEMORY: the folder of the launcher's step records and shared memory budget",
     "phc-launch"},
    {"PHC_REGEN_DEPSETS", "1", "0: device edges keep their whole header lists (no header sets)",
     "regen, gen"},
    {"PHC_REGEN_STEPS", "1",
     "0: split edges run their commands without `phc-ninja step` (no memory budget, no step "
     "records, no header sets)",
     "regen, gen"},
    {"PHC_REGEN_TIMING", "0", "1: print the time of each phase", "regen"},
};

static_assert(std::is_sorted(std::begin(kSettings), std::end(kSettings),
                             [](const Setting& a, const Setting& b) { return a.name < b.name; }));

} // namespace

std::span<const Setting> settings() {
    return kSettings;
}

std::optional<std::string> get(std::string_view name) {
    assert(std::any_of(std::begin(kSettings), std::end(kSettings),
                       [&](const Setting& s) { return s.name == name; }));
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) return std::nullopt;
    return std::string(v);
}

namespace {

/// Whether `reader` is one of the commands in `readers` ("step (...), phc-launch").
bool reads(std::string_view readers, std::string_view reader) {
    for (size_t at = 0; at < readers.size();) {
        size_t comma = std::min(readers.find(", ", at), readers.size());
        std::string_view one = readers.substr(at, comma - at);
        if (one.substr(0, one.find(' ')) == reader) return true;
        at = comma + 2;
    }
    return false;
}

} // namespace

std::string settings_help(std::string_view reader) {
    std::string out = "environment:\n";
    for (const Setting& s : kSettings)
        if (reader.empty() || reads(s.readers, reader))
            out += fmt::format("  {:<18} {} (default: {}; {})\n", s.name, s.help, s.fallback,
                               s.readers);
    return out;
}

std::string settings_report() {
    std::string out;
    for (const Setting& s : kSettings) {
        auto v = get(s.name);
        out += v ? fmt::format("{}={} (environment)\n", s.name, *v)
                 : fmt::format("{}: {} (default)\n", s.name, s.fallback);
    }
    return out;
}

} // namespace phc::util
