// Turns a library's error enum into std::error_code with a category of its own.
//
// Each library declares `enum class errc` and, in the same namespace, two
// functions found by argument-dependent lookup:
//   constexpr std::string_view category_name(errc);   // e.g. "magnetar.wire"
//   std::string_view describe(errc);                  // one line per value
// and `make_error_code(errc e) { return base::make_enum_error_code(e); }`, plus
// the std::is_error_code_enum specialisation. The category object is a
// function-local static: thread-safe and unique per enum type.
#pragma once

#include <string>
#include <string_view>
#include <system_error>

namespace magnetar::base {

template <class Errc>
class enum_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return category_name(Errc{}).data(); }
  std::string message(int value) const override { return std::string(describe(static_cast<Errc>(value))); }
};

template <class Errc>
const std::error_category& enum_category() noexcept {
  static const enum_error_category<Errc> category;
  return category;
}

template <class Errc>
std::error_code make_enum_error_code(Errc e) noexcept {
  return {static_cast<int>(e), enum_category<Errc>()};
}

}  // namespace magnetar::base
