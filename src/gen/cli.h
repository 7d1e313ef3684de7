// `phc-ninja gen`: write a ninja file from a compilation database.
#pragma once

namespace phc::gen {

/// Entry point of `phc-ninja gen [-p compile_commands.json | DIR] [-o phc.ninja]
/// [--device-jobs N]`; argv[0] is "phc-ninja gen". Returns the exit status.
int cli_main(int argc, char** argv);

} // namespace phc::gen
