// server_context_source: the server context of a TLS port, rebuilt when its files change
// (upstream's tlsCertRefreshCheckDurationSec), so that a renewed certificate, key or
// trust file is served without a restart.
//
// The files' modification times and sizes are checked at most once per refresh interval,
// by the first current() after it has passed (0: at every call, that is every new
// connection, as upstream's 0); a change builds a new context that new connections get,
// while connections already open keep the one they started with (each holds its
// shared_ptr). A change that doesn't build (a key written before its certificate, a
// half-copied file) keeps the last good context and logs why; the next check tries again.
//
//   auto source = server_context_source::create(settings, std::chrono::seconds(300));
//   ... per accepted connection: auto context = source.value()->current();
//
// Thread-safety: current() from any thread at once.
#pragma once

#include "base/result.h"
#include "tls/tls_context.h"

#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace magnetar::tls {

class server_context_source {
 public:
  // Builds the first context now: bad settings fail here (errc::bad_settings), not at the
  // first client.
  static result<std::shared_ptr<server_context_source>> create(server_settings settings,
                                                               std::chrono::seconds refresh_check);

  std::shared_ptr<ssl::context> current();
  // How many times a change was picked up (for tests and the log).
  std::uint64_t reloads() const;

  struct file_stamp {
    std::filesystem::file_time_type modified;
    std::uintmax_t size = 0;
    bool operator==(const file_stamp&) const = default;
  };

 private:
  server_context_source(server_settings settings, std::chrono::seconds refresh_check);

  const server_settings _settings;
  const std::chrono::seconds _refresh_check;
  mutable std::mutex _mutex;
  std::shared_ptr<ssl::context> _context;
  std::vector<file_stamp> _stamps;  // of the files the context was built from
  std::chrono::steady_clock::time_point _next_check;
  std::uint64_t _reloads = 0;
};

}  // namespace magnetar::tls
