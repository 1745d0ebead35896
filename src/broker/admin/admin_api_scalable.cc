// /admin/v2/scalable/{tenant}/{namespace}[/{topic}[/split/{id} | /merge/{id1}/{id2}]]:
// scalable topics, as upstream's ScalableTopics resource. Validation failures answer
// the documented 404/412 (upstream's code answers 500 for them) with upstream's messages.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/scalable_admin.h"

#include <fmt/format.h>

#include <charconv>

namespace magnetar::broker::admin {

namespace {

result<wire::topic_name> scalable_topic_from(const incoming_request& request) {
  return wire::topic_name::parse(
      fmt::format("topic://{}/{}/{}", request.param("tenant"), request.param("namespace"), request.param("topic")));
}

std::optional<std::uint64_t> number(const std::string& text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

scalable_admin* admin_api::scalable() const { return _topics == nullptr ? nullptr : _topics->scalable_topics(); }

awaitable<http_response> admin_api::list_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  const auto ns = request.param("tenant") + "/" + request.param("namespace");
  auto exists = co_await _resources.namespace_exists(ns);
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto names = co_await scalable()->list_scalable(ns);
  if (!names) co_return error_to_response(names.error());
  co_return json_response(200, dump(nlohmann::json(names.value())));
}

awaitable<http_response> admin_api::create_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  auto topic = scalable_topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  int segments = 1;
  if (auto n = request.query_value("numInitialSegments")) {
    auto parsed = number(*n);
    if (!parsed || *parsed > 65536) co_return error_response(412, "numInitialSegments must be >= 1");
    segments = static_cast<int>(*parsed);
  }
  std::map<std::string, std::string> properties;
  if (!request.body.empty()) {
    auto body = parse_json(request.body);
    if (!body || !body.value().is_object())
      co_return error_response(400, "The body must be a JSON object of properties");
    for (const auto& [key, value] : body.value().items()) {
      if (!value.is_string()) co_return error_response(400, "Property values are strings");
      properties[key] = value.get<std::string>();
    }
  }
  auto exists = co_await _resources.namespace_exists(topic.value().namespace_name());
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto created = co_await scalable()->create_scalable(topic.value(), segments, std::move(properties));
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::get_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  auto topic = scalable_topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto metadata = co_await scalable()->scalable_metadata(topic.value());
  if (!metadata) co_return error_to_response(metadata.error());
  co_return json_response(200, std::move(metadata).value());
}

awaitable<http_response> admin_api::delete_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  auto topic = scalable_topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto deleted = co_await scalable()->delete_scalable(topic.value());
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

awaitable<http_response> admin_api::split_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  auto topic = scalable_topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto id = number(request.param("segment"));
  if (!id) co_return error_response(400, "The segment id must be a number");
  auto split = co_await scalable()->split_segment(topic.value(), *id);
  if (!split) co_return error_to_response(split.error());
  co_return no_content();
}

awaitable<http_response> admin_api::merge_scalable(incoming_request request) {
  if (scalable() == nullptr) co_return error_response(503, "Scalable topic service not available");
  auto topic = scalable_topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto first = number(request.param("first"));
  auto second = number(request.param("second"));
  if (!first || !second) co_return error_response(400, "Segment ids must be numbers");
  auto merged = co_await scalable()->merge_segments(topic.value(), *first, *second);
  if (!merged) co_return error_to_response(merged.error());
  co_return no_content();
}

}  // namespace magnetar::broker::admin
