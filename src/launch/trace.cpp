#include "launch/trace.h"

#include "ninja/build_log.h"
#include "util/hash.h"

namespace phc::launch {

std::string trace_line(int64_t start_ms, int64_t end_ms, std::string_view name,
                       std::string_view command) {
    util::Hasher h;
    h.add(command);
    return ninja::log_line(start_ms, end_ms, end_ms, name, h.hex64());
}

Status append_trace(const std::string& path, std::string_view lines) {
    return ninja::append_log(path, lines, "trace log");
}

} // namespace phc::launch
