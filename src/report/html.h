// The report as one self-contained HTML page: no network, no external scripts or fonts.
#pragma once

#include "report/summary.h"

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace phc::report {

/// The page: a timeline (one lane per concurrently running slot; steps
/// coloured by architecture and kind; the critical path outlined; the step's
/// command and times in its title), the summary table, and per split object
/// its device steps side by side with what it would cost unsplit. Builds with
/// many steps stay light: steps under 1% of the wall time that follow each
/// other in a lane are drawn as one block. `where` names the build directory.
/// `command(i)` gives step i's command (asked only for the steps drawn alone).
std::string html_page(const Analysis& a, std::string_view where,
                      const std::function<std::string(uint32_t)>& command);

/// `s` with &, <, >, " and ' escaped for HTML text and attributes.
std::string html_escape(std::string_view s);

} // namespace phc::report
