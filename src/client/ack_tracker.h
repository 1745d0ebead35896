// Acknowledgement bookkeeping of a consumer, kept apart from I/O so it can be tested:
//
// - batch_ack_tracker: messages of a batched entry are acked one by one, but the broker
//   is told only once all of them are (no batch-index acks yet), as upstream does when
//   batch-index acknowledgement is off.
// - ack_grouping: acks wait up to ack_group_time and go to the broker together, one
//   ACK command with many ids for individual acks and one for the highest cumulative
//   ack (upstream's ackGroupTime / maxAcknowledgmentGroupSize).
//
// Not thread-safe: owned by one consumer and used under its lock.
#pragma once

#include "magnetar/message_id.h"

#include <cstddef>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace magnetar::client_detail {

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
  // Drops what is known (reconnect, seek, redelivery).
  void clear() { _entries.clear(); }
  std::size_t tracked_entries() const { return _entries.size(); }

 private:
  // Per entry: the batch's messages not acked yet.
  std::map<message_id, std::vector<bool>> _entries;
  std::vector<bool>& entry_of(const message_id& id);
};

class ack_grouping {
 public:
  explicit ack_grouping(std::size_t max_individual = 1000) : _max_individual(max_individual) {}

  // Entry ids (batch index dropped by the caller). True when the group is full and
  // should be flushed now.
  bool add_individual(const message_id& entry);
  void add_cumulative(const message_id& entry);

  // Already covered by an ack waiting in the group.
  bool is_pending(const message_id& entry) const;
  bool empty() const { return _individual.empty() && !_cumulative; }

  struct group {
    std::vector<message_id> individual;  // in id order, those above the cumulative ack only
    std::optional<message_id> cumulative;
  };
  // What to send now; the grouping is left empty.
  group take();
  void clear();

 private:
  std::size_t _max_individual;
  std::set<message_id> _individual;
  std::optional<message_id> _cumulative;
};

}  // namespace magnetar::client_detail
