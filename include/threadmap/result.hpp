// threadmap — result type used by every fallible C++ call.
//
// A Result<T> holds either a value or an Error. Errors carry a std::error_code (what kind of
// failure, errno-compatible), a message meant for a person (it describes the value that failed
// and why, e.g. "cannot pin tid 4242 to 9: CPU 9 is not in the allowed set 0-7"), the request
// member the failure is about and whose fault it is. The CLI prints the message as its one error
// line, naming the flag that set the member, and picks its exit status from the fault. Nothing
// in the C++ API throws for expected failures; exceptions are reserved for bugs
// (std::bad_variant_access on misuse).
#pragma once

#include <string>
#include <system_error>
#include <utility>
#include <variant>

namespace threadmap {

/// Whose fault a failure is. A command's exit status follows from it and nothing else
/// (cli::exit_for): input 2, work 1, start 127 or 126.
enum class Fault {
  /// The work failed: a file unreadable or malformed, a CPU not allowed now, a process gone, a
  /// measurement that could not be made.
  work,
  /// A value given, or a combination of values, can never work (an unknown policy, a CPU the
  /// machine lacks, two options that exclude each other): the caller's mistake, found before
  /// anything was measured, written or run.
  input,
  /// The program asked to run could not be started (not found, not executable).
  start,
};

/// A failure: a machine-readable code, a one-line human message, the input it is about and
/// whose fault it is.
struct Error {
  std::error_code code;
  std::string message;
  /// The request member the failure is about, named as in the request type that holds it
  /// ("cpus", "plan_path", "interval_ms"); empty when it is about no single input (the machine,
  /// a kernel call). Never a flag: each command's CLI maps members to its flags in one table.
  /// Set where the value is read (about, as_bad_input, bad_input).
  std::string input{};
  Fault fault = Fault::work;

  /// Builds an error from a POSIX errno value and a message (the work's fault).
  static Error from_errno(int errno_value, std::string msg) {
    return Error{
        std::error_code(errno_value, std::generic_category()), std::move(msg), {}, Fault::work};
  }
  /// Builds an EINVAL error with a message: something read was invalid (a malformed file, a
  /// value a library was handed). The work's fault until a caller says the value was given
  /// (as_bad_input).
  static Error invalid(std::string msg) {
    return Error{
        std::make_error_code(std::errc::invalid_argument), std::move(msg), {}, Fault::work};
  }
  /// Builds an EINVAL error about request member `member`: the value given there, or its
  /// combination with another, can never work (Fault::input).
  static Error bad_input(std::string member, std::string msg) {
    return Error{std::make_error_code(std::errc::invalid_argument), std::move(msg),
                 std::move(member), Fault::input};
  }
  /// Returns a copy about request member `member`, its fault kept: a file the member names that
  /// cannot be read stays the work's fault.
  Error about(std::string member) const { return Error{code, message, std::move(member), fault}; }
  /// Returns a copy about request member `member` whose fault is the value given there
  /// (Fault::input): it was read and cannot work.
  Error as_bad_input(std::string member) const {
    return Error{code, message, std::move(member), Fault::input};
  }
  /// Returns a copy whose message is prefixed with `context: ` (input and fault kept).
  Error with_context(const std::string& context) const {
    return Error{code, context + ": " + message, input, fault};
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
