// subscription: a named cursor on a topic with its consumers, and the dispatcher that
// sends the cursor's entries to them.
//
// This dispatcher serves the single-active-consumer types, Exclusive and Failover: one
// consumer receives at a time. Exclusive refuses a second consumer; Failover orders
// its consumers by priority level, then name, makes the first active (for a partition,
// the one at partition index modulo the count of top-priority consumers, as upstream),
// tells each one whether it is active (ACTIVE_CONSUMER_CHANGE), and on a change rewinds
// the cursor so the new active consumer gets everything still unacknowledged.
//
// The dispatch cycle: while the active consumer has permits and the cursor has entries,
// read up to dispatcherMaxReadBatchSize entries and send them; else wait for entries
// (or permits). A batch entry costs its message count in permits, as upstream.
// Redelivery counts are kept per entry in memory (lost on restart, as upstream's
// in-memory tracker).
//
// Owned by its topic (shared_ptr: its background coroutines hold it too), on the topic's
// shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "broker/rate_meter.h"
#include "broker/topic_admin.h"
#include "io/asio.h"
#include "io/gate.h"
#include "mledger/managed_cursor.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace magnetar::broker {

class consumer;
class topic;

using subscription_type = proto::CommandSubscribe::SubType;

class subscription : public std::enable_shared_from_this<subscription> {
 public:
  subscription(topic& owner, std::string name, mledger::managed_cursor* cursor, subscription_type type);

  const std::string& name() const { return _name; }
  subscription_type type() const { return _type; }
  bool is_durable() const { return _cursor->is_durable(); }
  mledger::managed_cursor& cursor() { return *_cursor; }
  const std::vector<std::shared_ptr<consumer>>& consumers() const { return _consumers; }

  // errc::consumer_busy when the type doesn't admit it (Exclusive taken, another type).
  result<void> add_consumer(std::shared_ptr<consumer> c);
  // Its unacknowledged entries go to the next active consumer.
  void remove_consumer(const consumer& c);

  void flow(consumer& c, std::uint32_t permits);
  result<void> ack(consumer& c, const proto::CommandAck& ack);
  // Sends again what `c` has not acknowledged (all of it: single-active dispatch
  // rewinds), counting a redelivery for each entry.
  void redeliver_unacknowledged(consumer& c);

  // Seek: the next entry delivered is `to` (or the first after it); consumers are
  // closed so that clients drop what they had queued and subscribe again.
  awaitable<result<void>> reset(mledger::position to);
  // Acknowledges `count` entries from the first unacknowledged one on (admin skip), or
  // everything (clear backlog).
  awaitable<result<void>> skip(std::uint64_t count);
  awaitable<result<void>> clear_backlog();

  // Stops dispatching, closes its consumers (CLOSE_CONSUMER to their clients when
  // `notify`), and waits for a read in flight.
  awaitable<void> close(bool notify);
  bool is_closing() const { return _closing; }

  subscription_stats stats() const;
  void roll(base::clock::time_point now);

  // Acknowledges every entry up to `p` on the subscription's behalf (message TTL,
  // backlog-quota eviction): the cursor's mark-delete position moves there and the
  // consumers stop counting those entries as unacknowledged. Nothing when `p` is at or
  // before the mark-delete position already.
  result<void> expire_upto(mledger::position p);

 private:
  consumer* active() const { return _active; }
  void choose_active();
  void dispatch();
  awaitable<void> read_and_send(std::size_t max_entries, std::shared_ptr<io::gate::pass> held);
  awaitable<void> wait_for_entries(std::shared_ptr<io::gate::pass> held);
  void forget_redelivery_counts_upto(mledger::position p);

  topic& _topic;
  const std::string _name;
  mledger::managed_cursor* _cursor;
  const subscription_type _type;
  std::vector<std::shared_ptr<consumer>> _consumers;
  consumer* _active = nullptr;
  bool _reading = false;
  bool _waiting = false;
  bool _closing = false;
  io::gate _reads{"subscription reads"};
  std::unordered_map<mledger::position, std::uint32_t> _redelivery_counts;
  // What the subscription delivered, its consumers come and gone (msgOutCounter).
  rate_meter _out;
  rate_meter _redelivered;
};

}  // namespace magnetar::broker
