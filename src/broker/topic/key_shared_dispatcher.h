// key_shared_dispatcher: Key_Shared subscriptions, where each key hash belongs to one
// consumer (key_shared_selector) and a key's messages arrive in order.
//
// Order holds while consumers come and go, by two rules (unless the subscription allows
// out-of-order delivery):
// - Draining hashes (upstream's newer rule, PIP-379): when a hash moves to another
//   consumer (one joined and took it), the new owner gets nothing of that hash until the
//   old owner has acknowledged, or given back, everything of it that it holds.
// - Replay first: an entry waiting to go again (given back by a leaving consumer, or
//   read while its consumer had no permits) blocks the later entries of its hash.
// Entries whose consumer can't take them wait in the replay set; reading ahead stops
// once that set holds keySharedLookAheadMsgInReplayThresholdPerSubscription entries, so
// a stalled consumer holds back only that much.
#pragma once

#include "broker/topic/key_shared_selector.h"
#include "broker/topic/shared_dispatcher.h"

#include <memory>
#include <unordered_map>
#include <unordered_set>

namespace magnetar::broker {

class key_shared_dispatcher final : public shared_dispatcher {
 public:
  explicit key_shared_dispatcher(subscription& sub) : shared_dispatcher(sub) {}

  result<void> consumer_added(consumer& c, const proto::CommandSubscribe& request) override;
  void consumer_removed(consumer& c) override;
  void entry_acked(mledger::position p, consumer* owner, std::uint16_t key_hash) override;
  void cursor_moved() override;
  void acked_upto(mledger::position p) override;
  std::vector<std::pair<int, int>> key_hash_ranges(const consumer& c) const override;

  std::size_t draining_hashes() const { return _draining.size(); }
  std::size_t draining_hash_count() const override { return _draining.size(); }

 protected:
  consumer* choose(std::uint16_t key_hash, bool replayed) override;
  std::uint16_t key_hash_of(const dispatch_fields& fields) const override;
  std::vector<mledger::position> pick_replay(std::size_t max) override;
  std::size_t new_entries_allowed(std::size_t max) const override;
  void delivery_starts() override { _blocked_now.clear(); }
  void taken_back(consumer& c, const std::map<mledger::position, pending_entry>& entries) override;

 private:
  struct drain {
    consumer* owner;
    int remaining;  // entries of the hash the owner still holds
  };

  // The consumer that may receive `key_hash` now, or null.
  consumer* receiver_of(std::uint16_t key_hash) const;
  void update_draining();
  void release(consumer& owner, std::uint16_t key_hash, int entries);

  std::unique_ptr<key_shared_selector> _selector;
  proto::KeySharedMode _mode = proto::AUTO_SPLIT;
  bool _allow_out_of_order = false;
  std::unordered_map<std::uint16_t, drain> _draining;
  // Hashes with an entry held back during the current delivery.
  std::unordered_set<std::uint16_t> _blocked_now;
};

}  // namespace magnetar::broker
