#include "util/error.h"

namespace phc {

std::string Error::text() const {
    if (detail.empty()) return message;
    std::string out = message;
    out += '\n';
    out += detail;
    return out;
}

} // namespace phc
