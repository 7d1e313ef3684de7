// Header dependencies for edges made from database entries: whether the
// depfile a command already writes (compile::depfile_of decides which) can be
// read by ninja in place, and how to make a command that writes none do so.
#pragma once

#include <string>
#include <vector>

namespace phc::gen {

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
