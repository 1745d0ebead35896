#include "perf/network/tun_forwarder.h"

#include "base/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <queue>
#include <random>
#include <vector>

namespace magnetar::perf {
namespace {

using clock_type = std::chrono::steady_clock;
using std::chrono::microseconds;
using std::chrono::nanoseconds;

constexpr std::size_t reads_per_wake = 256;
// Below this, spinning beats a sleep whose wake-up is late by about as much.
constexpr microseconds spin_window{60};

// A packet's bytes in a buffer of the device's MTU and a bit: buffers are reused without
// being cleared or resized, so a packet costs no allocation or memset once warm.
struct packet_buffer {
  std::vector<char> storage;
  std::size_t length = 0;
};

struct held_packet {
  clock_type::time_point release;
  std::uint64_t sequence = 0;  // breaks ties: equal release times leave in arrival order
  packet_buffer bytes;
};

struct later_first {
  bool operator()(const held_packet& a, const held_packet& b) const {
    return a.release != b.release ? a.release > b.release : a.sequence > b.sequence;
  }
};

// Lateness in microseconds, 1 us buckets up to 100 ms, the rest in the last.
class lateness_histogram {
 public:
  void add(nanoseconds late) {
    const auto us = std::clamp<std::int64_t>(late.count() / 1000, 0, buckets - 1);
    ++_counts[static_cast<std::size_t>(us)];
    ++_total;
    _max = std::max(_max, static_cast<double>(std::max<std::int64_t>(0, late.count())) / 1000.0);
  }
  double percentile(double p) const {
    if (_total == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(p * static_cast<double>(_total - 1)) + 1;
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < _counts.size(); ++i) {
      seen += _counts[i];
      if (seen >= rank) return static_cast<double>(i);
    }
    return buckets;
  }
  double max() const { return _max; }

 private:
  static constexpr std::int64_t buckets = 100'000;
  std::vector<std::uint64_t> _counts = std::vector<std::uint64_t>(buckets);
  std::uint64_t _total = 0;
  double _max = 0;
};

// The device's MTU, for the buffers' size; 1500 when it cannot be read.
std::size_t device_mtu(const std::string& device) {
  const int fd = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  ifreq request{};
  std::strncpy(request.ifr_name, device.c_str(), IFNAMSIZ - 1);
  const bool read = fd >= 0 && ::ioctl(fd, SIOCGIFMTU, &request) == 0;
  if (fd >= 0) ::close(fd);
  return read && request.ifr_mtu > 0 ? static_cast<std::size_t>(request.ifr_mtu) : 1500;
}

result<int> open_tun(const std::string& device) {
  const int fd = ::open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return fail(base::errc::io_error, fmt::format("open /dev/net/tun: {}", std::strerror(errno)));
  ifreq request{};
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  std::strncpy(request.ifr_name, device.c_str(), IFNAMSIZ - 1);
  if (::ioctl(fd, TUNSETIFF, &request) != 0) {
    const int error = errno;
    ::close(fd);
    return fail(base::errc::io_error, fmt::format("attach to TUN device {}: {}", device, std::strerror(error)));
  }
  return fd;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  if (path.empty()) return;
  const auto partial = path.string() + ".partial";
  std::ofstream(partial) << text;
  std::filesystem::rename(partial, path);
}

// The held packets, in release order: a FIFO when order is kept (release times never
// decrease), a heap when jitter may reorder.
class delay_line {
 public:
  explicit delay_line(bool reorder) : _reorder(reorder) {}

  bool empty() const { return _reorder ? _heap.empty() : _fifo.empty(); }
  std::size_t size() const { return _reorder ? _heap.size() : _fifo.size(); }
  const held_packet& next() const { return _reorder ? _heap.top() : _fifo.front(); }
  void push(held_packet packet) {
    if (_reorder) {
      _heap.push(std::move(packet));
    } else {
      _fifo.push_back(std::move(packet));
    }
  }
  packet_buffer pop() {
    packet_buffer bytes;
    if (_reorder) {
      // Taking the bytes leaves the keys the heap orders by as they were.
      bytes = std::move(const_cast<held_packet&>(_heap.top()).bytes);
      _heap.pop();
    } else {
      bytes = std::move(_fifo.front().bytes);
      _fifo.pop_front();
    }
    return bytes;
  }

