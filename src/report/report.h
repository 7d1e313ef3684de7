// A report of a build directory: load its manifest and log, analyse, write.
#pragma once

#include "report/summary.h"
#include "util/error.h"

#include <string>

namespace phc::report {

/// What to report on and where to write it.
struct Request {
    std::string dir = ".";                  ///< the build directory, as given (for messages)
    std::string manifest = "build.ninja";   ///< relative to the build directory
    int cores = 0;                          ///< 0: this machine's
    std::string html, trace;                ///< files to write (absolute or relative to the cwd)
    bool json = false;                      ///< the summary as JSON
    std::string steps = ".phc-ninja/steps"; ///< phc-ninja step's records, read when present
};

/// Loads the manifest and the log ninja keeps for it (.ninja_log, or in the
/// manifest's `builddir`), paths relative to the current directory (the build
/// directory: the caller changes into it), writes the trace and HTML files
/// asked for and returns the summary to print (text or JSON).
Result<std::string> run_report(const Request& r);

} // namespace phc::report
