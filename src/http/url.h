// url: where an HTTP server listens ("http[s]://host[:port][/prefix]"), and the
// percent-encoding of one path segment, for the blocking client in client.h.
//
//   auto admin = http::url::parse("http://[::1]:8080/pulsar");  // host "::1", prefix "/pulsar"
//   auto path = "/admin/v2/persistent/public/default/" + http::encode_path_segment(name);
//
// Thread-safety: plain values and pure functions.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::http {

struct url {
  std::string host;  // a name or an address, without IPv6 brackets
  std::uint16_t port = 80;
  std::string prefix;  // path in front of every request target, "" or "/x", no trailing '/'
  bool tls = false;    // https://

  // http:// or https://. An http URL without a port gets `default_port` (the admin
  // CLI's is Pulsar's 8080), an https one 443. Errors
  // are invalid_argument with "bad <what> '<text>': <why>", `what` naming the URL for
  // the user ("admin URL").
  static result<url> parse(std::string_view text, std::uint16_t default_port = 80, std::string_view what = "URL");

  // "http[s]://host:port/prefix", brackets around an IPv6 host, the port always written.
  std::string to_string() const;
};

// `text` with everything but RFC 3986's unreserved characters percent-encoded, so that
// it stays one path segment (a subscription may be named "a/b?c").
std::string encode_path_segment(std::string_view text);

}  // namespace magnetar::http
