#include "perf/measure/events_log.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

namespace magnetar::perf {

namespace {

result<void> write_all(int fd, std::string_view text, const std::filesystem::path& path) {
  // A short write to a regular file means the disk is full; with O_APPEND each call
  // lands at the end, so a retry would split the line: report it instead.
  const ssize_t written = ::write(fd, text.data(), text.size());
  if (written == static_cast<ssize_t>(text.size())) return success();
  const int error = written < 0 ? errno : ENOSPC;
  return fail(base::errc::io_error, fmt::format("append to {}: {}", path.string(), std::strerror(error)));
}

std::string csv_field(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == ',' || c == '\n' || c == '\r') c = '_';
  }
  return out;
}

}  // namespace

result<events_log> events_log::open(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd >= 0) {
    if (auto header_written = write_all(fd, fmt::format("{}\n", header), path); !header_written) {
      ::close(fd);
      return header_written.error();
    }
    return events_log(fd, path);
  }
  if (errno != EEXIST) {
    return fail(base::errc::io_error, fmt::format("open {}: {}", path.string(), std::strerror(errno)));
  }
  fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) return fail(base::errc::io_error, fmt::format("open {}: {}", path.string(), std::strerror(errno)));
  return events_log(fd, path);
}

events_log::events_log(events_log&& other) noexcept
    : _fd(std::exchange(other._fd, -1)), _path(std::move(other._path)) {}

events_log& events_log::operator=(events_log&& other) noexcept {
  if (this != &other) {
    if (_fd >= 0) ::close(_fd);
    _fd = std::exchange(other._fd, -1);
    _path = std::move(other._path);
  }
  return *this;
}

events_log::~events_log() {
  if (_fd >= 0) ::close(_fd);
}

result<void> events_log::append(std::string_view source, std::string_view event) {
  return append(source, event, std::chrono::system_clock::now());
}

result<void> events_log::append(std::string_view source, std::string_view event,
                                std::chrono::system_clock::time_point at) {
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(at.time_since_epoch()).count();
  return write_all(_fd, fmt::format("{},{},{}\n", millis, csv_field(source), csv_field(event)), _path);
}

}  // namespace magnetar::perf
