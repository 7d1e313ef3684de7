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

/// The copy of `depfile` that ninja reads (and, with deps = gcc, deletes) when
/// the original build's depfile names another target spelling than ninja's.
std::string ninja_copy(const std::string& depfile);

/// Shell text appended to a command that writes `depfile`: " && cp depfile
/// ninja_copy(depfile)", so make's depfile stays on disk, written by this build.
std::string copy_for_ninja(const std::string& depfile);

/// argv with "-MD -MF <depfile>" appended.
std::vector<std::string> with_depfile(std::vector<std::string> argv, const std::string& depfile);

} // namespace phc::gen
