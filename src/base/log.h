// Process-wide logging on spdlog.
//
// Code logs with spdlog's free functions (spdlog::info(...), spdlog::warn(...)).
// init_logging() runs once at start-up, before any other thread exists; the
// level can change later with set_log_level() from any thread.
#pragma once

#include "base/result.h"

#include <spdlog/spdlog.h>

#include <optional>
#include <string_view>

namespace magnetar::base {

// The environment variable that overrides a configured log level.
inline constexpr std::string_view log_level_env = "MAGNETAR_LOG_LEVEL";

// Parses "trace", "debug", "info", "warn", "error", "critical" or "off".
result<spdlog::level::level_enum> parse_log_level(std::string_view text);

// Sets the level of the default logger.
result<void> set_log_level(std::string_view text);

// Names the process in every line and sets the level: MAGNETAR_LOG_LEVEL when
// set, else `configured_level` when given, else info. A bad level is an error
// that names the source it came from.
result<void> init_logging(std::string_view process_name,
                          std::optional<std::string_view> configured_level = std::nullopt);

// True once init_logging() has pointed the default logger at stderr.
bool logs_to_stderr() noexcept;

}  // namespace magnetar::base
