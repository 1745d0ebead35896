// error: what a failed result<T> carries.
//
// A std::error_code (so callers branch on the kind: each library's errc
// converts to one) plus an optional detail that says, for a human, which thing
// failed and why ("ledger 42: fdatasync: No space left on device"). The
// detail is what reaches a client in a ServerError message or a log line.
// A value type; not shared between threads unless copied.
#pragma once

#include <fmt/format.h>

#include <ostream>
#include <string>
#include <system_error>
#include <utility>

namespace magnetar {

class error {
 public:
  error() = default;
  error(std::error_code code, std::string detail = {}) : _code(code), _detail(std::move(detail)) {}
  template <class Errc>
  requires std::is_error_code_enum_v<Errc> error(Errc e, std::string detail = {})
      : error(std::error_code(e), std::move(detail)) {}

  const std::error_code& code() const { return _code; }
  const std::string& detail() const { return _detail; }

  // "<detail>: <code message>", or just the code's message without a detail.
  std::string message() const;

  friend bool operator==(const error& e, const std::error_code& c) { return e._code == c; }
  template <class Errc>
  requires std::is_error_code_enum_v<Errc>
  friend bool operator==(const error& e, Errc c) { return e._code == std::error_code(c); }
  // Portable conditions, e.g. `e == std::errc::no_space_on_device`.
  friend bool operator==(const error& e, std::errc c) { return e._code == std::make_error_condition(c); }

 private:
  std::error_code _code;
  std::string _detail;
};

// GoogleTest and streams print an error as its message.
inline std::ostream& operator<<(std::ostream& out, const error& e) { return out << e.message(); }

// Outcome's TRY needs to turn an error into a failed result of another type.
inline const std::error_code& make_error_code(const error& e) { return e.code(); }

}  // namespace magnetar

template <>
struct fmt::formatter<magnetar::error> : fmt::formatter<std::string> {
  auto format(const magnetar::error& e, fmt::format_context& ctx) const {
    return fmt::formatter<std::string>::format(e.message(), ctx);
  }
};
