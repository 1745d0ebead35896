// client_stats: what stats say of one producer or consumer, whatever kind of topic it is
// on (the parts its topic or subscription adds, such as unacked limits and hash ranges,
// are filled in by them), of what a topic's producers sent it, and the key-value metadata
// a client attaches to either.
// Call on the producer's or consumer's topic shard.
#pragma once

#include "broker/api/topic_admin.h"
#include "broker/topic/rate_meter.h"
#include "proto/pulsar_api.pb.h"

#include <map>
#include <string>

namespace magnetar::broker {

class consumer;
class producer;

publisher_stats publisher_stats_of(const producer& p);
// A topic's stats with its inbound rates and totals filled from its publish meter.
topic_stats topic_stats_from(const rate_meter& in);
consumer_stats consumer_stats_of(const consumer& c);

// PRODUCER's or SUBSCRIBE's metadata as a map (the last of a repeated key wins).
std::map<std::string, std::string> key_values(const google::protobuf::RepeatedPtrField<proto::KeyValue>& pairs);

}  // namespace magnetar::broker
