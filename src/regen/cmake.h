// What regen reads of CMake's build besides the manifest: values of
// CMakeCache.txt, the other top manifests of a Ninja Multi-Config build, and
// the ninja that builds (CMAKE_MAKE_PROGRAM; ninja/version.h asks its version).
#pragma once

#include "ninja/manifest.h"
#include "util/error.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace phc::regen {

/// The value of `name` in CMakeCache.txt text ("NAME:TYPE=value"), or "".
std::string cache_value(std::string_view cache, std::string_view name);

/// The other top manifests of a build of CMake's Ninja Multi-Config generator
/// (CMakeCache.txt says so): build.ninja and each build-<Config>.ninja that
/// CMake's generator edge writes (one per configuration CMake wrote), besides
/// `manifest`, that exist. Empty for any other build.
std::vector<std::string> multi_config_tops(const ninja::Manifest& m, const std::string& manifest);

/// An error at `manifest` when it does not exist and CMakeCache.txt says the
/// build directory is one of another CMake generator than Ninja's ("Unix
/// Makefiles"): it names the generator and the ways on (-G Ninja, phc-launch,
/// phc-ninja gen). Ok otherwise (a missing manifest is then reported as such).
Status check_generator(const std::string& manifest);

/// The ninja that builds: CMake's CMAKE_MAKE_PROGRAM (CMakeCache.txt in the
/// current directory), else `ninja` in PATH; "" when there is none.
std::string building_ninja();

} // namespace phc::regen
