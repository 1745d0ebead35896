// shared_dispatcher: Shared subscriptions, where every consumer receives and any entry
// may go to any of them.
//
// Entries go round robin to the consumers that have permits and are under their
// unacknowledged-message limit (maxUnackedMessagesPerConsumer), highest priority level
// (lowest number) first: a lower level receives only while every consumer above it is
// full, as upstream. Dispatch pauses while the subscription as a whole is over
// maxUnackedMessagesPerSubscription.
//
// Entries that must go again (those a leaving consumer had not acknowledged, those a
// consumer asks to have redelivered, and those read when nobody could take them) wait in
// the replay set, by position, and go before the cursor's next entries. The cursor never
// rewinds here: rewinding would resend what other consumers still hold.
//
// Delayed delivery (delayedDeliveryEnabled): an entry read before its deliver_at_time
// waits in the delayed_delivery_tracker; a timer on the topic's shard, ticking no faster
// than delayedDeliveryTickTimeMillis, moves due entries to the replay set, from where
// they go as any replayed entry (without a redelivery count; Key_Shared's order rules
// apply to them as to any replay entry). Exclusive and Failover never delay (upstream).
//
// key_shared_dispatcher refines who may receive an entry (see its header).
#pragma once

#include "broker/topic/consumer.h"
#include "broker/topic/delayed_delivery_tracker.h"
#include "broker/topic/dispatch_fields.h"
#include "broker/topic/dispatcher.h"
#include "io/timer.h"

#include <cstdint>
#include <map>
#include <unordered_map>

namespace magnetar::broker {

class shared_dispatcher : public dispatcher {
 public:
  explicit shared_dispatcher(subscription& sub);
  ~shared_dispatcher() override;

  result<void> consumer_added(consumer& c, const proto::CommandSubscribe& request) override;
  void consumer_removed(consumer& c) override;
  void entry_acked(mledger::position p, consumer* owner, std::uint16_t key_hash) override;
  void redeliver(consumer& c, const std::vector<mledger::position>& which) override;
  void cursor_moved() override;

  std::size_t replay_size() const { return _replay.size(); }
  std::size_t delayed_entries() const override { return _delayed.size(); }
  std::size_t replay_entries() const override { return _replay.size(); }

 protected:
  read_plan plan_read() override;
  void deliver(std::vector<mledger::entry> entries, bool replayed) override;
  void closing() override;

  // Whether `c` may be sent more now.
  bool can_receive(const consumer& c) const;
  // Who gets the entry; null keeps it in the replay set for later.
  virtual consumer* choose(std::uint16_t key_hash, bool replayed);
  // The entry's key hash, where the type orders by key.
  virtual std::uint16_t key_hash_of(const dispatch_fields&) const { return 0; }
  // Replay positions worth reading now, at most `max`, in order.
  virtual std::vector<mledger::position> pick_replay(std::size_t max);
  // Entries to read from the cursor, at most `max`.
  virtual std::size_t new_entries_allowed(std::size_t max) const { return max; }
  // Called before a delivery's entries are handed out.
  virtual void delivery_starts() {}
  // Entries `c` no longer holds (taken back for redelivery).
  virtual void taken_back(consumer& c, const std::map<mledger::position, pending_entry>& entries);

  void add_replay(mledger::position p, std::uint16_t key_hash);
  void remove_replay(mledger::position p);
  bool hash_in_replay(std::uint16_t key_hash) const { return _replay_hashes.contains(key_hash); }
  using replay_iterator = std::map<mledger::position, std::uint16_t>::iterator;
  // Walking the replay set in order, past (and dropping) positions acknowledged meanwhile.
  replay_iterator first_replay() { return skip_acked_replay(_replay.begin()); }
  replay_iterator next_replay(replay_iterator it) { return skip_acked_replay(std::next(it)); }
  replay_iterator replay_end() { return _replay.end(); }

 private:
  replay_iterator skip_acked_replay(replay_iterator it);
  consumer* next_round_robin();
  void give_back(consumer& c, std::map<mledger::position, pending_entry> entries);

  // Delayed delivery: true when the entry waits (or waits already) for its deliver time.
  bool hold_delayed(mledger::position p, const dispatch_fields& fields, std::uint16_t key_hash);
  void arm_delay_timer();
  awaitable<void> wait_for_delayed(std::shared_ptr<io::gate::pass> held);
  // Moves the entries due now to the replay set and dispatches them.
  void release_due();
  // deliver_at_time is the producer's wall-clock time, so due times are compared with it.
  std::int64_t wall_now_ms() const;

  std::map<mledger::position, std::uint16_t> _replay;
  std::unordered_map<std::uint16_t, int> _replay_hashes;
  std::size_t _next = 0;

  delayed_delivery_tracker _delayed;
  // Made on first use, on the topic's shard (a timer lives where it waits).
  std::unique_ptr<io::timer> _delay_timer;
  bool _delay_waiting = false;        // wait_for_delayed runs
  std::int64_t _delay_wakeup_ms = 0;  // what it waits for
};

}  // namespace magnetar::broker
