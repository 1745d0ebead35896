#include "client/commands.h"

#include "base/version.h"

#include <fmt/format.h>

namespace magnetar::client_detail {

std::string client_version() { return fmt::format("magnetar-cpp-{}", base::version()); }

proto::MessageIdData to_proto(const message_id& id) {
  proto::MessageIdData d;
  d.set_ledgerid(static_cast<std::uint64_t>(id.ledger_id()));
  d.set_entryid(static_cast<std::uint64_t>(id.entry_id()));
  if (id.partition() >= 0) d.set_partition(id.partition());
  if (id.batch_index() >= 0) d.set_batch_index(id.batch_index());
  return d;
}

message_id from_proto(const proto::MessageIdData& id, std::int32_t partition) {
  return message_id(static_cast<std::int64_t>(id.ledgerid()), static_cast<std::int64_t>(id.entryid()),
                    id.has_partition() ? id.partition() : partition, id.batch_index(), id.batch_size());
}

namespace {
proto::BaseCommand typed(proto::BaseCommand::Type type) {
  proto::BaseCommand c;
  c.set_type(type);
  return c;
}
void add_metadata(google::protobuf::RepeatedPtrField<proto::KeyValue>& out,
                  const std::map<std::string, std::string>& values) {
  for (const auto& [k, v] : values) {
    auto* kv = out.Add();
    kv->set_key(k);
    kv->set_value(v);
  }
}
}  // namespace

proto::BaseCommand connect_command(const std::string& proxy_to_broker_url, std::string_view method,
                                   std::string_view data) {
  auto c = typed(proto::BaseCommand::CONNECT);
  auto& m = *c.mutable_connect();
  m.set_client_version(client_version());
  m.set_protocol_version(client_protocol_version);
  m.set_auth_method_name(std::string(method));
  if (!data.empty()) m.set_auth_data(std::string(data));
  if (!proxy_to_broker_url.empty()) m.set_proxy_to_broker_url(proxy_to_broker_url);
  m.mutable_feature_flags()->set_supports_auth_refresh(method != "none");
  // Scalable topics (magnetar::st): the broker answers SCALABLE_TOPIC_* only to clients
  // that say so, as upstream's.
  m.mutable_feature_flags()->set_supports_scalable_topics(true);
  return c;
}

proto::BaseCommand auth_response_command(std::string_view method, std::string_view data) {
  auto c = typed(proto::BaseCommand::AUTH_RESPONSE);
  auto& m = *c.mutable_authresponse();
  m.set_client_version(client_version());
  m.set_protocol_version(client_protocol_version);
  m.mutable_response()->set_auth_method_name(std::string(method));
  m.mutable_response()->set_auth_data(std::string(data));
  return c;
}

proto::BaseCommand ping_command() {
  auto c = typed(proto::BaseCommand::PING);
  c.mutable_ping();
  return c;
}

proto::BaseCommand pong_command() {
  auto c = typed(proto::BaseCommand::PONG);
  c.mutable_pong();
  return c;
}

proto::BaseCommand partitioned_metadata_command(const std::string& topic, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::PARTITIONED_METADATA);
  c.mutable_partitionmetadata()->set_topic(topic);
  c.mutable_partitionmetadata()->set_request_id(request_id);
  return c;
}

proto::BaseCommand get_topics_of_namespace_command(const std::string& namespace_name, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE);
  auto& m = *c.mutable_gettopicsofnamespace();
  m.set_request_id(request_id);
  m.set_namespace_(namespace_name);
  m.set_mode(proto::CommandGetTopicsOfNamespace::PERSISTENT);
  return c;
}

proto::BaseCommand lookup_command(const std::string& topic, std::uint64_t request_id, bool authoritative) {
  auto c = typed(proto::BaseCommand::LOOKUP);
  auto& m = *c.mutable_lookuptopic();
  m.set_topic(topic);
  m.set_request_id(request_id);
  m.set_authoritative(authoritative);
  return c;
}

