// result<T>: the return type of every fallible call across a library boundary.
//
// A value or an `error` (an error code plus a human detail). Reading the value
// of a failed result, or the error of a successful one, is a bug: it logs and
// aborts through MAGNETAR_ASSERT instead of throwing, because exceptions never
// leave a coroutine in magnetar.
//
//   result<int> parse(std::string_view text) {
//     if (text.empty()) return fail(base::errc::invalid_argument, "empty number");
//     ...
//   }
//   MAGNETAR_TRY(n, parse(text));     // declares `auto&& n`; returns the failure early
//   MAGNETAR_CO_TRY(n, parse(text));  // the same inside a coroutine
//   MAGNETAR_TRY(check(text));        // for result<void>
// The macros expand to several statements: brace them under an if or for.
#pragma once

#include "base/assert.h"
#include "base/errc.h"
#include "base/error.h"

#include <boost/outcome/basic_result.hpp>
#include <boost/outcome/policy/base.hpp>
#include <boost/outcome/try.hpp>

#include <string>
#include <utility>

namespace magnetar {

namespace outcome = BOOST_OUTCOME_V2_NAMESPACE;

namespace base::detail {

// Outcome's no-value policy: checked access that fails is an invariant violation.
struct assert_on_bad_access : outcome::policy::base {
  template <class Impl>
  static constexpr void wide_value_check(Impl&& self) {
    MAGNETAR_ASSERT(base::_has_value(self), "value of a failed result: {}", base::_error(self));
  }
  template <class Impl>
  static constexpr void wide_error_check(Impl&& self) {
    MAGNETAR_ASSERT(base::_has_error(self), "error of a successful result");
  }
  template <class Impl>
  static constexpr void wide_exception_check(Impl&& self) {
    MAGNETAR_ASSERT(base::_has_exception(self), "result has no exception");
  }
};

}  // namespace base::detail

template <class T>
using result = outcome::basic_result<T, error, base::detail::assert_on_bad_access>;

using outcome::success;

// A failed result that converts to any result<T>.
inline auto fail(error e) { return outcome::failure(std::move(e)); }
inline auto fail(std::error_code code, std::string detail) { return outcome::failure(error(code, std::move(detail))); }
template <class Errc>
requires std::is_error_code_enum_v<Errc>
inline auto fail(Errc e, std::string detail = {}) { return outcome::failure(error(e, std::move(detail))); }

}  // namespace magnetar

#define MAGNETAR_TRY BOOST_OUTCOME_TRY
#define MAGNETAR_CO_TRY BOOST_OUTCOME_CO_TRY
