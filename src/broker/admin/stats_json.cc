#include "broker/admin/stats_json.h"

#include "broker/api/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace magnetar::broker::admin {

using nlohmann::json;

json to_json(const publisher_stats& s) {
  json out{
      {"producerName", s.producer_name},        {"producerId", s.producer_id},          {"address", s.address},
      {"connectedSince", s.connected_since},    {"accessMode", s.access_mode},          {"msgRateIn", s.msg_rate_in},
      {"msgThroughputIn", s.msg_throughput_in}, {"averageMsgSize", s.average_msg_size}, {"metadata", s.metadata}};
  // Upstream leaves it out when the client sent none.
  if (!s.client_version.empty()) out["clientVersion"] = s.client_version;
  return out;
}

json to_json(const consumer_stats& s) {
  json out{{"consumerName", s.consumer_name},
           {"address", s.address},
           {"connectedSince", s.connected_since},
           {"msgRateOut", s.msg_rate_out},
           {"msgThroughputOut", s.msg_throughput_out},
           {"msgRateRedeliver", s.msg_rate_redeliver},
           {"msgOutCounter", s.msg_out_counter},
           {"bytesOutCounter", s.bytes_out_counter},
           {"availablePermits", s.available_permits},
           {"unackedMessages", s.unacked_messages},
           {"priorityLevel", s.priority_level},
           {"blockedConsumerOnUnackedMsgs", s.blocked_consumer_on_unacked_msgs},
           {"metadata", s.metadata}};
  if (!s.client_version.empty()) out["clientVersion"] = s.client_version;
  if (!s.key_hash_ranges.empty()) {
    // Upstream gives both: "[start, end]" strings and, newer, [start, end] pairs.
    json text = json::array();
    json pairs = json::array();
    for (const auto& [start, end] : s.key_hash_ranges) {
      text.push_back(fmt::format("[{}, {}]", start, end));
      pairs.push_back(json::array({start, end}));
    }
    out["keyHashRanges"] = std::move(text);
    out["keyHashRangeArrays"] = std::move(pairs);
  }
  return out;
}

json to_json(const subscription_stats& s) {
  json consumers = json::array();
  for (const auto& c : s.consumers) consumers.push_back(to_json(c));
  json out{{"type", s.type},
           {"isDurable", s.is_durable},
           {"msgBacklog", s.msg_backlog},
           {"msgRateOut", s.msg_rate_out},
           {"msgThroughputOut", s.msg_throughput_out},
           {"msgRateRedeliver", s.msg_rate_redeliver},
           {"msgOutCounter", s.msg_out_counter},
           {"bytesOutCounter", s.bytes_out_counter},
           {"unackedMessages", s.unacked_messages},
           {"msgDelayed", s.msg_delayed},
           {"msgInReplay", s.msg_in_replay},
           {"consumers", std::move(consumers)},
           {"isReplicated", false}};
  // Pulsar leaves activeConsumerName out (null) for Shared and Key_Shared.
  if (!s.active_consumer_name.empty()) out["activeConsumerName"] = s.active_consumer_name;
  if (s.msg_drop_rate) out["msgDropRate"] = *s.msg_drop_rate;
  if (s.type == "Key_Shared") out["drainingHashesCount"] = s.draining_hashes_count;
  return out;
}

json to_json(const replicator_stats& s) {
  return json{{"msgRateIn", s.msg_rate_in},
              {"msgThroughputIn", s.msg_throughput_in},
              {"msgRateOut", s.msg_rate_out},
              {"msgThroughputOut", s.msg_throughput_out},
              {"msgInCount", s.msg_in_counter},
              {"msgOutCount", s.msg_out_counter},
              {"msgRateExpired", 0},
              {"replicationBacklog", s.replication_backlog},
              {"connected", s.connected},
              {"replicationDelayInSeconds", s.replication_delay_seconds}};
}