proto::BaseCommand producer_command(const producer_request& r) {
  auto c = typed(proto::BaseCommand::PRODUCER);
  auto& m = *c.mutable_producer();
  m.set_topic(r.topic);
  m.set_producer_id(r.producer_id);
  m.set_request_id(r.request_id);
  if (!r.producer_name.empty()) m.set_producer_name(r.producer_name);
  m.set_user_provided_producer_name(r.user_provided_name);
  m.set_epoch(r.epoch);
  switch (r.access_mode) {
    case producer_access_mode::shared: m.set_producer_access_mode(proto::Shared); break;
    case producer_access_mode::exclusive: m.set_producer_access_mode(proto::Exclusive); break;
    case producer_access_mode::wait_for_exclusive: m.set_producer_access_mode(proto::WaitForExclusive); break;
    case producer_access_mode::exclusive_with_fencing: m.set_producer_access_mode(proto::ExclusiveWithFencing); break;
  }
  if (r.topic_epoch) m.set_topic_epoch(*r.topic_epoch);
  add_metadata(*m.mutable_metadata(), r.metadata);
  if (!r.initial_subscription_name.empty()) m.set_initial_subscription_name(r.initial_subscription_name);
  return c;
}

proto::BaseCommand close_producer_command(std::uint64_t producer_id, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::CLOSE_PRODUCER);
  c.mutable_close_producer()->set_producer_id(producer_id);
  c.mutable_close_producer()->set_request_id(request_id);
  return c;
}

proto::BaseCommand send_command(std::uint64_t producer_id, std::uint64_t sequence_id, int num_messages,
                                std::uint64_t highest_sequence_id) {
  auto c = typed(proto::BaseCommand::SEND);
  auto& m = *c.mutable_send();
  m.set_producer_id(producer_id);
  m.set_sequence_id(sequence_id);
  if (num_messages > 1) m.set_num_messages(num_messages);
  if (highest_sequence_id > sequence_id) m.set_highest_sequence_id(highest_sequence_id);
  return c;
}

proto::BaseCommand subscribe_command(const subscribe_request& r) {
  auto c = typed(proto::BaseCommand::SUBSCRIBE);
  auto& m = *c.mutable_subscribe();
  m.set_topic(r.topic);
  m.set_subscription(r.subscription);
  switch (r.type) {
    case subscription_type::exclusive: m.set_subtype(proto::CommandSubscribe::Exclusive); break;
    case subscription_type::shared: m.set_subtype(proto::CommandSubscribe::Shared); break;
    case subscription_type::failover: m.set_subtype(proto::CommandSubscribe::Failover); break;
    case subscription_type::key_shared: {
      m.set_subtype(proto::CommandSubscribe::Key_Shared);
      auto& meta = *m.mutable_keysharedmeta();
      // As upstream: ranges travel only in sticky mode; auto-split lets the broker choose.
      if (r.key_shared.mode == key_shared_mode::sticky) {
        meta.set_keysharedmode(proto::STICKY);
        for (const auto& range : r.key_shared.sticky_ranges) {
          auto* hr = meta.add_hashranges();
          hr->set_start(range.start);
          hr->set_end(range.end);
        }
      } else {
        meta.set_keysharedmode(proto::AUTO_SPLIT);
      }
      meta.set_allowoutoforderdelivery(r.key_shared.allow_out_of_order_delivery);
      break;
    }
  }
  m.set_consumer_id(r.consumer_id);
  m.set_request_id(r.request_id);
  m.set_consumer_name(r.consumer_name);
  m.set_priority_level(r.priority_level);
  m.set_durable(r.durable);
  if (!r.durable && r.start) *m.mutable_start_message_id() = to_proto(*r.start);
  m.set_initialposition(r.position == initial_position::earliest ? proto::CommandSubscribe::Earliest
                                                                 : proto::CommandSubscribe::Latest);
  add_metadata(*m.mutable_metadata(), r.metadata);
  return c;
}

proto::BaseCommand flow_command(std::uint64_t consumer_id, std::uint32_t permits) {
  auto c = typed(proto::BaseCommand::FLOW);
  c.mutable_flow()->set_consumer_id(consumer_id);
  c.mutable_flow()->set_messagepermits(permits);
  return c;
}

proto::BaseCommand ack_command(std::uint64_t consumer_id, proto::CommandAck::AckType type,
                               const std::vector<message_id>& ids) {
  auto c = typed(proto::BaseCommand::ACK);
  auto& m = *c.mutable_ack();
  m.set_consumer_id(consumer_id);
  m.set_ack_type(type);
  for (const auto& id : ids) {
    auto* d = m.add_message_id();
    d->set_ledgerid(static_cast<std::uint64_t>(id.ledger_id()));
    d->set_entryid(static_cast<std::uint64_t>(id.entry_id()));
  }
  return c;
}

