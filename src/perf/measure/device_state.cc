#include "perf/measure/device_state.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>
#include <cerrno>
#include <cstring>
#include <string_view>

namespace magnetar::perf {

namespace {

constexpr std::string_view magic = "MGDSTAT1";
constexpr std::size_t header_size = 16;  // magic and count

void put_le(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i, v >>= 8) out.push_back(static_cast<char>(v & 0xff));
}

std::uint64_t get_le(const char* in) {
  std::uint64_t v = 0;
  for (int i = 8; i-- > 0;) v = (v << 8) | static_cast<std::uint8_t>(in[i]);
  return v;
}

auto os_failure(std::string_view what, const std::filesystem::path& file, int error) {
  return fail(base::errc::io_error,
              fmt::format("device state: cannot {} {}: {}", what, file.string(), std::strerror(error)));
}

// Closes on every path out of write_device_state.
struct fd_guard {
  int fd = -1;
  ~fd_guard() {
    if (fd >= 0) ::close(fd);
  }
};

result<void> write_all(int fd, std::string_view bytes, const std::filesystem::path& file) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_failure("write", file, errno);
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return success();
}

}  // namespace

result<void> write_device_state(const std::filesystem::path& file, std::span<const std::uint64_t> values) {
  std::string bytes;
  bytes.reserve(header_size + values.size() * 8);
  bytes.append(magic);
  put_le(bytes, values.size());
  for (std::uint64_t v : values) put_le(bytes, v);

  // The pid keeps two writers of the same file (two application processes by mistake)
  // from sharing a temporary.
  std::filesystem::path temporary = file;
  temporary += fmt::format(".tmp.{}", ::getpid());
  {
    fd_guard out{::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)};
    if (out.fd < 0) return os_failure("create", temporary, errno);
    if (auto written = write_all(out.fd, bytes, temporary); !written) {
      ::unlink(temporary.c_str());
      return written;
    }
    if (::fsync(out.fd) != 0) {
      const int error = errno;
      ::unlink(temporary.c_str());
      return os_failure("sync", temporary, error);
    }
    const int fd = out.fd;
    out.fd = -1;
    if (::close(fd) != 0) {
      const int error = errno;
      ::unlink(temporary.c_str());
      return os_failure("close", temporary, error);
    }
  }
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    return os_failure("rename into", file, error);
  }
  return success();
}

result<std::vector<std::uint64_t>> read_device_state(const std::filesystem::path& file) {
  fd_guard in{::open(file.c_str(), O_RDONLY | O_CLOEXEC)};
  if (in.fd < 0) return os_failure("open", file, errno);
  std::string bytes;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(in.fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_failure("read", file, errno);
    }
    if (n == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(n));
  }

  const auto bad = [&](std::string why) {
    return fail(base::errc::invalid_argument, fmt::format("device state {}: {}", file.string(), why));
  };
  if (bytes.size() < magic.size() || std::string_view(bytes).substr(0, magic.size()) != magic) {
    if (bytes.size() < magic.size() && magic.starts_with(bytes)) {
      return bad(fmt::format("truncated: {} bytes, shorter than the magic", bytes.size()));
    }
    return bad("bad magic: not a device state file (expected MGDSTAT1)");
  }
  if (bytes.size() < header_size) {
    return bad(fmt::format("truncated: {} bytes, shorter than the {}-byte header", bytes.size(), header_size));
  }
  const std::uint64_t count = get_le(bytes.data() + magic.size());
  const std::size_t held = (bytes.size() - header_size) / 8;
  if ((bytes.size() - header_size) % 8 != 0 || count != held) {
    if (count > held) {
      return bad(fmt::format("truncated: the header says {} devices, the file holds {} bytes of values ({} devices)",
                             count, bytes.size() - header_size, held));
    }
    return bad(fmt::format("count mismatch: the header says {} devices, the file holds {} bytes of values", count,
                           bytes.size() - header_size));
  }
  std::vector<std::uint64_t> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = get_le(bytes.data() + header_size + i * 8);
  return values;
}

namespace {

std::string range_text(std::uint64_t next) { return next == 0 ? "none" : fmt::format("0..{}", next - 1); }

}  // namespace

result<missing_report> compare_device_state(std::span<const std::uint64_t> gateways,
                                            std::span<const std::uint64_t> application) {
  if (gateways.size() != application.size()) {
    return fail(base::errc::invalid_argument,
                fmt::format("device state: the gateways' state covers {} devices, the application's {}",
                            gateways.size(), application.size()));
  }
  missing_report report;
  for (std::size_t d = 0; d < gateways.size(); ++d) {
    if (application[d] >= gateways[d]) continue;
    const std::uint64_t missing = gateways[d] - application[d];
    report.missing_messages += missing;
    ++report.devices_missing;
    if (report.samples.size() < max_missing_samples) {
      report.samples.push_back(fmt::format("device {}: sent {}, received {} ({} missing)", d, range_text(gateways[d]),
                                           range_text(application[d]), missing));
    }
  }
  return report;
}

}  // namespace magnetar::perf
