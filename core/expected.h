// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// A value or a readable error: the core reports failure as a value, never by
// printing or throwing across its API.

#include <string>
#include <utility>
#include <variant>

namespace attn {

struct Error {
    std::string message;  // one sentence a user can read: what, where, which limit
};

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

}  // namespace attn
