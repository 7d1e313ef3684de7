// Errors that a user's input can cause travel as values, never as exit() calls.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace phc {

/// A user-facing error: one line, already formatted ("file:line:col: error: ...").
/// `detail` may hold extra lines (the source line and a caret) shown after it.
struct Error {
    std::string message;
    std::string detail;

    /// The full text as printed: message, then detail if any.
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

/// Builds an Error from a message.
inline Error make_error(std::string message, std::string detail = {}) {
    return Error{std::move(message), std::move(detail)};
}

} // namespace phc
