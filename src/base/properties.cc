#include "base/properties.h"

#include "base/errc.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <system_error>

namespace magnetar::base {

std::string_view trim(std::string_view text) {
  constexpr std::string_view blanks = " \t\r\f\v";
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

result<void> parse_properties(std::string_view text, std::string_view source,
                              const std::function<result<void>(std::string_view key, std::string_view value)>& apply) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const auto end = text.find('\n');
    const std::string_view line = trim(text.substr(0, end));
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    if (line.empty() || line.starts_with('#') || line.starts_with('!')) continue;
    const auto equals = line.find('=');
    if (equals == std::string_view::npos) {
      return fail(errc::invalid_argument,
                  fmt::format("{}:{}: expected key=value, found '{}'", source, line_number, line));
    }
    auto applied = apply(trim(line.substr(0, equals)), trim(line.substr(equals + 1)));
    if (!applied) {
      return fail(applied.error().code(), fmt::format("{}:{}: {}", source, line_number, applied.error().detail()));
    }
  }
  return success();
}

result<std::string> read_text_file(std::string_view path) {
  const std::string name(path);
  const int fd = ::open(name.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return fail(std::error_code(errno, std::generic_category()), fmt::format("config file {}", path));
  std::string text;
  std::array<char, 16 * 1024> buffer;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return fail(std::error_code(error, std::generic_category()), fmt::format("config file {}", path));
    }
    if (n == 0) break;
    text.append(buffer.data(), static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

}  // namespace magnetar::base