json to_json(const topic_stats& s) {
  json publishers = json::array();
  for (const auto& p : s.publishers) publishers.push_back(to_json(p));
  json subscriptions = json::object();
  for (const auto& [name, sub] : s.subscriptions) subscriptions[name] = to_json(sub);
  json replication = json::object();
  for (const auto& [cluster, r] : s.replication) replication[cluster] = to_json(r);
  json out{{"msgRateIn", s.msg_rate_in},
           {"msgRateOut", s.msg_rate_out},
           {"msgThroughputIn", s.msg_throughput_in},
           {"msgThroughputOut", s.msg_throughput_out},
           {"msgInCounter", s.msg_in_counter},
           {"bytesInCounter", s.bytes_in_counter},
           {"msgOutCounter", s.msg_out_counter},
           {"bytesOutCounter", s.bytes_out_counter},
           {"averageMsgSize", s.average_msg_size},
           {"storageSize", s.storage_size},
           {"backlogSize", s.backlog_size},
           {"offloadedStorageSize", 0},
           {"publishers", std::move(publishers)},
           {"subscriptions", std::move(subscriptions)},
           {"replication", std::move(replication)},
           {"deduplicationStatus", s.deduplication_status}};
  if (s.msg_drop_rate) out["msgDropRate"] = *s.msg_drop_rate;
  return out;
}

json to_json(const ledger_internal_stats& s) {
  return json{{"ledgerId", s.ledger_id},  {"entries", s.entries}, {"size", s.size},
              {"timestamp", s.timestamp}, {"offloaded", false},   {"underReplicated", false}};
}

json to_json(const cursor_internal_stats& s) {
  return json{{"markDeletePosition", s.mark_delete_position},
              {"readPosition", s.read_position},
              {"individuallyDeletedMessages", s.individually_deleted_message_ranges},
              {"messagesConsumedCounter", s.messages_consumed_counter},
              {"numberOfEntriesSinceFirstNotAckedMessage", s.number_of_entries_since_first_not_acked_message},
              {"totalNonContiguousDeletedMessagesRange", s.total_non_contiguous_deleted_messages_range},
              {"isDurable", s.is_durable},
              {"state", "Open"}};
}

json to_json(const topic_internal_stats& s) {
  json ledgers = json::array();
  for (const auto& l : s.ledgers) ledgers.push_back(to_json(l));
  json cursors = json::object();
  for (const auto& [name, c] : s.cursors) cursors[name] = to_json(c);
  return json{{"entriesAddedCounter", s.entries_added_counter},
              {"numberOfEntries", s.number_of_entries},
              {"totalSize", s.total_size},
              {"currentLedgerEntries", s.current_ledger_entries},
              {"currentLedgerSize", s.current_ledger_size},
              {"lastConfirmedEntry", s.last_confirmed_entry},
              {"state", s.state},
              {"ledgers", std::move(ledgers)},
              {"cursors", std::move(cursors)}};
}

namespace {

void add_into(subscription_stats& into, const subscription_stats& s) {
  if (into.type.empty()) into.type = s.type;
  into.is_durable = into.is_durable && s.is_durable;
  into.msg_backlog += s.msg_backlog;
  into.msg_rate_out += s.msg_rate_out;
  into.msg_throughput_out += s.msg_throughput_out;
  into.msg_rate_redeliver += s.msg_rate_redeliver;
  into.msg_out_counter += s.msg_out_counter;
  into.bytes_out_counter += s.bytes_out_counter;
  into.unacked_messages += s.unacked_messages;
  if (into.active_consumer_name.empty()) into.active_consumer_name = s.active_consumer_name;
  into.consumers.insert(into.consumers.end(), s.consumers.begin(), s.consumers.end());
}

void add_into(replicator_stats& into, const replicator_stats& s) {
  into.msg_rate_in += s.msg_rate_in;
  into.msg_throughput_in += s.msg_throughput_in;
  into.msg_rate_out += s.msg_rate_out;
  into.msg_throughput_out += s.msg_throughput_out;
  into.msg_in_counter += s.msg_in_counter;
  into.msg_out_counter += s.msg_out_counter;
  into.replication_backlog += s.replication_backlog;
  into.connected = into.connected || s.connected;
  into.replication_delay_seconds = std::max(into.replication_delay_seconds, s.replication_delay_seconds);
}

void add_into(topic_stats& into, const topic_stats& s) {
  into.msg_rate_in += s.msg_rate_in;
  into.msg_rate_out += s.msg_rate_out;
  into.msg_throughput_in += s.msg_throughput_in;
  into.msg_throughput_out += s.msg_throughput_out;
  into.msg_in_counter += s.msg_in_counter;
  into.bytes_in_counter += s.bytes_in_counter;
  into.msg_out_counter += s.msg_out_counter;
  into.bytes_out_counter += s.bytes_out_counter;
  into.storage_size += s.storage_size;
  into.backlog_size += s.backlog_size;
  into.deduplication_status = s.deduplication_status;
  into.publishers.insert(into.publishers.end(), s.publishers.begin(), s.publishers.end());
  for (const auto& [name, sub] : s.subscriptions) add_into(into.subscriptions[name], sub);
  for (const auto& [cluster, r] : s.replication) add_into(into.replication[cluster], r);
}

}  // namespace

