#include "util/error.h"

#include <cstdio>

namespace phc {

namespace {

/// `head`, then `e`'s detail lines if any.
std::string with_detail(std::string head, const Error& e) {
    if (e.detail.empty()) return head;
    head += '\n';
    head += e.detail;
    return head;
}

} // namespace

std::string Error::text() const {
    return with_detail(where.empty() ? message : where + ": " + message, *this);
}

std::string format_error(std::string_view command, const Error& e) {
    std::string head(e.where.empty() ? command : std::string_view(e.where));
    head += ": error: ";
    head += e.message;
    return with_detail(std::move(head), e);
}

int print_error(std::string_view command, const Error& e) {
    std::string line = format_error(command, e);
    line += '\n';
    std::fputs(line.c_str(), stderr);
    return 1;
}

} // namespace phc
