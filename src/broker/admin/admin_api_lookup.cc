// admin_api: HTTP lookup (/lookup/v2/topic/...), what a client given an http:// service
// URL asks before it connects: the broker that serves the topic, as upstream's LookupData.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

// Upstream's LookupData. Upstream leaves out what is not configured, except
// brokerUrlSsl, which older clients require (and the C++ client requires it or
// brokerUrlTls).
json lookup_data(const lookup_urls& urls) {
  json answer{
      {"brokerUrl", urls.broker_url}, {"brokerUrlSsl", ""}, {"httpUrl", urls.http_url}, {"nativeUrl", urls.broker_url}};
  if (!urls.broker_url_tls.empty()) answer["brokerUrlTls"] = urls.broker_url_tls;
  if (!urls.http_url_tls.empty()) answer["httpUrlTls"] = urls.http_url_tls;
  return answer;
}

}  // namespace

lookup_urls admin_api::own_urls() const {
  const auto port = _web_port.load(), tls_port = _web_port_tls.load();
  return {.broker_url = _urls.broker_url,
          .broker_url_tls = _urls.broker_url_tls,
          .http_url = port == 0 ? "" : fmt::format("http://{}:{}", _urls.advertised_address, port),
          .http_url_tls = tls_port == 0 ? "" : fmt::format("https://{}:{}", _urls.advertised_address, tls_port)};
}

std::string admin_api::own_broker_id() const {
  const auto port = _web_port.load();
  return fmt::format("{}:{}", _urls.advertised_address, port != 0 ? port : _web_port_tls.load());
}

// In a cluster: the owner's URLs, or a 307 to the broker that will place the bundle
// (upstream's redirect, with authoritative set as its LOOKUP does).
awaitable<http_response> admin_api::cluster_lookup(const incoming_request& request, const wire::topic_name& topic) {
  auto target = co_await _urls.ownership->lookup(topic, request.query_flag("authoritative"));
  if (!target) co_return error_to_response(target.error());
  if (target.value().redirect) {
    const auto& web_url =
        request.secure && !target.value().http_url_tls.empty() ? target.value().http_url_tls : target.value().http_url;
    auto moved = error_response(307, fmt::format("Topic {} is placed by {}", topic.full(), web_url));
    moved.location = fmt::format("{}/lookup/v2/topic/{}/{}/{}/{}?authoritative={}", web_url, request.param("domain"),
                                 request.param("tenant"), request.param("namespace"), request.param("topic"),
                                 target.value().authoritative);
    co_return moved;
  }
  auto urls = lookup_urls_for(target.value().listeners, request.query_value("listenerName").value_or(""),
                              target.value().urls());
  if (!urls) co_return error_to_response(urls.error());
  co_return json_response(200, dump(lookup_data(urls.value())));
}

awaitable<http_response> admin_api::lookup_topic(incoming_request request) {
  const auto& domain = request.param("domain");
  if (domain != "persistent" && domain != "non-persistent") {
    co_return error_response(412, fmt::format("Invalid topic domain '{}'", domain));
  }
  auto topic = wire::topic_name::parse(fmt::format("{}://{}/{}/{}", domain, request.param("tenant"),
                                                   request.param("namespace"), request.param("topic")));
  if (!topic) co_return error_to_response(topic.error());
  const auto own = own_urls();
  if (_topics == nullptr || (own.broker_url.empty() && own.broker_url_tls.empty()) ||
      (own.http_url.empty() && own.http_url_tls.empty())) {
    co_return detail::not_ready();
  }
  if (topic.value().is_persistent() && !_urls.allow_auto_topic_creation) {
    // Without auto-creation, a lookup of a topic that isn't there is answered 404 (a
    // partitioned topic's base name is there when its metadata is).
    auto partitions = co_await _resources.partitioned_partitions(topic.value());
    if (!partitions) co_return error_to_response(partitions.error());
    auto names = co_await _topics->list_topics(topic.value().namespace_name());
    if (!names) co_return error_to_response(names.error());
    const bool found = partitions.value() > 0 || std::find(names.value().begin(), names.value().end(),
                                                           topic.value().full()) != names.value().end();
    if (!found) co_return error_response(404, fmt::format("Topic not found {}", topic.value().full()));
  }
  if (_urls.ownership != nullptr) co_return co_await cluster_lookup(request, topic.value());
  auto urls = lookup_urls_for(_urls.listeners, request.query_value("listenerName").value_or(""), own);
  if (!urls) co_return error_to_response(urls.error());
  co_return json_response(200, dump(lookup_data(urls.value())));
}

}  // namespace magnetar::broker::admin