 private:
  bool _reorder;
  std::deque<held_packet> _fifo;
  std::priority_queue<held_packet, std::vector<held_packet>, later_first> _heap;
};

}  // namespace

result<forwarder_stats> run_forwarder(const forwarder_options& options, const std::atomic<bool>& stop) {
  auto opened = open_tun(options.device);
  if (!opened) return opened.error();
  const int fd = opened.value();
  ::prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // netem holds packets in the kernel, which no process preempts; a forwarder that waits
  // for a core behind the load it delays would add that wait to every packet. A real-time
  // priority (where allowed; the kernel's RT throttling still bounds it) gives it the next
  // core at each release.
  sched_param priority{.sched_priority = 10};
  ::sched_setscheduler(0, SCHED_FIFO, &priority);
  write_file(options.ready_file, fmt::format("{{\"device\":\"{}\"}}\n", options.device));

  std::mt19937_64 random(options.seed);
  std::uniform_int_distribution<std::int64_t> jitter(-options.jitter.count(), options.jitter.count());
  delay_line line(options.reorder);
  // Packets are at most the MTU: without IFF_VNET_HDR the kernel segments before the TUN.
  const std::size_t buffer_size = device_mtu(options.device) + 64;
  std::vector<packet_buffer> spare;
  lateness_histogram lateness;
  forwarder_stats stats;
  std::int64_t queued_bytes = 0;
  std::uint64_t sequence = 0;
  clock_type::time_point last_release = clock_type::now();
  const auto started = clock_type::now();
  std::string failure;

  // A forwarder whose launcher died (kill -9) ends too: nobody else would stop it.
  const pid_t parent = ::getppid();
  while (!stop.load(std::memory_order_relaxed) && failure.empty()) {
    if (::getppid() != parent) break;
    auto now = clock_type::now();
    // Release what is due.
    while (!line.empty() && line.next().release <= now) {
      const auto release = line.next().release;
      auto bytes = line.pop();
      const auto written = ::write(fd, bytes.storage.data(), bytes.length);
      if (written < 0 && errno != EAGAIN && errno != EINVAL) {
        failure = fmt::format("write to {}: {}", options.device, std::strerror(errno));
        break;
      }
      now = clock_type::now();
      lateness.add(now - release);
      ++stats.packets;
      stats.bytes += bytes.length;
      queued_bytes -= static_cast<std::int64_t>(bytes.length);
      spare.push_back(std::move(bytes));
    }
    // Sleep until the next release or a packet, whichever first; spin the last moment.
    timespec timeout{0, 100'000'000};
    bool spin = false;
    if (!line.empty()) {
      const auto wait = line.next().release - now;
      spin = wait <= spin_window;
      const auto sleep = std::max(nanoseconds(0), std::chrono::duration_cast<nanoseconds>(wait - spin_window));
      timeout = {static_cast<time_t>(sleep.count() / 1'000'000'000), static_cast<long>(sleep.count() % 1'000'000'000)};
    }
    pollfd readable{.fd = fd, .events = POLLIN, .revents = 0};
    const int ready = spin ? ::poll(&readable, 1, 0) : ::ppoll(&readable, 1, &timeout, nullptr);
    if (ready < 0 && errno != EINTR) {
      failure = fmt::format("poll {}: {}", options.device, std::strerror(errno));
      break;
    }
    if (ready <= 0) continue;
    if ((readable.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
      failure = fmt::format("{} went away (its namespace or the device was deleted)", options.device);
      break;
    }
    for (std::size_t n = 0; n < reads_per_wake; ++n) {
      packet_buffer buffer;
      if (spare.empty()) {
        buffer.storage.resize(buffer_size);
      } else {
        buffer = std::move(spare.back());
        spare.pop_back();
      }
      const auto got = ::read(fd, buffer.storage.data(), buffer.storage.size());
      if (got <= 0) {
        spare.push_back(std::move(buffer));
        break;
      }
      buffer.length = static_cast<std::size_t>(got);
      if (queued_bytes + got > options.max_queue_bytes) {
        ++stats.dropped;
        spare.push_back(std::move(buffer));
        continue;
      }
      auto release = clock_type::now() + options.delay + microseconds(options.jitter.count() > 0 ? jitter(random) : 0);
      if (!options.reorder) release = std::max(release, last_release);
      last_release = release;
      queued_bytes += got;
      line.push({release, sequence++, std::move(buffer)});
      stats.max_queued_packets = std::max<std::uint64_t>(stats.max_queued_packets, line.size());
    }
  }
  ::close(fd);
  stats.lateness_p50_us = lateness.percentile(0.50);
  stats.lateness_p99_us = lateness.percentile(0.99);
  stats.lateness_max_us = lateness.max();
  stats.seconds = std::chrono::duration<double>(clock_type::now() - started).count();
  write_file(options.stats_file, stats_json(stats));
  if (!failure.empty()) return fail(base::errc::io_error, failure);
  return stats;
}

std::string stats_json(const forwarder_stats& s) {
  return nlohmann::json{{"packets", s.packets},
                        {"bytes", s.bytes},
                        {"dropped", s.dropped},
                        {"maxQueuedPackets", s.max_queued_packets},
                        {"latenessP50Micros", s.lateness_p50_us},
                        {"latenessP99Micros", s.lateness_p99_us},
                        {"latenessMaxMicros", s.lateness_max_us},
                        {"seconds", s.seconds}}
             .dump() +
         "\n";
}

}  // namespace magnetar::perf
