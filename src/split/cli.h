// `phc-ninja explain`: show whether and how one compile command would be split.
#pragma once

namespace phc::split {

/// Entry point; argv[0] is "phc-ninja explain". Exit 0 when it could decide
/// (split or not), 1 on errors (e.g. the compiler cannot be probed), 2 on usage errors.
int cli_main(int argc, char** argv);

} // namespace phc::split
