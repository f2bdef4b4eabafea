// threadmap — result type used by every fallible C++ call.
//
// A Result<T> holds either a value or an Error. Errors carry a std::error_code (what kind of
// failure, errno-compatible) and a message meant for a person: it names the input that failed
// and why, e.g. "cannot pin tid 4242 to 9: CPU 9 is not in the allowed set 0-7". The CLI
// prints that message as its one error line. Nothing in the C++ API throws for expected
// failures; exceptions are reserved for bugs (std::bad_variant_access on misuse).
#pragma once

#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace threadmap {

/// A failure: a machine-readable code plus a one-line human message naming the input.
struct Error {
  std::error_code code;
  std::string message;

  /// Builds an error from a POSIX errno value and a message.
  static Error from_errno(int errno_value, std::string msg) {
    return Error{std::error_code(errno_value, std::generic_category()), std::move(msg)};
  }
  /// Builds an EINVAL error (bad input) with a message.
  static Error invalid(std::string msg) {
    return Error{std::make_error_code(std::errc::invalid_argument), std::move(msg)};
  }
  /// Returns a copy whose message is prefixed with `context: `.
  Error with_context(const std::string& context) const {
    return Error{code, context + ": " + message};
  }
};

/// Either a T or an Error. Test with ok() / operator bool before calling value().
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Result(Error error) : state_(std::in_place_index<1>, std::move(error)) {}  // NOLINT: implicit

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(state_); }
  const T& value() const& { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  T value_or(T fallback) const { return ok() ? std::get<0>(state_) : std::move(fallback); }
  const Error& error() const { return std::get<1>(state_); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Error> state_;
};

/// Result of a call that produces no value: success, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT: implicit
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

using Status = Result<void>;

}  // namespace threadmap
