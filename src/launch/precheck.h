// The cheap, purely syntactic look at a command line that decides whether the
// launcher needs to do anything at all. It must stay cheap: every compile of a
// build goes through it, and most are passed straight to the compiler.
#pragma once

#include <string>
#include <vector>

namespace phc::launch {

/// What to do with a command.
enum class Route {
    PassThrough, ///< exec it unchanged
    Preprocess,  ///< a HIP -E run (sccache's preprocessing): exec preprocess_argv()
    Candidate,   ///< maybe a multi-architecture HIP compile: ask the planner
};

/// Decides the route from the words alone (no file access, no compiler probe).
/// Candidate: has -c, no -E, no device-only/host-only/-fsyntax-only/-M/-MM, and
/// two or more distinct --offload-arch/--cuda-gpu-arch values, or a response file.
Route route(const std::vector<std::string>& argv);

/// The -E fix-ups sccache needs (see sccache#2762): drops --offload-compress and
/// --offload-new-driver and appends --no-offload-new-driver.
std::vector<std::string> preprocess_argv(const std::vector<std::string>& argv);

/// The command to run: `args`, with `compiler` (PHC_COMPILER) put in front when set.
std::vector<std::string> command_from(const std::vector<std::string>& args, const char* compiler);

} // namespace phc::launch
