// admin_requests: what the launcher asks a broker's admin REST API besides the stats
// sampling (topic_stats_sampler.h): the path of a topic's stats, and creating the
// namespace of the workloads' topics. The requests go through the shared blocking client
// (http/client.h).
//
//   auto admin = http::url::parse("http://127.0.0.1:8080");
//   auto created = ensure_namespace(admin.value(), "persistent://public/iot/t-0");
//
// Thread-safety: each call is independent; callable from any thread (ensure_namespace
// blocks for up to 10 s).
#pragma once

#include "base/result.h"
#include "http/url.h"

#include <string>
#include <string_view>

namespace magnetar::perf {

// The admin path of a topic's stats: "persistent://t/ns/x" ->
// "/admin/v2/persistent/t/ns/x/stats". invalid_argument for a name that is not
// "<domain>://<tenant>/<namespace>/<local name>".
result<std::string> topic_stats_path(std::string_view topic);

// "persistent://t/ns/x" -> {"t", "ns"}.
struct topic_namespace {
  std::string tenant;
  std::string name;
};
result<topic_namespace> namespace_of(std::string_view topic);

// Creates the namespace of `topic` (PUT /admin/v2/namespaces/<tenant>/<namespace>) so that
// the workloads' topics can be created on first use: true when it was created, false when
// it existed (409). Any other answer fails with the status and the broker's message.
result<bool> ensure_namespace(const http::url& admin, std::string_view topic);

}  // namespace magnetar::perf
