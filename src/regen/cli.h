// `phc-ninja regen` command line.
#pragma once

namespace phc::regen {

/// Entry point; argv[0] is "phc-ninja regen". 0 on success, 1 on errors, 2 on usage errors.
int cli_main(int argc, char** argv);

} // namespace phc::regen
