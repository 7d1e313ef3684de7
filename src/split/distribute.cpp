#include "split/distribute.h"

#include "compile/shell.h"
#include "probe/probe.h"
#include "util/args.h"
#include "util/elf.h"
#include "util/error.h"
#include "util/file.h"
#include "util/subprocess.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fmt/format.h>
#include <unistd.h>
#include <unordered_set>
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

bool ident_start(char c) {
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}
bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

/// The identifiers among a pragma's words (string and character literals and
/// numbers skipped); false when a literal does not end on the line (a raw
/// string, say: then the words cannot be told apart).
bool identifiers(std::string_view s, std::vector<std::string_view>& out) {
    for (size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '"' || c == '\'') {
            for (++i; i < s.size() && s[i] != c; ++i)
                if (s[i] == '\\') ++i;
            if (i >= s.size()) return false;
            ++i;
        } else if (std::isdigit(static_cast<unsigned char>(c)) ||
                   (c == '.' && i + 1 < s.size() &&
                    std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            // A pp-number: digits, letters, '.', and a sign after an exponent.
            for (++i; i < s.size(); ++i) {
                const char e = s[i - 1];
                const bool sign =
                    (s[i] == '+' || s[i] == '-') && (e == 'e' || e == 'E' || e == 'p' || e == 'P');
                if (!ident_char(s[i]) && s[i] != '.' && !sign) break;
            }
        } else if (ident_start(c)) {
            const size_t b = i;
            while (i < s.size() && ident_char(s[i]))
                ++i;
            out.push_back(s.substr(b, i - b));
        } else {
            ++i;
        }
    }
    return true;
}

std::string_view skip_blanks(std::string_view s) {
    const size_t b = s.find_first_not_of(" \t");
    return b == std::string_view::npos ? std::string_view() : s.substr(b);
}

} // namespace

Screened screen_preprocessed(std::string_view dd_text, std::string_view path) {
    Screened out;
    out.text.reserve(dd_text.size());
    std::unordered_set<std::string_view> macros;
    std::vector<std::pair<size_t, std::string_view>> pragmas; // line number, line
    size_t line = 0;
    for (size_t pos = 0; pos < dd_text.size();) {
        const size_t nl = dd_text.find('\n', pos);
        const size_t end = nl == std::string_view::npos ? dd_text.size() : nl;
        const std::string_view l = dd_text.substr(pos, end - pos);
        ++line;
        bool keep = true;
        if (std::string_view d = skip_blanks(l); d.starts_with('#')) {
            d = skip_blanks(d.substr(1));
            size_t n = 0;
            while (n < d.size() && ident_char(d[n]))
                ++n;
            const std::string_view word = d.substr(0, n);
            if (word == "define" || word == "undef") {
                const std::string_view rest = skip_blanks(d.substr(n));
                size_t m = 0;
                while (m < rest.size() && ident_char(rest[m]))
                    ++m;
                if (word == "define") macros.insert(rest.substr(0, m));
                keep = false; // blank: every later line keeps its number
            } else if (word == "pragma") {
                pragmas.emplace_back(line, l);
            } else if (!word.empty() && word != "line" &&
                       !std::isdigit(static_cast<unsigned char>(word[0])) && out.unsafe.empty()) {
                out.unsafe = fmt::format("{}:{}: '{}' is a directive that the compile of a "
                                         "preprocessed file would read again",
                                         path, line, l);
            }
        }
        if (keep) out.text.append(l);
        if (nl != std::string_view::npos) out.text.push_back('\n');
        pos = end + 1;
    }
    std::vector<std::string_view> words;
    for (const auto& [n, l] : pragmas) {
        if (!out.unsafe.empty()) break;
        words.clear();
        const std::string_view after = skip_blanks(skip_blanks(l).substr(1)).substr(6);
        if (!identifiers(after, words)) {
            out.unsafe = fmt::format("{}:{}: the pragma '{}' holds a literal that does not "
                                     "end on its line",
                                     path, n, l);
            break;
        }
        for (std::string_view w : words)
            if (macros.contains(w)) {
                out.unsafe = fmt::format("{}:{}: the pragma '{}' names the macro {}, which "
                                         "the compile of a preprocessed file would not expand",
                                         path, n, l, w);
                break;
            }
    }
    return out;
}

