#include "base/assert.h"

#include "base/log.h"

#include <cstdio>
#include <cstdlib>

namespace magnetar::base {

void assertion_failed(std::string_view condition, std::string_view file, int line,
                      std::string_view explanation) noexcept {
  // Logging may itself fail (allocation, a broken sink); the abort must happen anyway.
  try {
    const auto text = fmt::format("assertion failed: {} at {}:{}{}{}", condition, file, line,
                                  explanation.empty() ? "" : ": ", explanation);
    if (auto logger = spdlog::default_logger(); logger) {
      logger->critical("{}", text);
      logger->flush();
    }
    // Whoever watches the process (a supervisor, a death test) reads stderr.
    if (!logs_to_stderr() || !spdlog::default_logger()) std::fprintf(stderr, "%s\n", text.c_str());
  } catch (...) {
  }
  std::abort();
}

}  // namespace magnetar::base
