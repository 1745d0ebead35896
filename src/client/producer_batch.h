// producer_batch: how queued messages become one entry for SEND: a single message's
// metadata and payload, or a batch of them (batch_format.h), compressed as configured.
//
// batch_container collects messages until batching_max_messages or batching_max_bytes
// would be passed; in key-based mode it keeps one batch per key and hands the batches
// out in sequence order. Pure logic, no I/O; not thread-safe (the producer's lock
// guards it).
#pragma once

#include "client/message_data.h"
#include "magnetar/config.h"
#include "magnetar/producer.h"
#include "proto/pulsar_api.pb.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::client_detail {

struct queued_message {
  std::shared_ptr<const message_data> data;
  std::uint64_t sequence_id = 0;
  send_callback callback;
};

// One entry ready to be framed: metadata and (compressed) payload.
struct built_entry {
  proto::MessageMetadata metadata;
  std::vector<std::byte> payload;
  std::uint64_t sequence_id = 0;  // the first message's
  int num_messages = 1;
  bool batched = false;
  std::vector<send_callback> callbacks;  // one per message, in batch order
};

struct entry_context {
  std::string producer_name;
  std::uint64_t publish_time_ms = 0;
  compression_type compression = compression_type::none;
};

built_entry build_single(queued_message m, const entry_context& context);
// `messages` non-empty; sequence ids increasing.
built_entry build_batch(std::vector<queued_message> messages, const entry_context& context);

class batch_container {
 public:
  batch_container(unsigned max_messages, std::size_t max_bytes, batching_type type);

  // Whether `m` fits with what is batched already (an empty container takes anything).
  bool has_room_for(const message_data& m) const;
  void add(queued_message m);
  // Full: flush now.
  bool is_full() const;
  bool empty() const { return _count == 0; }
  std::size_t size() const { return _count; }

  // The batches, in the order of their first sequence id; the container is left empty.
  std::vector<built_entry> build(const entry_context& context);
  // Takes the messages out without building (to fail them on close).
  std::vector<queued_message> take_all();

 private:
  unsigned _max_messages;
  std::size_t _max_bytes;
  batching_type _type;
  std::size_t _count = 0;
  std::size_t _bytes = 0;
  // Keyed by partition key in key-based mode (messages without a key share ""), one
  // key otherwise.
  std::map<std::string, std::vector<queued_message>> _batches;
};

}  // namespace magnetar::client_detail
