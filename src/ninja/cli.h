// `phc-ninja manifest`: inspect a ninja manifest with our parser (the bridge to
// ninja's own `-t commands` in the oracle tests).
#pragma once

namespace phc::ninja {

/// Entry point of `phc-ninja manifest`; argv[0] is "phc-ninja manifest".
int cli_main(int argc, char** argv);

} // namespace phc::ninja
