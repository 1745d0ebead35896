// admin_api: persistent topics, partitioned topics, stats and subscriptions.
#include "broker/admin/admin_api.h"
#include "broker/admin/admin_errors.h"
#include "broker/admin/stats_json.h"
#include "broker/api/errc.h"

#include <fmt/format.h>

#include <charconv>
#include <set>

namespace magnetar::broker::admin {

using nlohmann::json;

namespace {

http_response json_ok(const json& value) { return json_response(200, dump(value)); }

std::optional<std::int64_t> to_integer(std::string_view text) {
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// The number of partitions in a body: a JSON integer ("5").
std::optional<int> partitions_from(const std::string& body) {
  auto parsed = json::parse(body, nullptr, false);
  if (parsed.is_discarded() || !parsed.is_number_integer()) return std::nullopt;
  auto value = parsed.get<std::int64_t>();
  if (value > 1'000'000 || value < -1'000'000) return std::nullopt;
  return static_cast<int>(value);
}

}  // namespace

awaitable<http_response> admin_api::list_topics(incoming_request request) {
  if (_topics == nullptr) co_return detail::not_ready();
  auto ns = detail::namespace_from(request);
  auto exists = co_await _resources.namespace_exists(ns);
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto names = co_await _topics->list_topics(ns);
  if (!names) co_return error_to_response(names.error());
  co_return json_ok(names.value());
}

awaitable<http_response> admin_api::list_partitioned(incoming_request request) {
  auto ns = detail::namespace_from(request);
  auto exists = co_await _resources.namespace_exists(ns);
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto names = co_await _resources.list_partitioned(ns);
  if (!names) co_return error_to_response(names.error());
  co_return json_ok(names.value());
}

awaitable<http_response> admin_api::create_topic(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto exists = co_await _resources.namespace_exists(topic.value().namespace_name());
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto partitions = co_await _resources.partitioned_partitions(topic.value());
  if (!partitions) co_return error_to_response(partitions.error());
  if (partitions.value() > 0 && topic.value().partition() < 0)
    co_return error_response(409, "This topic already exists");
  auto created = co_await _topics->create_topic(topic.value());
  if (!created && created.error() == errc::conflict) co_return error_response(409, "This topic already exists");
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::delete_topic(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto deleted = co_await _topics->delete_topic(topic.value(), request.query_flag("force"));
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

awaitable<http_response> admin_api::create_partitioned(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (topic.value().partition() >= 0 || topic.value().local_name().find("-partition-") != std::string::npos) {
    co_return error_response(412, "A partitioned topic's name may not contain '-partition-'");
  }
  auto partitions = partitions_from(request.body);
  if (!partitions) co_return error_response(400, "The body must be the number of partitions, e.g. 4");
  if (*partitions < 1) co_return error_response(406, "Number of partitions should be more than 0");
  auto created = co_await _resources.create_partitioned(topic.value(), *partitions);
  if (!created) co_return error_to_response(created.error());
  co_return no_content();
}

awaitable<http_response> admin_api::update_partitioned(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto partitions = partitions_from(request.body);
  if (!partitions) co_return error_response(400, "The body must be the number of partitions, e.g. 4");
  auto current = co_await _resources.partitioned_partitions(topic.value());
  if (!current) co_return error_to_response(current.error());
  if (current.value() == 0) co_return error_response(404, "Partitioned topic does not exist");
  if (*partitions <= current.value()) {
    co_return error_response(
        422, fmt::format("Desired partitions {} must be greater than the current {}", *partitions, current.value()));
  }
  auto updated = co_await _resources.update_partitions(topic.value(), current.value(), *partitions);
  if (!updated) co_return error_to_response(updated.error());
  co_return no_content();
}

awaitable<http_response> admin_api::get_partitions(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto exists = co_await _resources.namespace_exists(topic.value().namespace_name());
  if (!exists) co_return error_to_response(exists.error());
  if (!exists.value()) co_return error_response(404, "Namespace does not exist");
  auto partitions = co_await _resources.partitioned_partitions(topic.value());
  if (!partitions) co_return error_to_response(partitions.error());
  co_return json_ok(json{{"partitions", partitions.value()}});
}

awaitable<http_response> admin_api::delete_partitioned(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto partitions = co_await _resources.partitioned_partitions(topic.value());
  if (!partitions) co_return error_to_response(partitions.error());
  if (partitions.value() == 0) co_return error_response(404, "Partitioned topic does not exist");
  if (_topics != nullptr) {
    const bool force = request.query_flag("force");
    for (int i = 0; i < partitions.value(); ++i) {
      auto deleted = co_await _topics->delete_topic(topic.value().partition_of(i), force);
      if (!deleted && deleted.error() != errc::topic_not_found) co_return error_to_response(deleted.error());
    }
  }
  auto deleted = co_await _resources.delete_partitioned(topic.value());
  if (!deleted) co_return error_to_response(deleted.error());
  co_return no_content();
}

awaitable<http_response> admin_api::stats(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto stats = co_await _topics->stats(topic.value());
  if (!stats) co_return error_to_response(stats.error());
  co_return json_ok(to_json(stats.value()));
}

awaitable<http_response> admin_api::partitioned_stats(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto partitions = co_await _resources.partitioned_partitions(topic.value());
  if (!partitions) co_return error_to_response(partitions.error());
  if (partitions.value() == 0) co_return error_response(404, "Partitioned Topic not found");
  if (_urls.cluster != nullptr)
    co_return co_await cluster_partitioned_stats(request, topic.value(), partitions.value());
  std::map<std::string, topic_stats> by_partition;
  for (int i = 0; i < partitions.value(); ++i) {
    auto partition = topic.value().partition_of(i);
    auto stats = co_await _topics->stats(partition);
    // A partition nobody has used yet has no topic: it counts as empty.
    if (!stats && stats.error() == errc::topic_not_found) continue;
    if (!stats) co_return error_to_response(stats.error());
    by_partition.emplace(partition.full(), std::move(stats).value());
  }
  co_return json_ok(partitioned_to_json(partitions.value(), by_partition, request.query_flag("perPartition", true)));
}

awaitable<http_response> admin_api::internal_stats(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto stats = co_await _topics->internal_stats(topic.value());
  if (!stats) co_return error_to_response(stats.error());
  co_return json_ok(to_json(stats.value()));
}

// Answers the last message's id, as upstream's MessageIdImpl serializes it.
awaitable<http_response> admin_api::terminate(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto last = co_await _topics->terminate_topic(topic.value());
  if (!last) co_return error_to_response(last.error());
  const json id{{"ledgerId", last.value().ledger_id},
                {"entryId", last.value().entry_id},
                {"partitionIndex", topic.value().partition()}};
  co_return json_ok(id);
}

// Every partition of a partitioned topic, as upstream's unload of its base name does.
awaitable<http_response> admin_api::unload_topic(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  target_operation operation = [this](wire::topic_name each) { return _topics->unload_topic(std::move(each)); };
  co_return co_await for_each_target(topic.value(), std::move(operation));
}

awaitable<http_response> admin_api::list_subscriptions(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  if (_topics == nullptr) co_return detail::not_ready();
  auto all = co_await targets(topic.value());
  if (!all) co_return error_to_response(all.error());
  const bool partitioned = all.value().size() > 1 || !(all.value().front() == topic.value());
  std::set<std::string> names;
  for (const auto& each : all.value()) {
    auto subscriptions = co_await _topics->list_subscriptions(each);
    if (!subscriptions && partitioned && subscriptions.error() == errc::topic_not_found) continue;
    if (!subscriptions) co_return error_to_response(subscriptions.error());
    names.insert(subscriptions.value().begin(), subscriptions.value().end());
  }
  co_return json_ok(json(names));
}

awaitable<http_response> admin_api::create_subscription(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto start = parse_message_id(request.body, message_position::latest());
  if (!start) co_return error_to_response(start.error());
  auto subscription = request.param("subscription");
  auto position = start.value().position;
  target_operation operation = [this, subscription, position](wire::topic_name each) {
    return _topics->create_subscription(std::move(each), subscription, position);
  };
  co_return co_await for_each_target(topic.value(), std::move(operation));
}

awaitable<http_response> admin_api::delete_subscription(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto subscription = request.param("subscription");
  const bool force = request.query_flag("force");
  target_operation operation = [this, subscription, force](wire::topic_name each) {
    return _topics->delete_subscription(std::move(each), subscription, force);
  };
  co_return co_await for_each_target(topic.value(), std::move(operation));
}

awaitable<http_response> admin_api::reset_cursor_to_time(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto timestamp = to_integer(request.param("timestamp"));
  if (!timestamp) co_return error_response(400, fmt::format("Bad timestamp '{}'", request.param("timestamp")));
  auto subscription = request.param("subscription");
  auto at = *timestamp;
  target_operation operation = [this, subscription, at](wire::topic_name each) {
    return _topics->reset_cursor_to_time(std::move(each), subscription, at);
  };
  co_return co_await for_each_target(topic.value(), std::move(operation));
}

awaitable<http_response> admin_api::reset_cursor(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto to = parse_message_id(request.body, message_position::earliest());
  if (!to) co_return error_to_response(to.error());
  if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) {
    co_return error_response(400, "The body must be a message id: {\"ledgerId\": L, \"entryId\": E}");
  }
  auto subscription = request.param("subscription");
  auto position = to.value().position;
  auto target = topic.value();
  if (to.value().partition_index >= 0 && target.partition() < 0) {
    auto partitions = co_await _resources.partitioned_partitions(target);
    if (!partitions) co_return error_to_response(partitions.error());
    if (to.value().partition_index >= partitions.value()) {
      co_return error_response(412, fmt::format("Partition {} does not exist", to.value().partition_index));
    }
    target = target.partition_of(to.value().partition_index);
  }
  target_operation operation = [this, subscription, position](wire::topic_name each) {
    return _topics->reset_cursor(std::move(each), subscription, position);
  };
  co_return co_await for_each_target(std::move(target), std::move(operation));
}

awaitable<http_response> admin_api::skip(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto count = to_integer(request.param("count"));
  if (!count || *count < 0)
    co_return error_response(400, fmt::format("Bad number of messages '{}'", request.param("count")));
  if (_topics == nullptr) co_return detail::not_ready();
  auto partitions = co_await _resources.partitioned_partitions(topic.value());
  if (!partitions) co_return error_to_response(partitions.error());
  if (partitions.value() > 0 && topic.value().partition() < 0) {
    co_return error_response(405, "Skip messages on a partitioned topic is not allowed");
  }
  auto skipped =
      co_await _topics->skip_messages(topic.value(), request.param("subscription"), static_cast<std::uint64_t>(*count));
  if (!skipped) co_return error_to_response(skipped.error());
  co_return no_content();
}

awaitable<http_response> admin_api::skip_all(incoming_request request) {
  auto topic = detail::topic_from(request);
  if (!topic) co_return error_to_response(topic.error());
  auto subscription = request.param("subscription");
  target_operation operation = [this, subscription](wire::topic_name each) {
    return _topics->clear_backlog(std::move(each), subscription);
  };
  co_return co_await for_each_target(topic.value(), std::move(operation));
}

}  // namespace magnetar::broker::admin
