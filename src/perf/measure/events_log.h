// events_log: appends the run's events to events.csv (`epochMillis,source,event`), the
// timeline the report marks on its charts (src/perf/README.md lists the events).
//
// The launcher and the workload processes append to the same file: every line goes out
// in one write() on an O_APPEND descriptor, so lines of different processes never
// interleave. The header is written by whoever creates the file (O_EXCL decides).
// Thread-safety: append() may be called from any thread.
#pragma once

#include "base/result.h"

#include <chrono>
#include <filesystem>
#include <string_view>

namespace magnetar::perf {

class events_log {
 public:
  static constexpr std::string_view header = "epochMillis,source,event";

  // Opens (creating with the header when missing) the file at `path`.
  static result<events_log> open(const std::filesystem::path& path);

  events_log(events_log&& other) noexcept;
  events_log& operator=(events_log&& other) noexcept;
  events_log(const events_log&) = delete;
  events_log& operator=(const events_log&) = delete;
  ~events_log();

  // One line, stamped with the system clock (or `at`). Commas and newlines in `source`
  // and `event` are replaced by '_' to keep the CSV's shape.
  result<void> append(std::string_view source, std::string_view event);
  result<void> append(std::string_view source, std::string_view event, std::chrono::system_clock::time_point at);

  const std::filesystem::path& path() const { return _path; }

 private:
  events_log(int fd, std::filesystem::path path) : _fd(fd), _path(std::move(path)) {}

  int _fd = -1;
  std::filesystem::path _path;
};

}  // namespace magnetar::perf
