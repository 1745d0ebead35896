// st::message_id: where a message of a scalable topic is stored: the segment it is on,
// its id on that segment (a classic magnetar::message_id), and, on messages a stream
// consumer delivers, a position vector.
//
// The position vector maps every segment the consumer reads to the latest message it
// had delivered from that segment when this message was delivered (the message itself
// included). A cumulative ack of the message acknowledges every segment up to its entry,
// so one ack settles messages that came from several segments (see stream_consumer).
//
// Ordering and equality: segment id first, then the classic id; the position vector and
// the topic take no part. An empty id (default-constructed, falsy) sorts before every
// other. earliest() and latest() are the start positions, with no segment (-1).
//
// serialize() writes upstream's v5 form (big-endian), which upstream's clients read:
//   i64 segment id (-1: none), i32 n + n bytes of the classic id (MessageIdData),
//   i32 count + count x {i64 segment id, i32 n + n bytes of its classic id},
//   i32 n + n UTF-8 bytes of the scalable topic's name (-1: none),
//   i32 -1 (upstream's multi-topic vector of namespace consumers, never set here).
// An empty id is written as segment -1 with a zero-length classic id. deserialize reads
// a form cut off after any section, and ignores the multi-topic vector.
// A plain value type; copies share the position vector, so they are cheap.
#pragma once

#include "base/result.h"
#include "magnetar/message_id.h"

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace magnetar::st {

// Segment id -> the latest message delivered from that segment.
using position_vector = std::map<std::int64_t, magnetar::message_id>;

class message_id {
 public:
  // The empty id.
  message_id() = default;
  message_id(std::int64_t segment_id, magnetar::message_id id,
             std::shared_ptr<const position_vector> positions = nullptr);

  // No segment, before every message / after every message.
  static message_id earliest();
  static message_id latest();

  bool empty() const { return _empty; }
  explicit operator bool() const { return !_empty; }

  // -1 when none (empty, earliest, latest).
  std::int64_t segment_id() const { return _segment_id; }
  // The id on the segment's own topic.
  const magnetar::message_id& segment_message_id() const { return _id; }
  // Empty unless a stream consumer delivered the message.
  const position_vector& positions() const;
  const std::shared_ptr<const position_vector>& shared_positions() const { return _positions; }

  // The scalable topic (topic://t/n/x) of a received message; empty otherwise.
  const std::string& topic_name() const;
  void set_topic_name(std::string topic);

  std::string serialize() const;
  // Errors: invalid_argument (bytes that don't parse).
  static result<message_id> deserialize(std::string_view bytes);

  // "<segment>:<ledger>:<entry>:<partition>:<batch index>", "empty" for the empty id.
  std::string to_string() const;

  friend std::strong_ordering operator<=>(const message_id& a, const message_id& b) {
    if (a._empty || b._empty) return b._empty <=> a._empty;
    if (auto c = a._segment_id <=> b._segment_id; c != 0) return c;
    return a._id <=> b._id;
  }
  friend bool operator==(const message_id& a, const message_id& b) { return (a <=> b) == 0; }

 private:
  bool _empty = true;
  std::int64_t _segment_id = -1;
  magnetar::message_id _id;
  std::shared_ptr<const position_vector> _positions;
  std::shared_ptr<const std::string> _topic;
};

std::ostream& operator<<(std::ostream& out, const message_id& id);

}  // namespace magnetar::st
