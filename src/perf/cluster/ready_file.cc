#include "perf/cluster/ready_file.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <poll.h>
#include <sys/inotify.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

// Closes the inotify descriptor on every path out.
struct fd_guard {
  int fd;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_text_file(const fs::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

result<std::string> wait_for_ready_file(child_process& child, const fs::path& file,
                                        std::chrono::steady_clock::time_point deadline) {
  const auto started = std::chrono::steady_clock::now();
  fd_guard watch{::inotify_init1(IN_CLOEXEC | IN_NONBLOCK)};
  if (watch.fd < 0 || ::inotify_add_watch(watch.fd, file.parent_path().c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    return fail(base::errc::io_error,
                fmt::format("inotify on {}: {}", file.parent_path().string(), std::strerror(errno)));
  }
  for (;;) {
    if (fs::exists(file)) return read_text_file(file);
    if (auto code = child.poll()) {
      return fail(base::errc::io_error, fmt::format("exited with code {} before it was ready", *code));
    }
    const auto now = std::chrono::steady_clock::now();
    if (now >= deadline) {
      return fail(
          base::errc::timed_out,
          fmt::format("not ready after {} s", std::chrono::duration_cast<std::chrono::seconds>(now - started).count()));
    }
    pollfd descriptors[2] = {{.fd = watch.fd, .events = POLLIN, .revents = 0},
                             {.fd = child.pidfd(), .events = POLLIN, .revents = 0}};
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - now).count();
    ::poll(descriptors, 2, static_cast<int>(std::min<std::int64_t>(left, 60'000)));
    // Drain the events; which file changed does not matter, the loop looks again.
    char events[4096];
    while (::read(watch.fd, events, sizeof events) > 0) {
    }
  }
}

}  // namespace magnetar::perf
