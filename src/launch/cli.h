// `phc-ninja launch [--] COMPILER ARGS...` and `phc-launch COMPILER ARGS...`.
#pragma once

namespace phc::launch {

/// Runs one compile command: passes it to the compiler unchanged (exec) unless
/// it is a multi-architecture HIP object compile, which it splits and runs as a
/// GNU make jobserver client. argv[0] is "phc-ninja launch" or the program path.
int cli_main(int argc, char** argv);

} // namespace phc::launch
