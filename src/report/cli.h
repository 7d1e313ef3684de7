// `phc-ninja report`: where the last ninja build's time went.
#pragma once

namespace phc::report {

/// Entry point of `phc-ninja report [-C DIR] [-f FILE] [--html OUT.html]
/// [--trace OUT.json] [--cores N] [--json]`; argv[0] is "phc-ninja report".
/// Returns the exit status.
int cli_main(int argc, char** argv);

} // namespace phc::report
