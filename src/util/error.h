// Errors that a user's input can cause travel as values, never as exit() calls.
//
// The one convention: an Error says what is wrong in a bare message (never
// "error:"), with an optional location beside it; each command has one
// printer (print_error) that adds "error:" once, where the user sees it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace phc {

/// A user-facing error: a bare one-line message, where it is (if anywhere),
/// and extra lines (the source line and a caret) shown after it.
struct Error {
    std::string message; ///< what is wrong: "unknown build rule 'x'"; never "error:"
    std::string detail;  ///< more lines, shown after the message; often empty
    std::string where;   ///< "file:line:col", "file:line", "path", or "" (none)

    /// "WHERE: MESSAGE" (or the message alone), then the detail lines if any:
    /// the error as a part of another message or a warning.
    std::string text() const;
};

/// Either a value or an Error. A small stand-in for C++23 std::expected.
template <typename T> class [[nodiscard]] Result {
public:
    Result(T value) : v_(std::move(value)) {}
    Result(Error error) : v_(std::move(error)) {}

    bool ok() const { return v_.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(v_); }
    const T& value() const& { return std::get<0>(v_); }
    T&& value() && { return std::get<0>(std::move(v_)); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }
    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    const Error& error() const { return std::get<1>(v_); }

private:
    std::variant<T, Error> v_;
};

/// Result for operations that return nothing on success.
struct Ok {};
using Status = Result<Ok>;

/// An Error with no location.
inline Error make_error(std::string message, std::string detail = {}) {
    return Error{std::move(message), std::move(detail), {}};
}

/// An Error at `where` ("file:line:col", "file:line" or a path).
inline Error error_at(std::string where, std::string message, std::string detail = {}) {
    return Error{std::move(message), std::move(detail), std::move(where)};
}

/// What a command prints for `e` (no final newline): "WHERE: error: MESSAGE",
/// or "COMMAND: error: MESSAGE" when it has no location; then the detail.
std::string format_error(std::string_view command, const Error& e);

/// The one printer of a command's errors: format_error on stderr. Returns 1,
/// the exit status of a command that failed.
int print_error(std::string_view command, const Error& e);

} // namespace phc
