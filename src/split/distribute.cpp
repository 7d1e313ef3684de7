#include "split/distribute.h"

#include "probe/probe.h"
#include "util/args.h"
#include "util/error.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace phc::split {

std::string_view engine_name(Engine e) {
    switch (e) {
    case Engine::Icecc:
        return "icecc";
    case Engine::Distcc:
        return "distcc";
    case Engine::None:
        break;
    }
    return "none";
}

std::optional<Engine> engine_from_name(std::string_view name) {
    for (Engine e : {Engine::None, Engine::Icecc, Engine::Distcc})
        if (name == engine_name(e)) return e;
    return std::nullopt;
}

Engine engine_of(const compile::CompileCommand& c) {
    if (c.launcher.empty()) return Engine::None;
    std::string_view n = compile::base_name(c.launcher[0]);
    if (n == "icecc") return Engine::Icecc;
    if (n == "distcc") return Engine::Distcc;
    return Engine::None;
}

namespace {

/// Calls `f(entry, is_start)` for each section line of the text bundle.
template <typename F> void for_each_marker(std::string_view text, F f) {
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(at, end - at);
        if (line.starts_with(kSectionStart))
            f(line.substr(kSectionStart.size()), true);
        else if (line.starts_with(kSectionEnd))
            f(line.substr(kSectionEnd.size()), false);
        at = end + 1;
    }
}

} // namespace

bool has_device_section(std::string_view text, std::string_view arch) {
    bool started = false, ended = false;
    for_each_marker(text, [&](std::string_view entry, bool start) {
        if (!entry.starts_with("hip") || probe::bundle_entry_arch(entry) != arch) return;
        if (start) started = true;
        if (!start && started) ended = true;
    });
    return started && ended;
}

bool has_host_section(std::string_view text) {
    bool found = false;
    for_each_marker(text, [&](std::string_view entry, bool start) {
        found = found || (start && entry.starts_with("host-"));
    });
    return found;
}

std::string host_stub(std::string_view triple) {
    return fmt::format("\n{}host-{}\n\n{}host-{}\n", kSectionStart, triple, kSectionEnd, triple);
}

namespace {

struct DeviceIi {
    std::string arch, output, input, host_triple;
    std::vector<std::string> command;
};

/// The host triple of `compiler_argv`'s compile: its --target, else the compiler's own.
Result<std::string> host_triple_of(const std::vector<std::string>& argv) {
    std::vector<std::string> ask{argv.at(0)};
    for (size_t i = 1; i < argv.size(); ++i) {
        if (argv[i].starts_with("--target=")) ask.push_back(argv[i]);
        if (argv[i] == "-target" && i + 1 < argv.size())
            ask.insert(ask.end(), {"-target", argv[i + 1]});
    }
    ask.push_back("-print-target-triple");
    auto r = util::run_capture(ask);
    if (!r) return r.error();
    std::string out = r->out;
    while (!out.empty() && (out.back() == '\n' || out.back() == ' '))
        out.pop_back();
    if (size_t nl = out.rfind('\n'); nl != std::string::npos) out = out.substr(nl + 1);
    if (r->exit_code != 0 || out.empty())
        return make_error(fmt::format("'{}' did not print its target triple", argv[0]));
    return out;
}

/// Why `path` must not be compiled as architecture `arch`'s device code, or "".
std::string refuse(const std::string& path, const std::string& text, const std::string& arch) {
    if (has_device_section(text, arch)) return {};
    return fmt::format("{} holds no device section for {}: compiled, it would give a code "
                       "object without kernels",
                       path, arch);
}

int preprocess(const DeviceIi& d, std::string_view name) {
    util::SpawnOptions opts;
    opts.inherit_stdio = true; // the compiler's messages go where ours go
    auto child = util::spawn(d.command, opts);
    if (!child) return print_error(name, child.error());
    int status = 0;
    while (::waitpid(child->pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status)) return 128 + WTERMSIG(status);
    if (WEXITSTATUS(status) != 0) return WEXITSTATUS(status);
    auto text = util::read_file(d.output);
    if (!text) return print_error(name, text.error());
    if (std::string why = refuse(d.output, *text, d.arch); !why.empty()) {
        ::unlink(d.output.c_str());
        return print_error(name, make_error(why));
    }
    if (has_host_section(*text)) return 0;
    std::string triple = d.host_triple;
    if (triple.empty()) {
        auto t = host_triple_of(d.command);
        if (!t) {
            ::unlink(d.output.c_str());
            return print_error(name, t.error());
        }
        triple = *t;
    }
    if (auto st = util::write_file_atomic(d.output, *text + host_stub(triple)); !st) {
        ::unlink(d.output.c_str());
        return print_error(name, st.error());
    }
    return 0;
}

int compile(const DeviceIi& d, std::string_view name) {
    auto text = util::read_file(d.input);
    if (!text) return print_error(name, text.error());
    if (std::string why = refuse(d.input, *text, d.arch); !why.empty())
        return print_error(name, make_error(why));
    // The checked file's compile takes this process over: the engine talks to
    // ninja (or make) directly and its exit status is the step's.
    std::vector<char*> argv;
    for (const std::string& w : d.command)
        argv.push_back(const_cast<char*>(w.c_str()));
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    return print_error(
        name, make_error(fmt::format("cannot run '{}': {}", d.command[0], std::strerror(errno))));
}

} // namespace

int device_ii_main(int argc, char** argv) {
    DeviceIi d;
    util::CommandLine cl{
        "phc-ninja device-ii",
        "--arch A --output FILE.ii [--host-triple T] -- COMPILER ARGS...\n"
        "phc-ninja device-ii --arch A --input FILE.ii -- [ENGINE] COMPILER ARGS...",
        "(run by distributed device edges) the preprocess step: runs the "
        "compiler,\nchecks that FILE.ii holds the device section of "
        "architecture A (else\nremoves it and fails) and adds the host section "
        "clang-15 needs; the\ncompile step: checks FILE.ii the same way, then "
        "runs the compile.",
        {},
        {}};
    cl.positional = true;
    cl.options = {
        util::text_option({"--arch"}, "A", "the architecture (target ID)", d.arch),
        util::text_option({"--output"}, "FILE", "the preprocess step's output", d.output),
        util::text_option({"--input"}, "FILE", "the compile step's input", d.input),
        util::text_option({"--host-triple"}, "T",
                          "the host section's triple (default: the compiler's)", d.host_triple),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    d.command = std::move(parsed.positional);
    if (d.arch.empty() || d.command.empty() || d.output.empty() == d.input.empty())
        return util::usage_error(
            cl, "--arch, one of --output and --input, and a command after '--' are needed");
    return d.output.empty() ? compile(d, cl.name) : preprocess(d, cl.name);
}

} // namespace phc::split
