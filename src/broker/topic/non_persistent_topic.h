// non_persistent_topic: a non-persistent:// topic (upstream's NonPersistentTopic): what a
// producer publishes is receipted at once and handed, without being stored, to each
// subscription's consumer that has room for it (permits); where none has, the message is
// dropped for that subscription and counted (msgDropRate). No backlog, no redelivery:
// acks and REDELIVER change nothing, a seek succeeds without moving anything, and
// GET_LAST_MESSAGE_ID is refused as upstream refuses it. Every message id is entry 0:0
// (with the partition's index), as upstream's.
//
// Subscriptions by type: Exclusive (one consumer), Failover (the first by priority level,
// then name, receives), Shared (round robin over consumers with permits), Key_Shared (the
// key's owner by consistent hashing, or the ranges consumers name). Producers: names are
// unique, and an exclusive producer keeps others out as on a persistent topic (its epoch
// lives in memory; WaitForExclusive is refused like Exclusive rather than queued).
//
// Lives on one shard, like a persistent topic; owned by the topic_registry's map and by
// its producers and consumers. Not thread-safe: call it on its shard.
#pragma once

#include "base/clock.h"
#include "broker/api/broker_config.h"
#include "broker/api/topic_admin.h"
#include "broker/topic/key_shared_selector.h"
#include "broker/topic/rate_meter.h"
#include "broker/topic/served_topic.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

class client_channel;

class non_persistent_topic : public served_topic, public std::enable_shared_from_this<non_persistent_topic> {
 public:
  non_persistent_topic(wire::topic_name name, io::shard& shard, const broker_config& config, base::clock& clock);

  const wire::topic_name& name() const override { return _name; }
  io::shard& shard() override { return _shard; }
  bool is_terminated() const override { return false; }
  proto::MessageIdData message_id(mledger::position at) const override;

  // errc::producer_busy for a name in use or a Shared producer beside an exclusive one;
  // errc::producer_fenced for an exclusive producer that finds others.
  result<std::shared_ptr<producer>> add_producer(std::shared_ptr<client_channel> conn,
                                                 const proto::CommandProducer& request, std::string name);
  void publish(std::shared_ptr<producer> p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id, int messages,
               wire::shared_bytes entry, bool partial_chunk) override;
  void remove_producer(const producer& p) override;

  // errc::consumer_busy for a second consumer on an Exclusive subscription or one of
  // another type; errc::consumer_assign_error for Key_Shared ranges that clash.
  result<std::shared_ptr<consumer>> subscribe(std::shared_ptr<client_channel> conn,
                                              const proto::CommandSubscribe& request);
  void flow(consumer& c, std::uint32_t permits) override;
  result<void> ack(consumer& c, const proto::CommandAck& ack) override;
  void redeliver(consumer& c, const std::vector<mledger::position>& which) override;
  void remove_consumer(const consumer& c) override;
  // Removes the consumer's subscription; errc::precondition_failed when others are on
  // it, unless `force` (they are closed).
  awaitable<result<void>> unsubscribe(const consumer& c, bool force) override;
  awaitable<result<proto::MessageIdData>> last_message_id() override;
  awaitable<result<void>> seek(consumer& c, const proto::CommandSeek& command) override;

  // Producers, or subscriptions: what upstream lists for a pattern subscription.
  bool is_active() const { return !_producers.empty() || !_subscriptions.empty(); }
  topic_stats stats();
  // Unload: every producer and consumer is told to go (they come back through a lookup).
  void close();

 private:
  struct subscription_state {
    proto::CommandSubscribe::SubType type = proto::CommandSubscribe::Exclusive;
    std::vector<std::shared_ptr<consumer>> consumers;
    std::size_t next = 0;  // Shared: where the round robin goes on
    std::unique_ptr<key_shared_selector> selector;
    rate_meter dropped;
  };
  // The consumer that takes an entry of `key_hash` now, or null (the entry is dropped).
  consumer* receiver(subscription_state& s, std::uint16_t key_hash, int messages);

  const wire::topic_name _name;
  io::shard& _shard;
  const broker_config& _config;
  base::clock& _clock;
  std::vector<std::shared_ptr<producer>> _producers;
  std::map<std::string, subscription_state> _subscriptions;
  std::optional<std::uint64_t> _epoch;
  rate_meter _in;
  rate_meter _publish_dropped;
};

}  // namespace magnetar::broker