namespace {

/// The end of the parenthesised group that opens at `open` (text[open] is
/// '('), or npos.
size_t group_end(std::string_view text, size_t open) {
    int depth = 0;
    for (size_t i = open; i < text.size(); ++i) {
        if (text[i] == '(') ++depth;
        if (text[i] == ')' && --depth == 0) return i + 1;
    }
    return std::string_view::npos;
}

/// The kernel's name when the `__attribute__((global))` ending at `at`
/// begins a definition (a body follows its parameters), else "".
std::string kernel_defined_at(std::string_view text, size_t at) {
    for (size_t i = at; i < text.size();) {
        const char c = text[i];
        if (c == ';' || c == '{' || c == '}') return {}; // no declarator
        if (!ident_start(c)) {
            ++i;
            continue;
        }
        const size_t b = i;
        while (i < text.size() && ident_char(text[i]))
            ++i;
        const std::string_view word = text.substr(b, i - b);
        const std::string_view rest = skip_blanks(text.substr(i));
        if (!rest.starts_with('(')) continue;
        const size_t open = text.size() - rest.size();
        const size_t end = group_end(text, open);
        if (end == std::string_view::npos) return {};
        i = end;
        if (word == "__attribute__" || word == "__declspec" || word == "__launch_bounds__")
            continue; // more attributes before the name
        size_t body = text.find_first_not_of(" \t\r\n", end);
        return body != std::string_view::npos && text[body] == '{' ? std::string(word) : "";
    }
    return {};
}

} // namespace

