#include "compile/command.h"

#include "compile/shell.h"

#include <cctype>
#include <iterator>

namespace phc::compile {

std::string_view base_name(std::string_view path) {
    size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

namespace {

/// `name` with a trailing version ("-15", "-19.1") removed.
std::string_view strip_version(std::string_view name) {
    size_t dash = name.rfind('-');
    if (dash == std::string_view::npos || dash + 1 == name.size()) return name;
    for (char c : name.substr(dash + 1))
        if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return name;
    return name.substr(0, dash);
}

bool is_assignment_word(const std::string& w) {
    size_t eq = w.find('=');
    if (eq == std::string::npos || eq == 0) return false;
    if (!std::isalpha(static_cast<unsigned char>(w[0])) && w[0] != '_') return false;
    for (size_t k = 1; k < eq; ++k)
        if (!std::isalnum(static_cast<unsigned char>(w[k])) && w[k] != '_') return false;
    return true;
}

/// Moves `env NAME=value...` / `cmake -E env NAME=value...` into `cmd.env`.
/// Returns false with `why` set when env has options we do not model.
bool take_env(std::vector<std::string>& w, size_t& i, CompileCommand& cmd, std::string& why) {
    std::string_view prog = base_name(w[i]);
    size_t skip = 0;
    if (prog == "env") {
        skip = 1;
    } else if (prog == "cmake" && i + 2 < w.size() && w[i + 1] == "-E" && w[i + 2] == "env") {
        skip = 3;
    } else {
        return true;
    }
    i += skip;
    while (i < w.size() && is_assignment_word(w[i]))
        cmd.env.push_back(w[i++]);
    if (i < w.size() && !w[i].empty() && w[i][0] == '-') {
        why = "the 'env' option '" + w[i] + "'";
        return false;
    }
    return true;
}

} // namespace

CompilerKind compiler_kind(std::string_view program) {
    std::string_view n = strip_version(base_name(program));
    if (n == "clang" || n == "clang++" || n == "amdclang" || n == "amdclang++")
        return CompilerKind::Clang;
    if (n == "hipcc" || n == "hipcc.pl" || n == "hipcc.bin") return CompilerKind::Hipcc;
    return CompilerKind::Unknown;
}

LauncherKind launcher_kind(std::string_view program) {
    std::string_view n = base_name(program);
    if (n == "ccache") return LauncherKind::Ccache;
    if (n == "sccache") return LauncherKind::Sccache;
    if (n == "distcc" || n == "icecc" || n == "pump") return LauncherKind::Distcc;
    if (n == "buildcache") return LauncherKind::Other;
    return LauncherKind::None;
}

Recognised recognise_argv(std::vector<std::string> w) {
    Recognised r;
    CompileCommand cmd;
    size_t i = 0;
    while (i < w.size()) {
        size_t before = i;
        if (!take_env(w, i, cmd, r.reason)) return r;
        if (i < w.size() && launcher_kind(w[i]) != LauncherKind::None) {
            if (cmd.launcher_kind != LauncherKind::None) {
                r.reason = "two launchers ('" + cmd.launcher[0] + "' and '" + w[i] + "')";
                return r;
            }
            cmd.launcher_kind = launcher_kind(w[i]);
            cmd.launcher.push_back(w[i++]);
            // ccache accepts KEY=VALUE settings before the compiler.
            while (i < w.size() && is_assignment_word(w[i]))
                cmd.launcher.push_back(w[i++]);
        }
        if (i == before) break;
    }
    if (i >= w.size()) {
        r.reason = "no compiler after the launcher";
        return r;
    }
    cmd.argv.assign(std::make_move_iterator(w.begin() + static_cast<std::ptrdiff_t>(i)),
                    std::make_move_iterator(w.end()));
    cmd.compiler = compiler_kind(cmd.argv[0]);
    r.command = std::move(cmd);
    return r;
}

Recognised recognise(std::string_view command) {
    Recognised r;
    ShellSplit s = split_shell(command);
    if (!s.unsupported.empty()) {
        r.reason = "the command uses " + s.unsupported;
        return r;
    }
    auto& t = s.tokens;
    // CMake writes links as `: && CMD && :` (its empty PRE_LINK and POST_BUILD).
    auto is = [&](size_t k, ShellToken::Kind kind, std::string_view text) {
        return k < t.size() && t[k].kind == kind && t[k].text == text;
    };
    using K = ShellToken::Kind;
    if (t.size() > 4 && is(0, K::Word, ":") && is(1, K::Operator, "&&") &&
        is(t.size() - 1, K::Word, ":") && is(t.size() - 2, K::Operator, "&&")) {
        t.erase(t.end() - 2, t.end());
        t.erase(t.begin(), t.begin() + 2);
    }
    size_t i = 0;
    std::string cwd;
    if (t.size() >= 3 && t[0].kind == ShellToken::Kind::Word && t[0].text == "cd" &&
        t[1].kind == ShellToken::Kind::Word && t[2].kind == ShellToken::Kind::Operator &&
        t[2].text == "&&") {
        cwd = t[1].text;
        i = 3;
    }
    std::vector<std::string> env;
    while (i < t.size() && t[i].kind == ShellToken::Kind::Word && t[i].assignment)
        env.push_back(std::move(t[i++].text));
    std::vector<std::string> words;
    words.reserve(t.size() - i);
    for (; i < t.size(); ++i) {
        if (t[i].kind == ShellToken::Kind::Operator) {
            r.reason = "the command is not a simple command (operator '" + t[i].text + "')";
            return r;
        }
        words.push_back(std::move(t[i].text));
    }
    if (words.empty()) {
        r.reason = "the command runs no program";
        return r;
    }
    r = recognise_argv(std::move(words));
    if (r.command) {
        r.command->cwd = cwd;
        r.command->env.insert(r.command->env.begin(), env.begin(), env.end());
    }
    return r;
}

} // namespace phc::compile
