#include "client/st/st_commands.h"

namespace magnetar::st::detail {

proto::BaseCommand scalable_lookup_command(std::uint64_t session_id, const std::string& topic, bool create_if_missing) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::SCALABLE_TOPIC_LOOKUP);
  auto& m = *c.mutable_scalabletopiclookup();
  m.set_session_id(session_id);
  m.set_topic(topic);
  m.set_create_if_missing(create_if_missing);
  return c;
}

proto::BaseCommand scalable_close_command(std::uint64_t session_id) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::SCALABLE_TOPIC_CLOSE);
  c.mutable_scalabletopicclose()->set_session_id(session_id);
  return c;
}

proto::BaseCommand scalable_subscribe_command(const scalable_subscribe_request& r) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE);
  auto& m = *c.mutable_scalabletopicsubscribe();
  m.set_request_id(r.request_id);
  m.set_topic(r.topic);
  m.set_subscription(r.subscription);
  m.set_consumer_name(r.consumer_name);
  m.set_consumer_id(r.consumer_id);
  m.set_consumer_type(r.type);
  return c;
}

std::string lookup_name_of(const std::string& topic) {
  constexpr std::string_view scalable = "topic://";
  if (topic.starts_with(scalable)) return "persistent://" + topic.substr(scalable.size());
  return topic;
}

}  // namespace magnetar::st::detail
