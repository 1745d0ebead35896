// message_id: where a message is stored on its topic, as the broker reports it in send
// receipts and deliveries: (ledger id, entry id, partition, batch index).
//
// A received id also names the topic (or partition) it came from, so that a consumer of
// several topics routes its ack; the name takes no part in comparisons or serialize().
// Ids of one topic (or partition) are totally ordered by (ledger, entry, batch index),
// which is the order the broker stores and delivers them. earliest() sorts before every
// stored message and latest() after; they are what readers start from. serialize() gives
// bytes in the protocol's MessageIdData form, which upstream Pulsar clients read too.
// A plain value type; thread-safe to copy.
#pragma once

#include "base/result.h"

#include <compare>
#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace magnetar {

namespace client_detail {
struct message_id_access;
}

class message_id {
 public:
  // earliest()
  message_id() = default;
  message_id(std::int64_t ledger_id, std::int64_t entry_id, std::int32_t partition = -1, std::int32_t batch_index = -1,
             std::int32_t batch_size = 0)
      : _ledger_id(ledger_id),
        _entry_id(entry_id),
        _partition(partition),
        _batch_index(batch_index),
        _batch_size(batch_size) {}

  // Before the first message of a topic (-1:-1), and after the last (max:max).
  static message_id earliest();
  static message_id latest();

  std::int64_t ledger_id() const { return _ledger_id; }
  std::int64_t entry_id() const { return _entry_id; }
  // -1 unless the message is on a partition of a partitioned topic.
  std::int32_t partition() const { return _partition; }
  // -1 unless the message came in a batch; then its index within the entry.
  std::int32_t batch_index() const { return _batch_index; }
  // The number of messages in that batch, 0 when unknown or not batched.
  std::int32_t batch_size() const { return _batch_size; }
  bool is_batched() const { return _batch_index >= 0; }
  // The topic or partition ("...-partition-<i>") of a received message; empty otherwise.
  const std::string& topic_name() const;
  // Names the topic, e.g. of an id built by hand for a multi-topic consumer's seek or ack.
  void set_topic_name(std::string topic);

  // The id of the entry this message is in (the batch index dropped).
  message_id entry() const { return {_ledger_id, _entry_id, _partition}; }

  // The protocol's MessageIdData bytes, and back. deserialize fails with
  // client_errc::invalid_argument on bytes that don't parse or lack ledger and entry.
  std::string serialize() const;
  static result<message_id> deserialize(std::string_view bytes);

  // "ledger:entry:partition:batch_index", as upstream prints ids.
  std::string to_string() const;

  // Storage order: ledger, entry, then batch index (a non-batched id sorts before the
  // messages of a batch in the same entry, as -1 < 0). The partition only breaks ties,
  // so ids of different partitions don't compare equal.
  friend std::strong_ordering operator<=>(const message_id& a, const message_id& b) {
    if (auto c = a._ledger_id <=> b._ledger_id; c != 0) return c;
    if (auto c = a._entry_id <=> b._entry_id; c != 0) return c;
    if (auto c = a._batch_index <=> b._batch_index; c != 0) return c;
    return a._partition <=> b._partition;
  }
  friend bool operator==(const message_id& a, const message_id& b) { return (a <=> b) == 0; }

 private:
  std::int64_t _ledger_id = -1;
  std::int64_t _entry_id = -1;
  std::int32_t _partition = -1;
  std::int32_t _batch_index = -1;
  std::int32_t _batch_size = 0;
  // Shared: every message of a topic names the same string, so ids stay cheap to copy.
  std::shared_ptr<const std::string> _topic;
  friend struct client_detail::message_id_access;
};

std::ostream& operator<<(std::ostream& out, const message_id& id);

}  // namespace magnetar
