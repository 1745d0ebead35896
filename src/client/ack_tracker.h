// Acknowledgement bookkeeping of a consumer, kept apart from I/O so it can be tested:
//
// - batch_ack_tracker: messages of a batched entry are acked one by one, but the broker
//   is told only once all of them are (no batch-index acks yet), as upstream does when
//   batch-index acknowledgement is off.
// - ack_grouping: acks wait up to ack_group_time and go to the broker together, one
//   ACK command with many ids for individual acks and one for the highest cumulative
//   ack (upstream's ackGroupTime / maxAcknowledgmentGroupSize).
//
// With batch-index acknowledgement on, a partly acked batch goes to the broker too, as
// its entry id and an ack set (encode_ack_set), so the acked messages of the batch are
// not delivered again.
//
// Not thread-safe: owned by one consumer and used under its lock.
#pragma once

#include "magnetar/message_id.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

namespace magnetar::client_detail {

// A batch's ack set as upstream puts it on the wire (MessageIdData.ack_set, Java's
// BitSet.toLongArray): bit i (of word i / 64, bit i % 64) set means message i is NOT
// acknowledged yet. Trailing zero words are left out, so a wholly acked batch is empty.
std::vector<std::int64_t> encode_ack_set(const std::vector<bool>& unacked);
// Whether a MESSAGE's ack set says message `index` of the batch was acked already. An
// empty ack set says nothing (every message is delivered).
template <class Words>
bool acked_in(const Words& ack_set, int index) {
  if (ack_set.empty() || index < 0) return false;
  const auto word = static_cast<std::size_t>(index) / 64;
  if (word >= static_cast<std::size_t>(ack_set.size())) return true;
  return ((static_cast<std::uint64_t>(ack_set[static_cast<int>(word)]) >> (index % 64)) & 1u) == 0;
}

class batch_ack_tracker {
 public:
  // An individual ack of a message of a batch. True when its entry is now wholly acked
  // (the caller acks the entry), or when the id is not batched or its batch size is
  // unknown (the entry is acked at once).
  bool ack_individual(const message_id& id);
  // A cumulative ack up to and including `id`. True when its entry is wholly acked;
  // false means the caller acks cumulatively only up to the previous entry. Entries
  // before it are forgotten either way.
  bool ack_cumulative(const message_id& id);
  // The ack set of `id`'s entry: the messages not acked yet (all of them when the entry
  // is not tracked).
  std::vector<std::int64_t> ack_set_of(const message_id& id) const;
  // Drops what is known (reconnect, seek, redelivery).
  void clear() { _entries.clear(); }
  std::size_t tracked_entries() const { return _entries.size(); }

 private:
  // Per entry: the batch's messages not acked yet, how many, and how many at its start
  // are acked (all before a cumulative ack): an ack costs the same at any batch size.
  struct batch {
    std::vector<bool> unacked;
    std::size_t left = 0;
    std::size_t acked_prefix = 0;
  };
  std::map<message_id, batch> _entries;
  batch& entry_of(const message_id& id);
  // Marks message `index` acked; true when none of the batch is left.
  static bool ack(batch& b, std::size_t index);
};

class ack_grouping {
 public:
  explicit ack_grouping(std::size_t max_individual = 1000) : _max_individual(max_individual) {}

  // Entry ids (batch index dropped by the caller). True when the group is full and
  // should be flushed now.
  bool add_individual(const message_id& entry);
  void add_cumulative(const message_id& entry);
  // Batch-index acks: part of the entry's batch is acked; `ack_set` is what is not. A
  // later partial ack of the same entry replaces it; a whole ack of the entry drops it.
  bool add_partial(const message_id& entry, std::vector<std::int64_t> ack_set);
  // A cumulative ack inside a batch: the entries before, and part of this one.
  void add_partial_cumulative(const message_id& entry, std::vector<std::int64_t> ack_set);

  // Already covered by an ack waiting in the group.
  bool is_pending(const message_id& entry) const;
  bool empty() const { return _individual.empty() && !_cumulative && _partial.empty(); }

  struct group {
    std::vector<message_id> individual;  // in id order, those above the cumulative ack only
    std::optional<message_id> cumulative;
    // Set with a cumulative ack inside a batch (batch-index acks): its ack set.
    std::vector<std::int64_t> cumulative_ack_set;
    // Batch-index acks of partly acked entries, in id order.
    std::vector<std::pair<message_id, std::vector<std::int64_t>>> partial;
  };
  // What to send now; the grouping is left empty.
  group take();
  void clear();

 private:
  std::size_t _max_individual;
  std::set<message_id> _individual;
  std::optional<message_id> _cumulative;
  std::vector<std::int64_t> _cumulative_ack_set;
  std::map<message_id, std::vector<std::int64_t>> _partial;
};

}  // namespace magnetar::client_detail
