// `phc-ninja step`: one build step run under the build's shared memory budget
// and measured (run by the edges of a split build; see budget.h and steps.h).
#pragma once

namespace phc::sched {

/// Entry point; argv[0] is "phc-ninja step". The command's exit status (128+N
/// for signal N), 127 when it cannot be started, 2 on usage errors.
int step_main(int argc, char** argv);

} // namespace phc::sched
