// PHC_NINJA_TRACE: appending ninja-log-style lines so ninjatracing (or Perfetto
// through it) shows each architecture's compile as its own bar.
//
// Format: ninja's .ninja_log v5 (ninja/build_log.h), one line per finished
// step, its mtime its end time.
// ninjatracing groups lines by command hash, so each step gets its own hash
// (of its name). Times are milliseconds since the epoch: launchers run as
// separate processes and share no build start.
#pragma once

#include "util/error.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace phc::launch {

/// One trace line (with its newline) for a step that ran from `start_ms` to `end_ms`.
std::string trace_line(int64_t start_ms, int64_t end_ms, std::string_view name);

/// Appends `lines` to the log at `path` in one write, under an flock so that
/// concurrent launchers neither interleave nor both write the header, which is
/// written first when the file is new or empty.
Status append_trace(const std::string& path, std::string_view lines);

} // namespace phc::launch
