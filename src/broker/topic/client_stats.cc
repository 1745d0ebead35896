#include "broker/topic/client_stats.h"

#include "broker/api/client_channel.h"
#include "broker/topic/consumer.h"
#include "broker/topic/producer.h"

namespace magnetar::broker {

publisher_stats publisher_stats_of(const producer& p) {
  publisher_stats ps;
  ps.producer_name = p.name();
  ps.producer_id = p.id().value();
  ps.address = p.conn()->remote_address();
  ps.connected_since = p.conn()->connected_since();
  ps.access_mode = proto::ProducerAccessMode_Name(p.access_mode());
  ps.client_version = p.conn()->client_version();
  ps.metadata = p.metadata();
  ps.msg_rate_in = p.meter().message_rate();
  ps.msg_throughput_in = p.meter().byte_rate();
  const auto messages = p.meter().messages();
  ps.average_msg_size = messages == 0 ? 0 : static_cast<double>(p.meter().bytes()) / static_cast<double>(messages);
  return ps;
}

topic_stats topic_stats_from(const rate_meter& in) {
  topic_stats out;
  out.msg_rate_in = in.message_rate();
  out.msg_throughput_in = in.byte_rate();
  out.msg_in_counter = in.messages();
  out.bytes_in_counter = in.bytes();
  out.average_msg_size = in.messages() == 0 ? 0 : static_cast<double>(in.bytes()) / static_cast<double>(in.messages());
  return out;
}

consumer_stats consumer_stats_of(const consumer& c) {
  consumer_stats cs;
  cs.consumer_name = c.name();
  cs.address = c.conn()->remote_address();
  cs.connected_since = c.conn()->connected_since();
  cs.client_version = c.conn()->client_version();
  cs.metadata = c.metadata();
  cs.msg_rate_out = c.meter().message_rate();
  cs.msg_throughput_out = c.meter().byte_rate();
  cs.msg_rate_redeliver = c.redeliveries().message_rate();
  cs.msg_out_counter = c.meter().messages();
  cs.bytes_out_counter = c.meter().bytes();
  cs.available_permits = c.permits();
  cs.unacked_messages = c.unacked_messages();
  cs.priority_level = c.priority_level();
  return cs;
}

std::map<std::string, std::string> key_values(const google::protobuf::RepeatedPtrField<proto::KeyValue>& pairs) {
  std::map<std::string, std::string> out;
  for (const auto& kv : pairs) out[kv.key()] = kv.value();
  return out;
}

}  // namespace magnetar::broker
