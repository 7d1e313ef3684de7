#include "gen/compdb.h"

#include "compile/command.h"
#include "compile/shell.h"
#include "gen/paths.h"
#include "util/file.h"

#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace phc::gen {

namespace {

using nlohmann::json;

/// An error at "FILE:LINE:COL" with the offending line and a caret, for a JSON
/// syntax error at 1-based byte position `byte` (as nlohmann reports it).
Error syntax_error(std::string_view text, const std::string& path, std::size_t byte,
                   std::string_view what) {
    std::size_t at = byte == 0 ? 0 : std::min(byte - 1, text.size());
    std::size_t line = 1;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < at; ++i) {
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    std::size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::size_t col = at - line_start + 1;
    // nlohmann's text is "[json.exception...] parse error at line L, column C: WHAT".
    auto colon = what.find(": ", what.find("column"));
    std::string_view reason = colon == std::string_view::npos ? what : what.substr(colon + 2);
    std::string source(text.substr(line_start, line_end - line_start));
    std::string caret(col - 1, ' ');
    return error_at(fmt::format("{}:{}:{}", path, line, col), std::string(reason),
                    source + "\n" + caret + "^");
}

/// The entry-level error "entry N: WHAT" at FILE.
Error entry_error(const std::string& path, std::size_t index, std::string_view what) {
    return error_at(path, fmt::format("entry {}: {}", index, what));
}

/// A required string member, or an error naming it.
Result<std::string> string_member(const json& obj, const char* key, const std::string& path,
                                  std::size_t index) {
    auto it = obj.find(key);
    if (it == obj.end()) return entry_error(path, index, fmt::format("missing \"{}\"", key));
    if (!it->is_string())
        return entry_error(path, index, fmt::format("\"{}\" is not a string", key));
    if (it->get_ref<const std::string&>().empty())
        return entry_error(path, index, fmt::format("\"{}\" is empty", key));
    return it->get<std::string>();
}

/// A "command" with shell operators, as Entry::shell describes: a `cd DIR &&`
/// form regen understands becomes the compiler's words run in DIR (relative
/// to `e.directory`); anything else runs as written, its words kept for -o.
void shell_command(const std::string& command, std::string why, Entry& e) {
    compile::Recognised rec = compile::recognise(command);
    if (rec.command) {
        compile::CompileCommand& c = *rec.command;
        if (!c.env.empty()) e.argv = {"env"};
        e.argv.insert(e.argv.end(), c.env.begin(), c.env.end());
        e.argv.insert(e.argv.end(), c.launcher.begin(), c.launcher.end());
        e.argv.insert(e.argv.end(), c.argv.begin(), c.argv.end());
        if (!c.cwd.empty()) e.directory = absolute_in(e.directory, c.cwd);
        return;
    }
    e.shell = command;
    e.shell_reason = rec.reason.empty() ? std::move(why) : std::move(rec.reason);
    for (compile::ShellToken& t : compile::split_shell(command).tokens)
        if (t.kind == compile::ShellToken::Kind::Word) e.argv.push_back(std::move(t.text));
}

/// argv from "arguments" (preferred, as clang tools do) or a split "command";
/// a command that is more than words goes through shell_command() into `e`.
Result<std::vector<std::string>> entry_argv(const json& obj, const std::string& path,
                                            std::size_t index, Entry& e) {
    if (auto it = obj.find("arguments"); it != obj.end()) {
        if (!it->is_array())
            return entry_error(path, index, "\"arguments\" is not an array of strings");
        std::vector<std::string> argv;
        for (const auto& a : *it) {
            if (!a.is_string())
                return entry_error(path, index, "\"arguments\" is not an array of strings");
            argv.push_back(a.get<std::string>());
        }
        if (argv.empty()) return entry_error(path, index, "\"arguments\" is empty");
        return argv;
    }
    if (auto it = obj.find("command"); it != obj.end()) {
        if (!it->is_string()) return entry_error(path, index, "\"command\" is not a string");
        const std::string& command = it->get_ref<const std::string&>();
        std::vector<std::string> words;
        if (auto why = compile::split_words(command, words); !why.empty()) {
            // Operators the shell runs (`cd x && cc ...`, as `ninja -t compdb`
            // writes them) are fine; text it would expand or cannot read is not.
            if (!compile::split_shell(command).unsupported.empty())
                return entry_error(path, index, fmt::format("cannot split \"command\": {}", why));
            shell_command(command, std::move(why), e);
            words = std::move(e.argv);
        }
        if (words.empty() && e.shell.empty())
            return entry_error(path, index, "\"command\" is empty");
        return words;
    }
    return entry_error(path, index, "missing \"command\" or \"arguments\"");
}

/// One checked entry.
Result<Entry> parse_entry(const json& obj, const std::string& path, std::size_t index,
                          const std::string& base_dir) {
    if (!obj.is_object()) return entry_error(path, index, "not an object");
    auto directory = string_member(obj, "directory", path, index);
    if (!directory) return directory.error();
    auto file = string_member(obj, "file", path, index);
    if (!file) return file.error();
    Entry e;
    e.index = index;
    e.directory = absolute_in(base_dir, *directory);
    // "file" and "output" are relative to "directory", -o to where the command runs.
    const std::string listed_in = e.directory;
    e.file = absolute_in(listed_in, *file);
    auto argv = entry_argv(obj, path, index, e);
    if (!argv) return argv.error();
    e.argv = std::move(argv).value();
    if (auto it = obj.find("output"); it != obj.end()) {
        auto out = string_member(obj, "output", path, index);
        if (!out) return out.error();
        e.output = absolute_in(listed_in, *out);
    } else {
        std::string output = find_output_arg(e.argv);
        if (output.empty())
            return entry_error(path, index, "no \"output\" and no -o in the command");
        e.output = absolute_in(e.directory, output);
    }
    return e;
}

} // namespace

std::string find_output_arg(const std::vector<std::string>& argv) {
    std::string out;
    for (std::size_t i = 1; i < argv.size(); ++i) {
        if (argv[i] == "-o" && i + 1 < argv.size())
            out = argv[++i];
        else if (argv[i].size() > 2 && argv[i].compare(0, 2, "-o") == 0)
            out = argv[i].substr(2);
    }
    return out;
}

Result<Database> parse_compdb(std::string_view text, const std::string& path,
                              const std::string& base_dir) {
    json doc;
    try {
        doc = json::parse(text);
    } catch (const json::parse_error& e) {
        return syntax_error(text, path, e.byte, e.what());
    } catch (const json::exception& e) { // a number too large for any type (out_of_range.406)
        return error_at(path, fmt::format("not a compilation database: {}", e.what()));
    }
    if (!doc.is_array()) return error_at(path, "expected a JSON array of entries");
    Database db;
    db.path = path;
    std::map<std::string, std::size_t> writers;
    for (std::size_t i = 0; i < doc.size(); ++i) {
        auto entry = parse_entry(doc[i], path, i, base_dir);
        if (!entry) return entry.error();
        auto [it, fresh] = writers.emplace(entry->output, i);
        if (!fresh) {
            return error_at(
                path, fmt::format("entries {} and {} both write {}", it->second, i, entry->output));
        }
        db.entries.push_back(std::move(entry).value());
    }
    return db;
}

Result<Database> read_compdb(const std::string& path) {
    auto text = util::read_file(path);
    if (!text) return text.error();
    std::error_code ec;
    auto abs = std::filesystem::absolute(path, ec);
    std::string base = ec ? std::string(".") : abs.parent_path().string();
    return parse_compdb(*text, path, base);
}

} // namespace phc::gen
