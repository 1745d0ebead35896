#include "magnetar/errc.h"

#include <string>

namespace magnetar {

namespace {

class client_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return category_name(client_errc{}).data(); }
  std::string message(int value) const override { return std::string(describe(static_cast<client_errc>(value))); }
};

}  // namespace

const std::error_category& client_category() noexcept {
  static const client_error_category category;
  return category;
}

std::string_view describe(client_errc e) {
  switch (e) {
    case client_errc::ok: return "success";
    case client_errc::invalid_argument: return "invalid argument";
    case client_errc::invalid_service_url: return "invalid service url";
    case client_errc::invalid_topic_name: return "invalid topic name";
    case client_errc::connect_error: return "connect error";
    case client_errc::connection_closed: return "connection closed";
    case client_errc::timeout: return "timed out";
    case client_errc::lookup_error: return "lookup error";
    case client_errc::too_many_redirects: return "too many lookup redirects";
    case client_errc::already_closed: return "already closed";
    case client_errc::not_connected: return "not connected";
    case client_errc::producer_queue_is_full: return "producer queue is full";
    case client_errc::message_too_big: return "message too big";
    case client_errc::producer_busy: return "producer busy";
    case client_errc::producer_fenced: return "producer fenced";
    case client_errc::consumer_busy: return "consumer busy";
    case client_errc::topic_not_found: return "topic not found";
    case client_errc::subscription_not_found: return "subscription not found";
    case client_errc::consumer_not_found: return "consumer not found";
    case client_errc::topic_terminated: return "topic terminated";
    case client_errc::not_allowed: return "not allowed";
    case client_errc::service_not_ready: return "service not ready";
    case client_errc::authentication_error: return "authentication error";
    case client_errc::authorization_error: return "authorization error";
    case client_errc::persistence_error: return "persistence error";
    case client_errc::metadata_error: return "metadata error";
    case client_errc::too_many_requests: return "too many requests";
    case client_errc::checksum_error: return "checksum error";
    case client_errc::unsupported_version: return "unsupported version";
    case client_errc::incompatible_schema: return "incompatible schema";
    case client_errc::broker_error: return "broker error";
    case client_errc::protocol_error: return "protocol error";
    case client_errc::not_supported: return "not supported";
    case client_errc::corrupt_message: return "corrupt message";
    case client_errc::interrupted: return "interrupted";
  }
  return "unknown client error";
}

}  // namespace magnetar
