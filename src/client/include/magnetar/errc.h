// Errors of the client SDK: what a client, producer, consumer or reader call can fail with.
//
// Every fallible public call returns magnetar::result<T> (base/result.h); its error()
// carries one of these codes (category "magnetar.client") plus a detail naming what
// failed, e.g. the broker's own message. Errors a broker reports (ServerError) map to the
// value of the same meaning; `broker_error` covers the rest. Values are stable.
// Thread-safety: plain values and pure functions.
#pragma once

#include <string_view>
#include <system_error>

namespace magnetar {

enum class client_errc {
  ok = 0,
  invalid_argument,     // a call or config value outside its documented domain
  invalid_service_url,  // not pulsar://host:port[,host:port...]
  invalid_topic_name,
  connect_error,           // TCP connect or the CONNECT handshake failed
  connection_closed,       // the connection dropped while the request was in flight
  timeout,                 // an operation, send or receive timeout passed
  lookup_error,            // the broker could not say where the topic is served
  too_many_redirects,      // lookups kept redirecting
  already_closed,          // the client, producer or consumer was closed
  not_connected,           // the producer or consumer is reconnecting
  producer_queue_is_full,  // max_pending_messages reached and block_if_queue_full off
  message_too_big,         // larger than the broker's max message size
  producer_busy,           // the name is in use, or an exclusive producer exists
  producer_fenced,         // a newer exclusive producer took the topic over
  consumer_busy,           // the exclusive subscription has a consumer already
  topic_not_found,
  subscription_not_found,
  consumer_not_found,
  topic_terminated,
  not_allowed,        // the broker refuses the operation by its settings
  service_not_ready,  // the topic is moving or loading; retried internally
  authentication_error,
  authorization_error,
  persistence_error,  // the broker's storage failed the write
  metadata_error,
  too_many_requests,
  checksum_error,  // the broker saw a corrupted message
  unsupported_version,
  incompatible_schema,
  broker_error,     // any other broker error; the detail says which
  protocol_error,   // the broker sent something this client can't use
  not_supported,    // valid, but not implemented by this SDK yet
  corrupt_message,  // a received entry failed decompression or batch parsing
  interrupted,      // a blocking call was cut short by close()
};

constexpr std::string_view category_name(client_errc) { return "magnetar.client"; }
std::string_view describe(client_errc e);

// The category of client_errc's codes: one object for the process (errc.cc), so codes
// compare equal wherever they were made. Defined here rather than by base's template
// (base/error_category.h) so that this header needs only the standard library.
const std::error_category& client_category() noexcept;

inline std::error_code make_error_code(client_errc e) { return {static_cast<int>(e), client_category()}; }

}  // namespace magnetar

template <>
struct std::is_error_code_enum<magnetar::client_errc> : std::true_type {};
