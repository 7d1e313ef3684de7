// Asking a ninja binary which version it is (regen and gen use header sets only
// with a ninja that handles them).
#pragma once

#include <string>
#include <utility>

namespace phc::ninja {

/// The major and minor version `program --version` prints ("1.11.1"), or
/// {0, 0} when it cannot be run or prints something else.
std::pair<int, int> version_of(const std::string& program);

} // namespace phc::ninja
