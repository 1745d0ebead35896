#include "testing/tcp_relay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <utility>
#include <vector>

namespace magnetar::testing {

namespace {

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  return address;
}

}  // namespace

tcp_relay::tcp_relay(int target_port) : _target_port(target_port) {
  _listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto address = loopback(0);
  socklen_t length = sizeof address;
  ::bind(_listener, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::listen(_listener, 64);
  ::getsockname(_listener, reinterpret_cast<sockaddr*>(&address), &length);
  _port = ntohs(address.sin_port);
  _thread = std::thread([this] { run(); });
}

tcp_relay::~tcp_relay() {
  _stopping.store(true);
  _thread.join();
  ::close(_listener);
}

void tcp_relay::run() {
  // Each pair: a client's socket and its socket to the target.
  std::vector<std::pair<int, int>> pairs;
  char buffer[65536];
  while (!_stopping.load()) {
    const bool frozen = _frozen.load();
    std::vector<pollfd> fds{{_listener, POLLIN, 0}};
    if (!frozen) {
      for (auto [a, b] : pairs) {
        fds.push_back({a, POLLIN, 0});
        fds.push_back({b, POLLIN, 0});
      }
    }
    if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
    if (fds[0].revents & POLLIN) {
      const int client = ::accept4(_listener, nullptr, nullptr, SOCK_CLOEXEC);
      const int upstream = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
      auto target = loopback(_target_port);
      if (client >= 0 && ::connect(upstream, reinterpret_cast<sockaddr*>(&target), sizeof target) == 0) {
        pairs.emplace_back(client, upstream);
      } else {
        if (client >= 0) ::close(client);
        ::close(upstream);
      }
    }
    if (frozen) continue;
    std::vector<std::pair<int, int>> open;
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      bool alive = true;
      for (int side = 0; side < 2 && alive; ++side) {
        const auto& fd = fds[1 + 2 * i + side];
        if (!(fd.revents & (POLLIN | POLLHUP | POLLERR))) continue;
        const int to = side == 0 ? pairs[i].second : pairs[i].first;
        const auto n = ::read(fd.fd, buffer, sizeof buffer);
        alive = n > 0 && ::write(to, buffer, static_cast<std::size_t>(n)) == n;
      }
      if (alive) {
        open.push_back(pairs[i]);
      } else {
        ::close(pairs[i].first);
        ::close(pairs[i].second);
      }
    }
    pairs = std::move(open);
  }
  for (auto [a, b] : pairs) {
    ::close(a);
    ::close(b);
  }
}

}  // namespace magnetar::testing
