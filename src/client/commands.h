// commands: the BaseCommands the client sends, built in one place so that every field
// upstream marks required is always set.
// Pure functions; thread-safe.
#pragma once

#include "magnetar/config.h"
#include "magnetar/message_id.h"
#include "proto/pulsar_api.pb.h"
#include "wire/frame.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::client_detail {

using wire::encode_command;
using wire::encode_payload_command;

// The protocol version this client speaks (upstream's newest, v21).
inline constexpr int client_protocol_version = 21;
// "magnetar-cpp-<version>"
std::string client_version();

proto::MessageIdData to_proto(const message_id& id);
message_id from_proto(const proto::MessageIdData& id, std::int32_t partition = -1);

// `method` and `data`: the credentials ("none" and empty without); a client with
// credentials says it answers the broker's AUTH_CHALLENGE.
proto::BaseCommand connect_command(const std::string& proxy_to_broker_url, std::string_view method = "none",
                                   std::string_view data = {});
// The answer to an AUTH_CHALLENGE: the credentials again, freshly read.
proto::BaseCommand auth_response_command(std::string_view method, std::string_view data);
proto::BaseCommand ping_command();
proto::BaseCommand pong_command();
proto::BaseCommand partitioned_metadata_command(const std::string& topic, std::uint64_t request_id);
proto::BaseCommand lookup_command(const std::string& topic, std::uint64_t request_id, bool authoritative);
// Persistent topics only (upstream's default regex subscription mode).
proto::BaseCommand get_topics_of_namespace_command(const std::string& namespace_name, std::uint64_t request_id);

struct producer_request {
  std::string topic;
  std::uint64_t producer_id = 0;
  std::uint64_t request_id = 0;
  std::string producer_name;  // empty: the broker names it
  bool user_provided_name = false;
  std::uint64_t epoch = 0;
  producer_access_mode access_mode = producer_access_mode::shared;
  std::optional<std::uint64_t> topic_epoch;
  std::map<std::string, std::string> metadata;
  // Dead letter producers: a subscription the broker makes on the topic. Empty: none.
  std::string initial_subscription_name;
};
proto::BaseCommand producer_command(const producer_request& r);
proto::BaseCommand close_producer_command(std::uint64_t producer_id, std::uint64_t request_id);
proto::BaseCommand send_command(std::uint64_t producer_id, std::uint64_t sequence_id, int num_messages,
                                std::uint64_t highest_sequence_id);

struct subscribe_request {
  std::string topic;
  std::string subscription;
  subscription_type type = subscription_type::exclusive;
  std::uint64_t consumer_id = 0;
  std::uint64_t request_id = 0;
  std::string consumer_name;
  int priority_level = 0;
  bool durable = true;
  std::optional<message_id> start;  // non-durable only
  initial_position position = initial_position::latest;
  std::map<std::string, std::string> metadata;
  key_shared_policy key_shared;  // Key_Shared only
};
proto::BaseCommand subscribe_command(const subscribe_request& r);
proto::BaseCommand flow_command(std::uint64_t consumer_id, std::uint32_t permits);
proto::BaseCommand ack_command(std::uint64_t consumer_id, proto::CommandAck::AckType type,
                               const std::vector<message_id>& ids);
// An entry id with the batch indexes still unacknowledged (see encode_ack_set); an empty
// set acknowledges the whole entry.
struct entry_ack {
  message_id entry;
  std::vector<std::int64_t> ack_set;
};
proto::BaseCommand ack_command(std::uint64_t consumer_id, proto::CommandAck::AckType type,
                               const std::vector<entry_ack>& acks);
proto::BaseCommand unsubscribe_command(std::uint64_t consumer_id, std::uint64_t request_id);
proto::BaseCommand close_consumer_command(std::uint64_t consumer_id, std::uint64_t request_id);
proto::BaseCommand redeliver_command(std::uint64_t consumer_id);
// Only these entries (Shared and Key_Shared; single-active brokers send everything again).
proto::BaseCommand redeliver_command(std::uint64_t consumer_id, const std::vector<message_id>& entries);
proto::BaseCommand seek_command(std::uint64_t consumer_id, std::uint64_t request_id, const message_id& id);
proto::BaseCommand seek_command(std::uint64_t consumer_id, std::uint64_t request_id, std::uint64_t publish_time_ms);
proto::BaseCommand get_last_message_id_command(std::uint64_t consumer_id, std::uint64_t request_id);

// The request id of a response command, when it answers a request.
std::optional<std::uint64_t> response_request_id(const proto::BaseCommand& c);

}  // namespace magnetar::client_detail
