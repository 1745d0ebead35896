// subscription: a named cursor on a topic with its consumers; a dispatcher (chosen by
// the subscription type, see dispatcher.h) sends the cursor's entries to them.
//
// The subscription keeps what every type shares: the consumer list, acknowledgements
// (individual, cumulative, and batch-index acks that leave part of a batch
// unacknowledged), redelivery counts, the unacknowledged-message limits, and the stats.
// Redelivery counts and partial batch acks are kept in memory (lost on restart, as
// upstream's in-memory redelivery tracker; a restart then redelivers a partly
// acknowledged batch whole, which is at-least-once).
//
// Owned by its topic (shared_ptr: the dispatcher's coroutines hold it too), on the
// topic's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "broker/api/topic_admin.h"
#include "broker/topic/dispatcher.h"
#include "broker/topic/rate_meter.h"
#include "io/asio.h"
#include "mledger/managed_cursor.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace magnetar::broker {

class consumer;
struct pending_entry;
class topic;

using subscription_type = proto::CommandSubscribe::SubType;

class subscription : public std::enable_shared_from_this<subscription> {
 public:
  subscription(topic& owner, std::string name, mledger::managed_cursor* cursor, subscription_type type);
  ~subscription();

  const std::string& name() const { return _name; }
  subscription_type type() const { return _type; }
  bool is_durable() const { return _cursor->is_durable(); }
  topic& owner() { return _topic; }
  mledger::managed_cursor& cursor() { return *_cursor; }
  const std::vector<std::shared_ptr<consumer>>& consumers() const { return _consumers; }

  // errc::consumer_busy when the type doesn't admit it (Exclusive taken, a Key_Shared
  // mode mismatch), errc::consumer_assign_error for clashing Key_Shared hash ranges.
  result<void> add_consumer(std::shared_ptr<consumer> c, const proto::CommandSubscribe& request);
  // Its unacknowledged entries go to the other consumers.
  void remove_consumer(const consumer& c);

  void flow(consumer& c, std::uint32_t permits);
  result<void> ack(consumer& c, const proto::CommandAck& ack);
  // Sends again what `c` has not acknowledged: the entries named, or all when none is
  // (single-active types always resend all, in order), counting a redelivery for each.
  void redeliver(consumer& c, const std::vector<mledger::position>& which);

  // Seek: the next entry delivered is `to` (or the first after it); consumers are
  // closed so that clients drop what they had queued and subscribe again.
  awaitable<result<void>> reset(mledger::position to);
  // Acknowledges `count` entries from the first unacknowledged one on (admin skip), or
  // everything (clear backlog).
  awaitable<result<void>> skip(std::uint64_t count);
  awaitable<result<void>> clear_backlog();
  // Acknowledges every entry up to `p` for the broker's own reasons (message TTL,
  // backlog-quota eviction): the mark-delete position moves there and the consumers stop
  // counting those entries as unacknowledged. Nothing when `p` is at or before the
  // mark-delete position already.
  result<void> expire_upto(mledger::position p);

  // On a terminated topic whose entries this subscription has all acknowledged: tells
  // each consumer REACHED_END_OF_TOPIC (once each), as upstream does when the topic
  // terminates, on an ack and when a consumer asks for more (FLOW).
  void tell_end_of_topic_if_drained();

  // Stops dispatching, closes its consumers (CLOSE_CONSUMER to their clients when
  // `notify`), and waits for a read in flight. Later calls do nothing.
  awaitable<void> close(bool notify);
  bool is_closing() const { return _closing; }

  subscription_stats stats() const;
  void roll(base::clock::time_point now);

  // For the dispatchers.
  dispatcher& dispatcher_of() { return *_dispatcher; }
  // Sends the entry to `c` with its redelivery count and partial batch ack.
  void send(consumer& c, const mledger::entry& e, pending_entry what);
  bool is_acked(mledger::position p) const;
  void count_redelivery(mledger::position p) { ++_redelivery_counts[p]; }
  // maxUnackedMessagesPerConsumer / PerSubscription reached (Shared, Key_Shared).
  bool over_unacked_limit(const consumer& c) const;
  bool over_unacked_limit() const;

 private:
  result<void> apply_ack(consumer& c, const proto::CommandAck& ack);
  result<void> ack_individual(consumer& c, const proto::MessageIdData& id);
  // Merges a batch-index ack into the cursor's state of the entry; true when it completes it.
  bool ack_batch_indexes(mledger::position p, const proto::MessageIdData& id);
  void forget_upto(mledger::position p);

  topic& _topic;
  const std::string _name;
  mledger::managed_cursor* _cursor;
  const subscription_type _type;
  std::unique_ptr<dispatcher> _dispatcher;
  std::vector<std::shared_ptr<consumer>> _consumers;
  bool _closing = false;
  std::unordered_map<mledger::position, std::uint32_t> _redelivery_counts;
  // What the subscription delivered, its consumers come and gone (msgOutCounter).
  rate_meter _out;
  rate_meter _redelivered;
};

}  // namespace magnetar::broker
