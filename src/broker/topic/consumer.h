// consumer: a client's consumer attached to a subscription (broker side).
//
// Lives on the topic's shard, in its subscription; the connection keeps a pointer to
// find it by consumer id when FLOW, ACK and the like arrive, and posts those to the
// topic's shard. Holds the flow permits the client granted and the messages sent to it
// and not yet acknowledged (redelivered to the next consumer when it goes).
#pragma once

#include "broker/api/client_ids.h"
#include "broker/topic/rate_meter.h"
#include "mledger/managed_ledger.h"
#include "mledger/position.h"
#include "proto/pulsar_api.pb.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace magnetar::broker {

class client_channel;
class subscription;
class served_topic;

// An entry sent to a consumer and not acknowledged yet.
struct pending_entry {
  int messages = 1;
  // Key_Shared: the entry's sticky key hash (0 for the other types).
  std::uint16_t key_hash = 0;
};

class consumer {
 public:
  consumer(std::shared_ptr<client_channel> conn, std::shared_ptr<served_topic> owner, consumer_id id, std::string name,
           int priority_level);

  consumer_id id() const { return _id; }
  const std::string& name() const { return _name; }
  int priority_level() const { return _priority_level; }
  const std::shared_ptr<served_topic>& owner() const { return _topic; }
  const std::shared_ptr<client_channel>& conn() const { return _conn; }
  // The subscription it is attached to; null once it left (or was closed with it).
  subscription* sub() const { return _subscription; }
  void attach(subscription* s) { _subscription = s; }
  // The key-value pairs the client attached to it (SUBSCRIBE's metadata), for stats.
  // Set before the consumer is shared.
  const std::map<std::string, std::string>& metadata() const { return _metadata; }
  void set_metadata(std::map<std::string, std::string> m) { _metadata = std::move(m); }

  // Topic shard from here on.
  std::int64_t permits() const { return _permits; }
  void add_permits(std::uint32_t permits) { _permits += permits; }

  // Sends one entry as a MESSAGE (a batch counts as its size against the permits) and
  // remembers it as unacknowledged. `ack_set`, when not empty, marks the messages of a
  // batch still unacknowledged (the client skips the others).
  void send_entry(const mledger::entry& e, pending_entry what, std::uint32_t redelivery_count,
                  const std::vector<std::int64_t>& ack_set);
  // A non-persistent topic's message: sent against the permits and never tracked, since
  // nothing is redelivered.
  void send_volatile(const wire::shared_bytes& data, int messages);
  // Forgets acknowledged entries: one (returning what it was, if this consumer had it),
  // or every one up to `upto`.
  std::optional<pending_entry> acked(mledger::position p);
  void acked_upto(mledger::position upto);
  // Unacknowledged entries sent to this consumer, by position.
  const std::map<mledger::position, pending_entry>& unacked() const { return _unacked; }
  bool has_unacked(mledger::position p) const { return _unacked.contains(p); }
  std::map<mledger::position, pending_entry> take_unacked();
  // Takes back the given entries only (those this consumer has).
  std::map<mledger::position, pending_entry> take_unacked(const std::vector<mledger::position>& which);
  std::uint64_t unacked_messages() const { return _unacked_messages; }
  // Key_Shared: unacknowledged entries per sticky key hash, counted when asked (when hashes
  // move between consumers, or entries expire): kept up to date instead, they cost every
  // dispatched entry a hash-map insert and its ack an erase.
  std::unordered_map<std::uint16_t, int> unacked_hashes() const;

  void send_active_change(bool active);
  // Tells the client the broker closed this consumer (it subscribes again).
  void send_close();
  // REACHED_END_OF_TOPIC, once: the topic is terminated and the subscription has
  // acknowledged every entry.
  void reached_end_of_topic();

  rate_meter& meter() { return _meter; }
  const rate_meter& meter() const { return _meter; }
  rate_meter& redeliveries() { return _redeliveries; }
  const rate_meter& redeliveries() const { return _redeliveries; }
  // Read on the connection's shard too (a re-created producer or consumer replaces a
  // closed one with the same id).
  bool closed() const { return _closed.load(std::memory_order_acquire); }
  void mark_closed() { _closed.store(true, std::memory_order_release); }

 private:
  const std::shared_ptr<client_channel> _conn;
  const std::shared_ptr<served_topic> _topic;
  std::map<std::string, std::string> _metadata;
  const consumer_id _id;
  const std::string _name;
  const int _priority_level;
  subscription* _subscription = nullptr;
  std::int64_t _permits = 0;
  void forget(const pending_entry& p);

  std::map<mledger::position, pending_entry> _unacked;
  std::uint64_t _unacked_messages = 0;
  rate_meter _meter;
  rate_meter _redeliveries;
  std::atomic<bool> _closed{false};
  bool _told_end_of_topic = false;
};

}  // namespace magnetar::broker
