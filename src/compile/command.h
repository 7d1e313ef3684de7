// A compile command as a value: working directory, environment assignments,
// launcher and the compiler's argv, recognised from a shell command string
// (regen, gen) or an argv (the launcher). Arguments keep their spelling.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace phc::compile {

/// The cache or distribution tool in front of the compiler, if any.
enum class LauncherKind { None, Ccache, Sccache, Distcc, Other };

/// The compiler driver family, from argv[0]'s name.
enum class CompilerKind { Unknown, Clang, Hipcc };

/// One simple compile command.
struct CompileCommand {
    std::string cwd;                   ///< DIR of a leading `cd DIR &&`, as written; "" for none
    std::vector<std::string> env;      ///< NAME=value assignments in front, in order
    std::vector<std::string> launcher; ///< e.g. {"ccache"}; empty for none
    LauncherKind launcher_kind = LauncherKind::None;
    std::vector<std::string> argv; ///< the compiler and its arguments, as written
    CompilerKind compiler = CompilerKind::Unknown;
};

/// A recognised command, or why it was left alone (human text).
struct Recognised {
    std::optional<CompileCommand> command;
    std::string reason;
};

/// Recognises `[cd DIR &&] [NAME=value...] [env NAME=value... | launcher...] compiler args...`.
/// Anything else (pipes, lists, redirections, expansions) is left alone with a reason.
Recognised recognise(std::string_view command);

/// The same from words already split (a launcher's argv): strips `env` and launchers.
Recognised recognise_argv(std::vector<std::string> words);

/// The compiler family of a program name such as "/usr/bin/clang++-15" or "hipcc".
CompilerKind compiler_kind(std::string_view program);

/// The launcher family of a program name such as "ccache" or "/usr/bin/sccache".
LauncherKind launcher_kind(std::string_view program);

/// The last path component.
std::string_view base_name(std::string_view path);

} // namespace phc::compile
