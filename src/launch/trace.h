// PHC_NINJA_TRACE: appending ninja-log-style lines so ninjatracing (or Perfetto
// through it) shows each architecture's compile as its own bar.
//
// Format: ninja's .ninja_log v5 (ninja/build_log.h), one line per finished
// step, its mtime its end time.
// The fourth column is what .ninja_log holds there, a hash of the step's
// command (our hash, not ninja's: comparable only among our lines); steps
// of one object differ in their outputs, so ninjatracing, which groups lines
// by it, shows each as its own bar. Times are milliseconds since the epoch: launchers run as
// separate processes and share no build start.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace phc::launch {

/// One trace line (with its newline) for the step `name` that ran `command`
/// from `start_ms` to `end_ms`.
std::string trace_line(int64_t start_ms, int64_t end_ms, std::string_view name,
                       std::string_view command);

/// Appends `lines` to the log at `path` in one write, under an flock so that
/// concurrent launchers neither interleave nor both write the header, which is
/// written first when the file is new or empty.
Status append_trace(const std::string& path, std::string_view lines);

} // namespace phc::launch
