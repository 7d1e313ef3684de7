// Header dependencies for edges made from database entries: where a command
// already writes a depfile (-MD/-MMD, -MF, -Wp,-MD,FILE) and how to make one
// that does not write one do so.
#pragma once

#include <string>
#include <vector>

namespace phc::gen {

/// The depfile `argv` writes, spelled as in the command (relative to its
/// directory), or empty when it writes none. -MD/-MMD without -MF write the
/// output's name with its extension replaced by ".d", as gcc and clang do.
std::string find_depfile(const std::vector<std::string>& argv, const std::string& output_arg);

/// True when argv compiles (has -c) and so can write a depfile.
bool is_compile(const std::vector<std::string>& argv);

/// argv with "-MD -MF <depfile>" appended.
std::vector<std::string> with_depfile(std::vector<std::string> argv, const std::string& depfile);

} // namespace phc::gen
