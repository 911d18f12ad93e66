// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A value or a readable error: the core reports failure as a value, never by
// printing or throwing across its API.

#include <string>
#include <utility>
#include <variant>

namespace attn {

// What kind of failure an Error reports, for callers that act on it (a
// superseded request drops a Cancelled result without a word; every other
// kind is shown). The message is for the user and is never compared.
enum class ErrorKind {
    Invalid,    // an input, a file or a setting that cannot be used
    Cancelled,  // stopped by its cancel flag: a newer request took over
};

struct Error {
    std::string message;  // one sentence a user can read: what, where, which limit
    ErrorKind kind = ErrorKind::Invalid;
};

// A computation stopped by its cancel flag, with the message a user would
// read if it were ever shown.
inline Error cancelledError(std::string message)
{
    return Error{std::move(message), ErrorKind::Cancelled};
}

template <typename T>
class Expected {
public:
    Expected(T value) : data_(std::move(value)) {}
    Expected(Error error) : data_(std::move(error)) {}

    bool ok() const { return std::holds_alternative<T>(data_); }
    explicit operator bool() const { return ok(); }

    const T& value() const& { return std::get<T>(data_); }
    T& value() & { return std::get<T>(data_); }
    T&& value() && { return std::get<T>(std::move(data_)); }
    const T* operator->() const { return &value(); }
    T* operator->() { return &value(); }
    const T& operator*() const { return value(); }

    const Error& error() const { return std::get<Error>(data_); }

private:
    std::variant<T, Error> data_;
};

// For operations that return nothing on success.
struct Ok {};
using Status = Expected<Ok>;
inline Status okStatus()
{
    return Ok{};
}

// True for a value that failed with ErrorKind::Cancelled.
template <typename T>
bool isCancelled(const Expected<T>& value)
{
    return !value && value.error().kind == ErrorKind::Cancelled;
}

}  // namespace attn