std::vector<std::string> defined_kernels(std::string_view text) {
    static constexpr std::string_view kGlobal = "__attribute__((global))";
    std::vector<std::string> out;
    for (size_t at = text.find(kGlobal); at != std::string_view::npos;
         at = text.find(kGlobal, at + 1)) {
        // A template's: instantiated or not, by arguments this does not know.
        const size_t from = text.find_last_of(";{}", at);
        const size_t start = from == std::string_view::npos ? 0 : from + 1;
        const std::string_view before = text.substr(start, at - start);
        std::vector<std::string_view> words;
        if (identifiers(before, words) &&
            std::find(words.begin(), words.end(), "template") != words.end())
            continue;
        if (std::string name = kernel_defined_at(text, at + kGlobal.size()); !name.empty())
            out.push_back(std::move(name));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

namespace {

/// EF_AMDGPU_MACH of the processors (LLVM's BinaryFormat/ELF.h); 0 for others.
uint32_t amdgpu_mach(std::string_view processor) {
    static constexpr std::pair<std::string_view, uint32_t> kMach[] = {
        {"gfx600", 0x20},  {"gfx601", 0x21},  {"gfx602", 0x3a},  {"gfx700", 0x22},
        {"gfx701", 0x23},  {"gfx702", 0x24},  {"gfx703", 0x25},  {"gfx704", 0x26},
        {"gfx705", 0x3b},  {"gfx801", 0x28},  {"gfx802", 0x29},  {"gfx803", 0x2a},
        {"gfx805", 0x3c},  {"gfx810", 0x2b},  {"gfx900", 0x2c},  {"gfx902", 0x2d},
        {"gfx904", 0x2e},  {"gfx906", 0x2f},  {"gfx908", 0x30},  {"gfx909", 0x31},
        {"gfx90a", 0x3f},  {"gfx90c", 0x32},  {"gfx940", 0x40},  {"gfx1010", 0x33},
        {"gfx1011", 0x34}, {"gfx1012", 0x35}, {"gfx1013", 0x42}, {"gfx1030", 0x36},
        {"gfx1031", 0x37}, {"gfx1032", 0x38}, {"gfx1033", 0x39}, {"gfx1034", 0x3e},
        {"gfx1035", 0x3d}, {"gfx1036", 0x45}, {"gfx1100", 0x41}, {"gfx1101", 0x46},
        {"gfx1102", 0x47}, {"gfx1103", 0x44},
    };
    for (const auto& [name, mach] : kMach)
        if (name == processor) return mach;
    return 0;
}

} // namespace

namespace {

/// device_object_problem() of LLVM bitcode (relocatable device code, the new
/// driver's device compiles): its symbol names and metadata strings are
/// stored as plain bytes (the string table and metadata blobs), so the
/// compiler's identification (`llvm.ident`) and each kernel's name are found
/// in them; the architecture is encoded in attribute records, not checked.
std::string bitcode_problem(std::string_view bytes, const DeviceObjectWant& want) {
    if (!want.compiler.empty() && bytes.find(want.compiler) == std::string_view::npos)
        return fmt::format("bitcode made by another compiler (it does not name {})", want.compiler);
    for (const std::string& k : want.kernels)
        if (bytes.find(k) == std::string_view::npos)
            return fmt::format("no kernel {} in it, which the source defines", k);
    return {};
}

} // namespace

std::string device_object_problem(std::string_view bytes, const DeviceObjectWant& want) {
    constexpr uint16_t kAmdgpu = 224;
    // LLVM bitcode: 'BC' 0xC0DE, or the wrapper's magic 0x0B17C0DE.
    if (bytes.starts_with(std::string_view("BC\xC0\xDE", 4)) ||
        bytes.starts_with(std::string_view("\xDE\xC0\x17\x0B", 4)))
        return bitcode_problem(bytes, want);
    auto o = util::elf::parse(bytes);
    if (!o) return fmt::format("not an object ({} bytes: {})", bytes.size(), o.error().text());
    if (util::elf::machine(*o) != kAmdgpu)
        return fmt::format("not an AMDGPU object (e_machine {})", util::elf::machine(*o));
    const std::string_view processor = std::string_view(want.arch).substr(0, want.arch.find(':'));
    const uint32_t mach = util::elf::flags(*o) & 0xff;
    if (const uint32_t asked = amdgpu_mach(processor); asked != 0 && mach != asked)
        return fmt::format("an object for another architecture than {} (EF_AMDGPU_MACH {:#x}, "
                           "not {:#x})",
                           processor, mach, asked);
    if (!want.compiler.empty()) {
        const int comment = o->find(".comment");
        const std::string_view made_by =
            comment < 0 ? std::string_view()
                        : o->contents(o->sections[static_cast<size_t>(comment)]);
        if (made_by.find(want.compiler) == std::string_view::npos) {
            std::string other(
                made_by.substr(made_by.find_first_not_of('\0') == std::string_view::npos
                                   ? made_by.size()
                                   : made_by.find_first_not_of('\0')));
            other = other.substr(0, other.find('\0'));
            return fmt::format("made by another compiler ({}), not {}",
                               other.empty() ? "none named" : other, want.compiler);
        }
    }
    auto names = util::elf::defined_symbols(*o);
    if (!names) return names.error().text();
    for (const std::string& k : want.kernels) {
        const bool found = std::any_of(names->begin(), names->end(), [&](const std::string& n) {
            return n.ends_with(".kd") && n.find(k) != std::string::npos;
        });
        if (!found) return fmt::format("no kernel {} in it, which the source defines", k);
    }
    return {};
}

namespace {

struct DeviceIi {
    std::string arch, output, input, host_triple, local, object, file_symbol;
    bool host = false; ///< the host source (--overlap-host on icecc): no device section
    std::vector<std::string> command;
};

/// Replaces this process with `words`; returns (an error) only when it cannot.
int become(const std::vector<std::string>& words, std::string_view name) {
    return print_error(name, util::exec_program(words));
}

/// The --local command's words.
Result<std::vector<std::string>> local_words(const DeviceIi& d) {
    if (d.local.empty())
        return make_error(fmt::format(
            "{} must not be compiled (see its first line), and no --local command was given",
            d.input));
    std::vector<std::string> words;
    if (std::string why = compile::split_words(d.local, words); !why.empty() || words.empty())
        return make_error("--local: " + (why.empty() ? std::string("empty") : why));
    return words;
}

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
    auto status = util::run_inheriting(d.command);
    if (!status) return print_error(name, status.error());
    if (*status != 0) return *status;
    auto text = util::read_file(d.output);
    if (!text) return print_error(name, text.error());
    if (std::string why = d.host ? std::string() : refuse(d.output, *text, d.arch); !why.empty()) {
        ::unlink(d.output.c_str());
        return print_error(name, make_error(why));
    }
    Screened screened = screen_preprocessed(*text, d.output);
    if (!screened.unsafe.empty()) {
        // Kept whole (its #defines too), so that a changed macro changes the
        // file and the compile step, which compiles the source, runs again.
        std::fprintf(stderr, "phc-ninja device-ii: note: %s; the %s compile runs locally\n",
                     screened.unsafe.c_str(), d.host ? "host" : "device");
        screened.text = std::string(kCompileLocally) + screened.unsafe + "\n" + *text;
    }
    if (!d.host && !has_host_section(*text)) {
        std::string triple = d.host_triple;
        if (triple.empty()) {
            auto t = host_triple_of(d.command);
            if (!t) {
                ::unlink(d.output.c_str());
                return print_error(name, t.error());
            }
            triple = *t;
        }
        screened.text += host_stub(triple);
    }
    if (auto st = util::write_file_atomic(d.output, screened.text); !st) {
        ::unlink(d.output.c_str());
        return print_error(name, st.error());
    }
    return 0;
}

/// The object the compile `argv` writes (its -o), or "".
std::string output_of(const std::vector<std::string>& argv) {
    std::string out;
    for (size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "-o" && i + 1 < argv.size())
            out = argv[++i];
        else if (argv[i].starts_with("-o") && argv[i].size() > 2)
            out = argv[i].substr(2);
    }
    return out;
}

/// The version line (`--version`'s first) of the compiler of `argv`, the
/// first word that is no engine or cache; "" when it does not say.
std::string compiler_version(const std::vector<std::string>& argv) {
    for (const std::string& w : argv) {
        const std::string_view base = compile::base_name(w);
        if (base == "icecc" || base == "distcc" || base == "ccache" || base == "sccache") continue;
        auto r = util::run_capture({w, "--version"});
        if (!r || r->exit_code != 0) return {};
        std::string line = r->out.substr(0, r->out.find('\n'));
        while (!line.empty() && (line.back() == '\r' || line.back() == ' '))
            line.pop_back();
        return line;
    }
    return {};
}

/// Runs the device compile of the checked file `text` through the engine and
/// checks the object it returns (a farm machine with another clang or bundler
/// exits 0 with a wrong one): else the compile of the source runs here.
int compile_device(const DeviceIi& d, const std::string& text, std::string_view name) {
    const std::string object = output_of(d.command);
    // Nothing to check it against, or nothing to fall back to: as before, the
    // compile takes this process over (its exit status is the step's).
    if (object.empty() || d.local.empty()) return become(d.command, name);
    auto status = util::run_inheriting(d.command);
    if (!status) return print_error(name, status.error());
    if (*status != 0) return *status;
    const DeviceObjectWant want{d.arch, compiler_version(d.command), defined_kernels(text)};
    auto bytes = util::read_regular_file(object, size_t{4} << 30);
    const std::string why = bytes ? device_object_problem(*bytes, want) : bytes.error().text();
    if (why.empty()) return 0;
    auto local = local_words(d);
    if (!local) return print_error(name, local.error());
    std::fprintf(stderr,
                 "phc-ninja device-ii: warning: %s from the %s compile: %s; compiling it here "
                 "instead\n",
                 object.c_str(), d.command.front().c_str(), why.c_str());
    ::unlink(object.c_str());
    return become(*local, name);
}

int compile(const DeviceIi& d, std::string_view name) {
    auto text = util::read_file(d.input);
    if (!text) return print_error(name, text.error());
    if (std::string why = d.host ? std::string() : refuse(d.input, *text, d.arch); !why.empty())
        return print_error(name, make_error(why));
    if (text->starts_with(kCompileLocally)) {
        // The screen refused the file: the compile of the source instead.
        auto local = local_words(d);
        if (!local) return print_error(name, local.error());
        return become(*local, name);
    }
    if (!d.host) return compile_device(d, *text, name);
    // The host object names its source in a FILE symbol: as the driver names
    // it only when icecc's daemon compiled standard input. When icecc ran the
    // compile here instead (the farm down or busy), it names the preprocessed
    // file: the host compile of the source then runs instead.
    auto status = util::run_inheriting(d.command);
    if (!status) return print_error(name, status.error());
    if (*status != 0) return *status;
    auto bytes = util::read_file(d.object);
    if (!bytes) return print_error(name, bytes.error());
    auto object = util::elf::parse(*bytes);
    if (!object) return print_error(name, make_error(d.object + ": " + object.error().text()));
    auto files = util::elf::file_symbols(*object);
    if (!files) return print_error(name, make_error(d.object + ": " + files.error().text()));
    if (*files == std::vector<std::string>{d.file_symbol}) return 0;
    auto local = local_words(d);
    if (!local) return print_error(name, local.error());
    std::fprintf(stderr,
                 "phc-ninja device-ii: note: %s names %s, not %s (icecc compiled it here); the "
                 "host compile of the source runs instead\n",
                 d.object.c_str(), files->empty() ? "no source" : files->front().c_str(),
                 d.file_symbol.c_str());
    return become(*local, name);
}

} // namespace

