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
// key_shared_dispatcher refines who may receive an entry (see its header).
#pragma once

#include "broker/consumer.h"
#include "broker/dispatcher.h"

#include <cstdint>
#include <map>
#include <unordered_map>

namespace magnetar::broker {

class shared_dispatcher : public dispatcher {
 public:
  explicit shared_dispatcher(subscription& sub) : dispatcher(sub) {}

  result<void> consumer_added(consumer& c, const proto::CommandSubscribe& request) override;
  void consumer_removed(consumer& c) override;
  void entry_acked(mledger::position p, consumer* owner, std::uint16_t key_hash) override;
  void redeliver(consumer& c, const std::vector<mledger::position>& which) override;
  void cursor_moved() override;

  std::size_t replay_size() const { return _replay.size(); }

 protected:
  read_plan plan_read() override;
  void deliver(std::vector<mledger::entry> entries, bool replayed) override;

  // Whether `c` may be sent more now.
  bool can_receive(const consumer& c) const;
  // Who gets the entry; null keeps it in the replay set for later.
  virtual consumer* choose(std::uint16_t key_hash, bool replayed);
  // The entry's key hash, where the type orders by key.
  virtual std::uint16_t key_hash_of(const proto::MessageMetadata&) const { return 0; }
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

  std::map<mledger::position, std::uint16_t> _replay;
  std::unordered_map<std::uint16_t, int> _replay_hashes;
  std::size_t _next = 0;
};

}  // namespace magnetar::broker
