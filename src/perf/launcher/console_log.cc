#include "perf/launcher/console_log.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace magnetar::perf {

console_log::~console_log() {
  if (_file != nullptr) std::fclose(_file);
}

result<void> console_log::attach(const std::filesystem::path& file) {
  std::FILE* opened = std::fopen(file.c_str(), "ae");
  if (opened == nullptr) {
    return fail(base::errc::io_error, fmt::format("open {}: {}", file.string(), std::strerror(errno)));
  }
  std::lock_guard lock(_mutex);
  if (_file != nullptr) std::fclose(_file);
  _file = opened;
  return success();
}

void console_log::line(std::string_view text) { write(_terminal, text); }

void console_log::error_line(std::string_view text) { write(_terminal == stdout ? stderr : _terminal, text); }

void console_log::write(std::FILE* terminal, std::string_view text) {
  std::lock_guard lock(_mutex);
  fmt::print(terminal, "{}\n", text);
  std::fflush(terminal);
  if (_file != nullptr) {
    fmt::print(_file, "{}\n", text);
    std::fflush(_file);
  }
}

}  // namespace magnetar::perf