int device_ii_main(int argc, char** argv) {
    DeviceIi d;
    util::CommandLine cl{
        "phc-ninja device-ii",
        "--arch A --output FILE.ii [--host-triple T] -- COMPILER ARGS...\n"
        "phc-ninja device-ii --arch A --input FILE.ii [--local CMD] -- [ENGINE] COMPILER ARGS...",
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
        util::flag_option({"--host"},
                          "the host source (--overlap-host on icecc): no device "
                          "section to check",
                          d.host),
        util::text_option({"--object"}, "FILE",
                          "--host: the object the compile writes, whose FILE symbol is checked",
                          d.object),
        util::text_option({"--file-symbol"}, "NAME",
                          "--host: the FILE symbol the driver's object holds", d.file_symbol),
        util::text_option({"--local"}, "CMD",
                          "the compile step's device compile of the source (shell words), run "
                          "instead\nwhen the preprocess step's screen refused FILE.ii",
                          d.local),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    d.command = std::move(parsed.positional);
    if (d.arch.empty() == !d.host || d.command.empty() || d.output.empty() == d.input.empty())
        return util::usage_error(cl, "--arch or --host, one of --output and --input, and a "
                                     "command after '--' are needed");
    if (d.host && !d.input.empty() && (d.object.empty() || d.file_symbol.empty()))
        return util::usage_error(cl, "--host --input needs --object and --file-symbol");
    return d.output.empty() ? compile(d, cl.name) : preprocess(d, cl.name);
}

} // namespace phc::split
