// st_commands: the scalable-topic commands the client sends (SCALABLE_TOPIC_LOOKUP,
// _CLOSE, _SUBSCRIBE), with every field upstream marks required set.
// Pure functions; thread-safe.
#pragma once

#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <string>

namespace magnetar::st::detail {

// Opens (or reopens, after a reconnect) a DAG watch session.
proto::BaseCommand scalable_lookup_command(std::uint64_t session_id, const std::string& topic, bool create_if_missing);
proto::BaseCommand scalable_close_command(std::uint64_t session_id);

struct scalable_subscribe_request {
  std::uint64_t request_id = 0;
  std::string topic;
  std::string subscription;
  // The controller's registration key: stable across reconnects.
  std::string consumer_name;
  // Tags the assignment pushes; new on every registration.
  std::uint64_t consumer_id = 0;
  proto::ScalableConsumerType type = proto::STREAM;
};
proto::BaseCommand scalable_subscribe_command(const scalable_subscribe_request& r);

// The topic the classic lookup finds a broker for: topic://t/n/x is looked up as its
// persistent://t/n/x twin (as upstream's C++ client: any broker serves the session);
// other spellings unchanged.
std::string lookup_name_of(const std::string& topic);

}  // namespace magnetar::st::detail