json partitioned_to_json(int partitions, const std::map<std::string, topic_stats>& by_partition, bool per_partition) {
  topic_stats total;
  for (const auto& [name, s] : by_partition) add_into(total, s);
  total.average_msg_size = total.msg_rate_in > 0 ? total.msg_throughput_in / total.msg_rate_in : 0;
  auto out = to_json(total);
  out["metadata"] = json{{"partitions", partitions}};
  json each = json::object();
  if (per_partition) {
    for (const auto& [name, s] : by_partition) each[name] = to_json(s);
  }
  out["partitions"] = std::move(each);
  return out;
}

void merge_stats_json(json& total, const json& partition) {
  if (total.is_null()) {
    total = partition;
    return;
  }
  if (total.is_number() && partition.is_number()) {
    if (total.is_number_float() || partition.is_number_float()) {
      total = total.get<double>() + partition.get<double>();
    } else {
      total = total.get<std::int64_t>() + partition.get<std::int64_t>();
    }
  } else if (total.is_array() && partition.is_array()) {
    for (const auto& item : partition) {
      if (!item.is_string() || std::find(total.begin(), total.end(), item) == total.end()) total.push_back(item);
    }
  } else if (total.is_object() && partition.is_object()) {
    for (const auto& [key, value] : partition.items()) merge_stats_json(total[key], value);
  }
}

std::string dump(const json& value) { return value.dump(-1, ' ', false, json::error_handler_t::replace); }

result<json> parse_json(std::string_view body) {
  try {
    return json::parse(body);
  } catch (const json::parse_error& e) {
    return fail(errc::invalid_request, fmt::format("Invalid JSON body at byte {}: {}", e.byte, e.what()));
  }
}

namespace {

std::string trimmed_lower(std::string_view text) {
  auto begin = text.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  auto end = text.find_last_not_of(" \t\r\n");
  std::string out(text.substr(begin, end - begin + 1));
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

result<message_id_body> parse_message_id(std::string_view body, message_position otherwise) {
  auto word = trimmed_lower(body);
  if (word.empty()) return message_id_body{.position = otherwise};
  if (word == "latest" || word == "\"latest\"") return message_id_body{.position = message_position::latest()};
  if (word == "earliest" || word == "\"earliest\"") return message_id_body{.position = message_position::earliest()};
  MAGNETAR_TRY(parsed, parse_json(body));
  if (!parsed.is_object()) {
    return fail(errc::invalid_request,
                "Expected a message id: {\"ledgerId\": L, \"entryId\": E} or \"latest\"/\"earliest\"");
  }
  auto integer = [&](const char* name, std::int64_t fallback) -> result<std::int64_t> {
    auto it = parsed.find(name);
    if (it == parsed.end() || it->is_null()) return fallback;
    if (!it->is_number_integer()) return fail(errc::invalid_request, fmt::format("'{}' must be an integer", name));
    return it->get<std::int64_t>();
  };
  if (!parsed.contains("ledgerId") || !parsed.contains("entryId")) {
    return fail(errc::invalid_request, "A message id needs 'ledgerId' and 'entryId'");
  }
  MAGNETAR_TRY(ledger, integer("ledgerId", -1));
  MAGNETAR_TRY(entry, integer("entryId", -1));
  MAGNETAR_TRY(partition, integer("partitionIndex", -1));
  bool excluded = false;
  if (auto it = parsed.find("isExcluded"); it != parsed.end() && !it->is_null()) {
    if (!it->is_boolean()) return fail(errc::invalid_request, "'isExcluded' must be true or false");
    excluded = it->get<bool>();
  }
  message_position position{ledger, entry};
  if (excluded && entry >= 0 && entry < INT64_MAX) position.entry_id = entry + 1;
  return message_id_body{.position = position, .partition_index = static_cast<int>(partition)};
}

}  // namespace magnetar::broker::admin
