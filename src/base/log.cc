#include "base/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <array>
#include <atomic>
#include <cstdlib>
#include <string>
#include <utility>

namespace magnetar::base {
namespace {
std::atomic<bool> default_logger_is_stderr{false};
}  // namespace

bool logs_to_stderr() noexcept { return default_logger_is_stderr.load(std::memory_order_relaxed); }

result<spdlog::level::level_enum> parse_log_level(std::string_view text) {
  static constexpr std::array<std::pair<std::string_view, spdlog::level::level_enum>, 7> levels{{
      {"trace", spdlog::level::trace},
      {"debug", spdlog::level::debug},
      {"info", spdlog::level::info},
      {"warn", spdlog::level::warn},
      {"error", spdlog::level::err},
      {"critical", spdlog::level::critical},
      {"off", spdlog::level::off},
  }};
  for (const auto& [name, level] : levels) {
    if (name == text) return level;
  }
  return fail(errc::invalid_argument,
              fmt::format("unknown log level '{}' (use trace, debug, info, warn, error, critical or off)", text));
}

result<void> set_log_level(std::string_view text) {
  MAGNETAR_TRY(level, parse_log_level(text));
  spdlog::set_level(level);
  return success();
}

result<void> init_logging(std::string_view process_name, std::optional<std::string_view> configured_level) {
  // Calling init_logging again (tests do) reuses the registered logger.
  auto logger = spdlog::get(std::string(process_name));
  if (!logger) logger = spdlog::stderr_color_mt(std::string(process_name));
  spdlog::set_default_logger(logger);
  default_logger_is_stderr.store(true, std::memory_order_relaxed);
  spdlog::set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%L%$ [%n %t] %v");
  spdlog::flush_on(spdlog::level::warn);

  if (const char* from_env = std::getenv(log_level_env.data()); from_env != nullptr) {
    auto set = set_log_level(from_env);
    if (!set) return fail(set.error().code(), fmt::format("{}: {}", log_level_env, set.error().detail()));
    return success();
  }
  if (configured_level) {
    auto set = set_log_level(*configured_level);
    if (!set) return fail(set.error().code(), fmt::format("log level: {}", set.error().detail()));
    return success();
  }
  spdlog::set_level(spdlog::level::info);
  return success();
}

}  // namespace magnetar::base
