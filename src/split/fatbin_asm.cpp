#include "split/fatbin_asm.h"

#include "util/args.h"
#include "util/file.h"
#include "util/subprocess.h"
#include "util/temp_dir.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <unistd.h>

namespace phc::split {

namespace {

constexpr std::string_view kFirstLine = "#       HIP Object Generator";

bool is_symbol(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return false;
    return true;
}

/// `line` without `prefix` when it starts with it, else nullopt.
std::optional<std::string_view> after(std::string_view line, std::string_view prefix) {
    if (!line.starts_with(prefix)) return std::nullopt;
    return line.substr(prefix.size());
}

/// True for a line of a shape clang's driver writes in this assembly
/// (HIPUtility.cpp, constructGenerateObjFileFromHIPFatBinary), besides .incbin.
bool known_line(std::string_view line) {
    if (line.starts_with("#")) return true;
    for (std::string_view fixed :
         {"  .section .hip_gpubin_handle,\"aw\"", "  .section .hip_fatbin,\"a\",@progbits",
          "  .section .note.GNU-stack, \"\", @progbits", "  .zero 8", "  .p2align 3",
          "  .p2align 12"})
        if (line == fixed) return true;
    for (std::string_view directive : {"  .protected ", "  .globl "})
        if (auto rest = after(line, directive)) return is_symbol(*rest);
    if (auto rest = after(line, "  .type ")) {
        return rest->ends_with(",@object") && is_symbol(rest->substr(0, rest->size() - 8));
    }
    if (auto rest = after(line, "  .set ")) {
        size_t comma = rest->find(',');
        return comma != std::string_view::npos && is_symbol(rest->substr(0, comma)) &&
               is_symbol(rest->substr(comma + 1));
    }
    return line.ends_with(":") && is_symbol(line.substr(0, line.size() - 1));
}

/// True for a warning of the driver's own, "clang++-19: warning: argument
/// unused during compilation: ...": it prints them between the assembly and
/// the jobs, and they say nothing about the assembly.
bool is_driver_warning(std::string_view line) {
    size_t colon = line.find(": warning: ");
    return colon != std::string_view::npos && colon > 0 &&
           line.substr(0, colon).find(' ') == std::string_view::npos;
}

/// `path` as a quoted assembly string, or "" when it needs escapes.
std::string quoted(const std::string& path) {
    for (char c : path)
        if (c == '"' || c == '\\' || c == '\n' || c == '$' || c == '`') return {};
    return "\"" + path + "\"";
}

} // namespace

Result<std::string> fatbin_assembly_from(std::string_view driver_output, const std::string& hipfb) {
    const std::string embed = quoted(hipfb);
    if (embed.empty()) return make_error("the fat binary's path '" + hipfb + "' needs quoting");
    size_t at = driver_output.find(std::string(kFirstLine) + "\n");
    if (at == std::string_view::npos || (at > 0 && driver_output[at - 1] != '\n'))
        return make_error("the driver printed no fat-binary assembly");
    std::string out;
    int incbins = 0;
    while (at < driver_output.size()) {
        size_t nl = driver_output.find('\n', at);
        if (nl == std::string_view::npos) nl = driver_output.size();
        std::string_view line = driver_output.substr(at, nl - at);
        at = nl + 1;
        if (line.starts_with(" \"")) break; // the first job line: the assembly has ended
        if (is_driver_warning(line)) continue;
        if (line.starts_with("  .incbin ")) {
            ++incbins;
            out += "  .incbin " + embed + "\n";
            continue;
        }
        if (!known_line(line))
            return make_error(fmt::format("the driver's fat-binary assembly has a line of an "
                                          "unknown shape: '{}'",
                                          line));
        out += line;
        out += '\n';
    }
    if (incbins > 1) return make_error("the driver's fat-binary assembly embeds several files");
    return out;
}

namespace {

Status write_assembly(const std::string& hipfb, const std::string& output,
                      std::vector<std::string> link) {
    util::TempDir scratch("phc-fatbin"); // the driver's temporary files
    if (scratch.path().empty()) return make_error("cannot make a temporary folder");
    link.push_back("-###");
    link.push_back("-fhip-dump-offload-linker-script");
    auto ran = util::run_capture_tmp(link, scratch.path());
    if (!ran) return ran.error();
    if (ran->exit_code != 0)
        return make_error(fmt::format("'{} -###' failed (exit {}): {}", link[0], ran->exit_code,
                                      ran->err.substr(0, 400)));
    auto text = fatbin_assembly_from(ran->err, hipfb);
    if (!text) return text.error();
    return util::write_file_atomic(output, *text);
}

} // namespace

int fatbin_asm_main(int argc, char** argv) {
    std::string hipfb, output;
    util::CommandLine cl{"phc-ninja fatbin-asm",
                         "--fatbin HIPFB -o OUT -- COMPILER ARGS...",
                         "(run by the split RDC links of clang 19 and later) writes the assembly "
                         "of the fat binary's object, as the driver derives it from the link's "
                         "inputs, embedding HIPFB.",
                         {},
                         {},
                         true,
                         true};
    cl.options = {
        util::text_option({"--fatbin"}, "HIPFB", "the fat binary the assembly embeds", hipfb),
        util::text_option({"-o"}, "OUT", "the assembly file to write", output),
    };
    util::Parsed parsed;
    if (auto status = util::parse_or_usage(cl, argc, argv, parsed)) return *status;
    if (hipfb.empty() || output.empty() || parsed.positional.empty())
        return util::usage_error(cl, "--fatbin, -o and the link command are needed");
    if (Status st = write_assembly(hipfb, output, parsed.positional); !st)
        return print_error(cl.name, st.error());
    return 0;
}

} // namespace phc::split
