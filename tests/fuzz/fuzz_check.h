// What every fuzzer checks with: a broken property stops the run at once
// (libFuzzer reports the input as a crash).
#pragma once

namespace phc::fuzz {

inline void check(bool ok) {
    if (!ok) __builtin_trap();
}

} // namespace phc::fuzz
