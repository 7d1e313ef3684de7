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

/// The first target the depfile of `argv` names: the first -MT/-MQ value, else
/// the output as written.
std::string depfile_target(const std::vector<std::string>& argv, const std::string& output_arg);

/// True when the depfile `argv` writes names `spelling` (a ninja output path)
/// as its first target, as ninja requires of a depfile it reads without
/// `deps = gcc`. Such a depfile can stay on disk for the original build system
/// (make -include's it), where `deps = gcc` would delete it after reading.
bool depfile_names(const std::vector<std::string>& argv, const std::string& output_arg,
                   const std::string& spelling);

/// True when argv compiles (has -c) and so can write a depfile.
bool is_compile(const std::vector<std::string>& argv);

/// argv with "-MD -MF <depfile>" appended.
std::vector<std::string> with_depfile(std::vector<std::string> argv, const std::string& depfile);

} // namespace phc::gen
