// The Chrome trace-event JSON of a build (what Perfetto and chrome://tracing open).
#pragma once

#include "report/summary.h"

#include <string>

namespace phc::report {

/// One complete ("ph":"X") event per step, in microseconds from the build's
/// start (durations are the log's milliseconds × 1000), on lanes (tid) that
/// never overlap; args hold the kind, architecture, object and output, the
/// step's time in the report's model (time_ms: its CPU time or its core
/// share) and what phc-ninja step recorded (cpu_ms, wait_ms, peak_bytes) when
/// it did; steps on the critical path carry "critical": true.
std::string trace_json(const Analysis& a);

/// The lane of each step (see assign_lanes()).
std::vector<uint32_t> step_lanes(const Build& b);

/// A short label for a step: "gfx906 saxpy.hip.o", "bundle saxpy.hip.o", "link app".
std::string step_label(const Step& s);

} // namespace phc::report
