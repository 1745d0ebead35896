#include "perf/bench/limit_pipeline.h"

#include "base/errc.h"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <thread>
#include <vector>

namespace magnetar::perf {
namespace {

using steady = std::chrono::steady_clock;

error system_error(const std::string& what) {
  return error(base::errc::io_error, fmt::format("limit pipeline: {}: {}", what, std::strerror(errno)));
}

// Closes its descriptor when it goes.
class descriptor {
 public:
  explicit descriptor(int fd = -1) : _fd(fd) {}
  descriptor(descriptor&& other) noexcept : _fd(std::exchange(other._fd, -1)) {}
  descriptor& operator=(descriptor&& other) noexcept {
    std::swap(_fd, other._fd);
    return *this;
  }
  ~descriptor() {
    if (_fd >= 0) ::close(_fd);
  }
  int get() const { return _fd; }

 private:
  int _fd;
};

bool send_all(int fd, const std::byte* data, std::size_t size) {
  while (size > 0) {
    const auto n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// The producer's and the consumer's connections to the relay, and the relay's ends.
struct connections {
  descriptor producer, relay_in, consumer, relay_out;
};

result<connections> connect_pipeline() {
  descriptor listener(::socket(AF_INET, SOCK_STREAM, 0));
  if (listener.get() < 0) return fail(system_error("socket"));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&address), length) != 0) return fail(system_error("bind"));
  if (::listen(listener.get(), 2) != 0) return fail(system_error("listen"));
  if (::getsockname(listener.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    return fail(system_error("getsockname"));
  }
  auto dial = [&]() -> result<std::pair<descriptor, descriptor>> {
    descriptor client(::socket(AF_INET, SOCK_STREAM, 0));
    if (client.get() < 0) return fail(system_error("socket"));
    if (::connect(client.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      return fail(system_error("connect"));
    }
    descriptor accepted(::accept(listener.get(), nullptr, nullptr));
    if (accepted.get() < 0) return fail(system_error("accept"));
    const int on = 1;
    for (int fd : {client.get(), accepted.get()}) ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    return std::pair(std::move(client), std::move(accepted));
  };
  MAGNETAR_TRY(in, dial());
  MAGNETAR_TRY(out, dial());
  return connections{std::move(in.first), std::move(in.second), std::move(out.first), std::move(out.second)};
}

// The relay's file, zero-filled and synced once so that the timed writes go over
// written blocks; unlinked at once, so nothing is left behind.
result<descriptor> open_ring_file(const limit_options& options) {
  auto pattern = (std::filesystem::path(options.directory) / "magnetar-limit-XXXXXX").string();
  descriptor file(::mkstemp(pattern.data()));
  if (file.get() < 0) return fail(system_error(fmt::format("create a file in {}", options.directory)));
  ::unlink(pattern.c_str());
  const std::vector<std::byte> zeros(1 << 20);
  for (std::uint64_t at = 0; at < options.file_bytes; at += zeros.size()) {
    if (::pwrite(file.get(), zeros.data(), zeros.size(), static_cast<off_t>(at)) !=
        static_cast<ssize_t>(zeros.size())) {
      return fail(system_error("zero-fill the file"));
    }
  }
  if (::fdatasync(file.get()) != 0) return fail(system_error("fdatasync"));
  return file;
}

struct relay_outcome {
  std::uint64_t syncs = 0;
  std::string failure;
};

// Read what arrived, append it, sync, forward it, receipt it; until the producer closes.
relay_outcome relay(int in, int out, int file, std::uint64_t file_bytes) {
  relay_outcome outcome;
  std::vector<std::byte> buffer(4 << 20);
  std::uint64_t offset = 0;
  std::uint64_t durable = 0;
  for (;;) {
    const auto n = ::recv(in, buffer.data(), buffer.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) outcome.failure = system_error("relay read").message();
    if (n <= 0) break;
    for (std::size_t written = 0; written < static_cast<std::size_t>(n);) {
      const auto piece = std::min<std::uint64_t>(static_cast<std::size_t>(n) - written, file_bytes - offset);
      if (::pwrite(file, buffer.data() + written, piece, static_cast<off_t>(offset)) != static_cast<ssize_t>(piece)) {
        outcome.failure = system_error("relay write").message();
        return outcome;
      }
      written += piece;
      offset = (offset + piece) % file_bytes;
    }
    if (::fdatasync(file) != 0) {
      outcome.failure = system_error("relay fdatasync").message();
      return outcome;
    }
    ++outcome.syncs;
    durable += static_cast<std::uint64_t>(n);
    if (!send_all(out, buffer.data(), static_cast<std::size_t>(n)) ||
        !send_all(in, reinterpret_cast<const std::byte*>(&durable), sizeof durable)) {
      outcome.failure = system_error("relay send").message();
      return outcome;
    }
  }
  ::shutdown(out, SHUT_WR);
  return outcome;
}

// Reads the relay's receipts (cumulative durable bytes, 8 bytes each) without blocking.
class receipts {
 public:
  explicit receipts(int fd) : _fd(fd) {}
  // False once the connection failed or closed.
  bool read(bool wait) {
    if (wait) {
      pollfd p{_fd, POLLIN, 0};
      ::poll(&p, 1, 100);
    }
    std::byte chunk[4096];
    const auto n = ::recv(_fd, chunk, sizeof chunk, MSG_DONTWAIT);
    if (n == 0) return false;
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    for (ssize_t i = 0; i < n; ++i) {
      _partial[_filled++] = chunk[i];
      if (_filled == sizeof _partial) {
        std::memcpy(&_durable, _partial, sizeof _durable);
        _filled = 0;
      }
    }
    return true;
  }
  std::uint64_t durable_bytes() const { return _durable; }

 private:
  int _fd;
  std::byte _partial[8]{};
  std::size_t _filled = 0;
  std::uint64_t _durable = 0;
};

}  // namespace

result<limit_results> run_limit_pipeline(const limit_options& options) {
  if (options.message_size == 0 || options.batch_messages == 0 || options.max_outstanding == 0) {
    return fail(base::errc::invalid_argument, "limit pipeline: message size, batch and window must be positive");
  }
  MAGNETAR_TRY(file, open_ring_file(options));
  MAGNETAR_TRY(sockets, connect_pipeline());

  const std::size_t framed = 4 + options.message_size;
  std::vector<std::byte> batch(framed * options.batch_messages);
  for (std::size_t i = 0; i < options.batch_messages; ++i) {
    const auto size = static_cast<std::uint32_t>(options.message_size);
    std::memcpy(batch.data() + i * framed, &size, sizeof size);
  }

  limit_results results;
  relay_outcome relayed;
  std::thread relay_thread(
      [&] { relayed = relay(sockets.relay_in.get(), sockets.relay_out.get(), file.get(), options.file_bytes); });
  std::atomic<std::uint64_t> delivered_bytes{0};
  steady::time_point last_delivery{};
  std::thread consumer_thread([&] {
    std::vector<std::byte> buffer(4 << 20);
    for (;;) {
      const auto n = ::recv(sockets.consumer.get(), buffer.data(), buffer.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      delivered_bytes += static_cast<std::uint64_t>(n);
      last_delivery = steady::now();
    }
  });

  const auto start = steady::now();
  const auto deadline = start + options.duration;
  receipts receipted(sockets.producer.get());
  bool healthy = true;
  for (;;) {
    const auto durable = receipted.durable_bytes() / framed;
    const auto outstanding = results.sent - durable;
    if (steady::now() < deadline) {
      if (outstanding < options.max_outstanding) {
        const auto count = std::min(options.batch_messages, options.max_outstanding - outstanding);
        if (!send_all(sockets.producer.get(), batch.data(), count * framed)) {
          healthy = false;
          break;
        }
        results.sent += count;
        healthy = receipted.read(false);
      } else {
        healthy = receipted.read(true);
      }
    } else if (outstanding == 0) {
      break;
    } else {
      healthy = receipted.read(true);
    }
    if (!healthy) break;
  }
  ::shutdown(sockets.producer.get(), SHUT_WR);
  relay_thread.join();
  consumer_thread.join();

  if (!relayed.failure.empty()) return fail(base::errc::io_error, relayed.failure);
  if (!healthy) return fail(system_error("producer"));
  results.durable = receipted.durable_bytes() / framed;
  results.delivered = delivered_bytes / framed;
  results.syncs = relayed.syncs;
  results.seconds = std::chrono::duration<double>(last_delivery - start).count();
  return results;
}

double delivered_rate(const limit_results& results) {
  return results.seconds > 0 ? static_cast<double>(results.delivered) / results.seconds : 0;
}

std::string limit_summary(const limit_options& options, const limit_results& results) {
  const double rate = delivered_rate(results);
  const double per_sync =
      results.syncs > 0 ? static_cast<double>(results.durable) / static_cast<double>(results.syncs) : 0;
  return fmt::format(
      "zero-logic pipeline | {} B messages | batches of {} | {} outstanding | fdatasync in {}\n"
      "sent {} msgs, durable {}, delivered {} in {:.1f} s: {:.0f} msg/s, {:.1f} MB/s; {} syncs, {:.0f} msgs a sync\n",
      options.message_size, options.batch_messages, options.max_outstanding, options.directory, results.sent,
      results.durable, results.delivered, results.seconds, rate, rate * static_cast<double>(options.message_size) / 1e6,
      results.syncs, per_sync);
}

}  // namespace magnetar::perf