proto::BaseCommand ack_command(std::uint64_t consumer_id, proto::CommandAck::AckType type,
                               const std::vector<entry_ack>& acks) {
  auto c = typed(proto::BaseCommand::ACK);
  auto& m = *c.mutable_ack();
  m.set_consumer_id(consumer_id);
  m.set_ack_type(type);
  for (const auto& a : acks) {
    auto* d = m.add_message_id();
    d->set_ledgerid(static_cast<std::uint64_t>(a.entry.ledger_id()));
    d->set_entryid(static_cast<std::uint64_t>(a.entry.entry_id()));
    for (auto word : a.ack_set) d->add_ack_set(word);
  }
  return c;
}

proto::BaseCommand unsubscribe_command(std::uint64_t consumer_id, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::UNSUBSCRIBE);
  c.mutable_unsubscribe()->set_consumer_id(consumer_id);
  c.mutable_unsubscribe()->set_request_id(request_id);
  return c;
}

proto::BaseCommand close_consumer_command(std::uint64_t consumer_id, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::CLOSE_CONSUMER);
  c.mutable_close_consumer()->set_consumer_id(consumer_id);
  c.mutable_close_consumer()->set_request_id(request_id);
  return c;
}

proto::BaseCommand redeliver_command(std::uint64_t consumer_id) {
  auto c = typed(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  c.mutable_redeliverunacknowledgedmessages()->set_consumer_id(consumer_id);
  return c;
}

proto::BaseCommand redeliver_command(std::uint64_t consumer_id, const std::vector<message_id>& entries) {
  auto c = redeliver_command(consumer_id);
  auto& m = *c.mutable_redeliverunacknowledgedmessages();
  for (const auto& id : entries) {
    auto* d = m.add_message_ids();
    d->set_ledgerid(static_cast<std::uint64_t>(id.ledger_id()));
    d->set_entryid(static_cast<std::uint64_t>(id.entry_id()));
    if (id.partition() >= 0) d->set_partition(id.partition());
  }
  return c;
}

proto::BaseCommand seek_command(std::uint64_t consumer_id, std::uint64_t request_id, const message_id& id) {
  auto c = typed(proto::BaseCommand::SEEK);
  c.mutable_seek()->set_consumer_id(consumer_id);
  c.mutable_seek()->set_request_id(request_id);
  *c.mutable_seek()->mutable_message_id() = to_proto(id);
  return c;
}

proto::BaseCommand seek_command(std::uint64_t consumer_id, std::uint64_t request_id, std::uint64_t publish_time_ms) {
  auto c = typed(proto::BaseCommand::SEEK);
  c.mutable_seek()->set_consumer_id(consumer_id);
  c.mutable_seek()->set_request_id(request_id);
  c.mutable_seek()->set_message_publish_time(publish_time_ms);
  return c;
}

proto::BaseCommand get_last_message_id_command(std::uint64_t consumer_id, std::uint64_t request_id) {
  auto c = typed(proto::BaseCommand::GET_LAST_MESSAGE_ID);
  c.mutable_getlastmessageid()->set_consumer_id(consumer_id);
  c.mutable_getlastmessageid()->set_request_id(request_id);
  return c;
}

std::optional<std::uint64_t> response_request_id(const proto::BaseCommand& c) {
  switch (c.type()) {
    case proto::BaseCommand::SUCCESS: return c.success().request_id();
    case proto::BaseCommand::ERROR: return c.error().request_id();
    case proto::BaseCommand::PRODUCER_SUCCESS: return c.producer_success().request_id();
    case proto::BaseCommand::PARTITIONED_METADATA_RESPONSE: return c.partitionmetadataresponse().request_id();
    case proto::BaseCommand::LOOKUP_RESPONSE: return c.lookuptopicresponse().request_id();
    case proto::BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE: return c.getlastmessageidresponse().request_id();
    case proto::BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE: return c.gettopicsofnamespaceresponse().request_id();
    case proto::BaseCommand::GET_SCHEMA_RESPONSE: return c.getschemaresponse().request_id();
    case proto::BaseCommand::GET_OR_CREATE_SCHEMA_RESPONSE: return c.getorcreateschemaresponse().request_id();
    case proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE: return c.scalabletopicsubscriberesponse().request_id();
    case proto::BaseCommand::ACK_RESPONSE:
      if (c.ackresponse().has_request_id()) return c.ackresponse().request_id();
      return std::nullopt;
    default: return std::nullopt;
  }
}

}  // namespace magnetar::client_detail
