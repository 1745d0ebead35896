#include "tls/server_context_source.h"

#include <spdlog/spdlog.h>

namespace magnetar::tls {

namespace {

// The stamps of the settings' files; a file that can't be read stamps as empty (a
// renewal that moves files in place may delete one for a moment).
std::vector<server_context_source::file_stamp> stamps_of(const server_settings& s) {
  std::vector<server_context_source::file_stamp> out;
  for (const auto* file : {&s.certificate_file, &s.key_file, &s.trust_certs_file}) {
    server_context_source::file_stamp stamp;
    std::error_code ec;
    if (!file->empty()) {
      stamp.modified = std::filesystem::last_write_time(*file, ec);
      if (!ec) stamp.size = std::filesystem::file_size(*file, ec);
      if (ec) stamp = {};
    }
    out.push_back(stamp);
  }
  return out;
}

}  // namespace

server_context_source::server_context_source(server_settings settings, std::chrono::seconds refresh_check)
    : _settings(std::move(settings)), _refresh_check(refresh_check) {}

result<std::shared_ptr<server_context_source>> server_context_source::create(server_settings settings,
                                                                             std::chrono::seconds refresh_check) {
  std::shared_ptr<server_context_source> source(new server_context_source(std::move(settings), refresh_check));
  source->_stamps = stamps_of(source->_settings);
  MAGNETAR_TRY(context, make_server_context(source->_settings));
  source->_context = std::move(context);
  source->_next_check = std::chrono::steady_clock::now() + refresh_check;
  return source;
}

std::shared_ptr<ssl::context> server_context_source::current() {
  std::lock_guard lock(_mutex);
  const auto now = std::chrono::steady_clock::now();
  if (now < _next_check) return _context;
  _next_check = now + _refresh_check;
  auto stamps = stamps_of(_settings);
  if (stamps == _stamps) return _context;
  auto rebuilt = make_server_context(_settings);
  if (!rebuilt) {
    // Not recorded as seen: the next check tries again (the rest of the renewal may
    // not have been written yet).
    spdlog::warn("TLS: certificate files changed but don't make a context, serving the previous one: {}",
                 rebuilt.error().detail());
    return _context;
  }
  _stamps = std::move(stamps);
  _context = std::move(rebuilt).value();
  ++_reloads;
  spdlog::info("TLS: certificate files changed, new connections get them ({})", _settings.certificate_file);
  return _context;
}

std::uint64_t server_context_source::reloads() const {
  std::lock_guard lock(_mutex);
  return _reloads;
}

}  // namespace magnetar::tls
