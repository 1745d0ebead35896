// consumer: a client's consumer attached to a subscription (broker side).
//
// Lives on the topic's shard, in its subscription; the connection keeps a pointer to
// find it by consumer id when FLOW, ACK and the like arrive, and posts those to the
// topic's shard. Holds the flow permits the client granted and the messages sent to it
// and not yet acknowledged (redelivered to the next consumer when it goes).
#pragma once

#include "broker/rate_meter.h"
#include "mledger/managed_ledger.h"
#include "mledger/position.h"
#include "proto/pulsar_api.pb.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace magnetar::broker {

class connection;
class subscription;
class topic;

class consumer {
 public:
  consumer(std::shared_ptr<connection> conn, std::shared_ptr<topic> owner, std::uint64_t id, std::string name,
           int priority_level);

  std::uint64_t id() const { return _id; }
  const std::string& name() const { return _name; }
  int priority_level() const { return _priority_level; }
  const std::shared_ptr<topic>& owner() const { return _topic; }
  const std::shared_ptr<connection>& conn() const { return _conn; }
  // The subscription it is attached to; null once it left (or was closed with it).
  subscription* sub() const { return _subscription; }
  void attach(subscription* s) { _subscription = s; }

  // Topic shard from here on.
  std::int64_t permits() const { return _permits; }
  void add_permits(std::uint32_t permits) { _permits += permits; }

  // Sends one entry as MESSAGE frames' worth of messages (a batch counts as its size
  // against the permits) and remembers it as unacknowledged.
  void send_entry(const mledger::entry& e, int messages, std::uint32_t redelivery_count);
  // Forgets acknowledged entries: one, or every one up to `upto`.
  void acked(mledger::position p);
  void acked_upto(mledger::position upto);
  // Unacknowledged entries sent to this consumer, by position, with their message count.
  const std::map<mledger::position, int>& unacked() const { return _unacked; }
  std::map<mledger::position, int> take_unacked();
  std::uint64_t unacked_messages() const { return _unacked_messages; }

  void send_active_change(bool active);
  // Tells the client the broker closed this consumer (it subscribes again).
  void send_close();
  void send_reached_end_of_topic();

  rate_meter& meter() { return _meter; }
  const rate_meter& meter() const { return _meter; }
  rate_meter& redeliveries() { return _redeliveries; }
  const rate_meter& redeliveries() const { return _redeliveries; }
  // Read on the connection's shard too (a re-created producer or consumer replaces a
  // closed one with the same id).
  bool closed() const { return _closed.load(std::memory_order_acquire); }
  void mark_closed() { _closed.store(true, std::memory_order_release); }

 private:
  const std::shared_ptr<connection> _conn;
  const std::shared_ptr<topic> _topic;
  const std::uint64_t _id;
  const std::string _name;
  const int _priority_level;
  subscription* _subscription = nullptr;
  std::int64_t _permits = 0;
  std::map<mledger::position, int> _unacked;
  std::uint64_t _unacked_messages = 0;
  rate_meter _meter;
  rate_meter _redeliveries;
  std::atomic<bool> _closed{false};
};

}  // namespace magnetar::broker
