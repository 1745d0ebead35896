// Always-on assertions for invariants.
//
// An invariant that fails means the process state can no longer be trusted, so
// MAGNETAR_ASSERT logs the condition, the place and a formatted explanation,
// flushes the log and aborts, in every build type (unlike <cassert>).
// Thread-safe; usable from any thread.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace magnetar::base {

[[noreturn]] void assertion_failed(std::string_view condition, std::string_view file, int line,
                                   std::string_view explanation) noexcept;

}  // namespace magnetar::base

#define MAGNETAR_ASSERT(condition, ...)                                                                  \
  do {                                                                                                   \
    if (!(condition)) [[unlikely]] {                                                                     \
      ::magnetar::base::assertion_failed(#condition, __FILE__, __LINE__, ::fmt::format("" __VA_ARGS__)); \
    }                                                                                                    \
  } while (false)

// Marks code that must never run, such as the default of an exhaustive switch.
#define MAGNETAR_UNREACHABLE(...) \
  ::magnetar::base::assertion_failed("unreachable", __FILE__, __LINE__, ::fmt::format("" __VA_ARGS__))
