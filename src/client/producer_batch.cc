#include "client/producer_batch.h"

#include "client/batch_format.h"
#include "client/compression.h"

#include <algorithm>

namespace magnetar::client_detail {

namespace {

void set_common(proto::MessageMetadata& md, const entry_context& context, std::uint64_t sequence_id) {
  md.set_producer_name(context.producer_name);
  md.set_sequence_id(sequence_id);
  md.set_publish_time(context.publish_time_ms);
}

void compress_into(built_entry& e, std::vector<std::byte> raw, compression_type compression) {
  if (compression == compression_type::none) {
    e.payload = std::move(raw);
    return;
  }
  e.metadata.set_compression(to_proto(compression));
  e.metadata.set_uncompressed_size(static_cast<std::uint32_t>(raw.size()));
  e.payload = compress(compression, raw);
}

}  // namespace

built_entry build_single(queued_message m, const entry_context& context) {
  built_entry e;
  const auto& d = *m.data;
  set_common(e.metadata, context, m.sequence_id);
  if (d.key) e.metadata.set_partition_key(*d.key);
  if (d.ordering_key) e.metadata.set_ordering_key(*d.ordering_key);
  for (const auto& [k, v] : d.properties) {
    auto* kv = e.metadata.add_properties();
    kv->set_key(k);
    kv->set_value(v);
  }
  if (d.event_time != 0) e.metadata.set_event_time(d.event_time);
  if (d.deliver_at_time) e.metadata.set_deliver_at_time(static_cast<std::int64_t>(*d.deliver_at_time));
  auto payload = d.payload.span();
  compress_into(e, std::vector<std::byte>(payload.begin(), payload.end()), context.compression);
  e.sequence_id = m.sequence_id;
  e.callbacks.push_back(std::move(m.callback));
  return e;
}

built_entry build_batch(std::vector<queued_message> messages, const entry_context& context) {
  built_entry e;
  e.batched = true;
  e.num_messages = static_cast<int>(messages.size());
  e.sequence_id = messages.front().sequence_id;
  set_common(e.metadata, context, e.sequence_id);
  // As upstream: the batch's metadata takes the first message's keys.
  const auto& first = *messages.front().data;
  if (first.key) e.metadata.set_partition_key(*first.key);
  if (first.ordering_key) e.metadata.set_ordering_key(*first.ordering_key);
  e.metadata.set_num_messages_in_batch(e.num_messages);
  // Sized once: growing a batch of a thousand messages step by step copies it over again.
  std::size_t payload_bytes = 0;
  for (const auto& m : messages) payload_bytes += m.data->payload.size();
  std::vector<std::byte> raw;
  raw.reserve(payload_bytes + messages.size() * 32);  // + room for each message's metadata
  e.callbacks.reserve(messages.size());
  for (auto& m : messages) {
    append_to_batch(raw, single_metadata_of(*m.data, m.sequence_id), m.data->payload.span());
    e.callbacks.push_back(std::move(m.callback));
  }
  compress_into(e, std::move(raw), context.compression);
  return e;
}

batch_container::batch_container(unsigned max_messages, std::size_t max_bytes, batching_type type)
    : _max_messages(std::max(1u, max_messages)), _max_bytes(max_bytes), _type(type) {}

bool batch_container::has_room_for(const message_data& m) const {
  if (_count == 0) return true;
  return _count + 1 <= _max_messages && _bytes + m.payload.size() <= _max_bytes;
}

void batch_container::add(queued_message m) {
  _bytes += m.data->payload.size();
  ++_count;
  std::string key = _type == batching_type::key_based && m.data->key ? *m.data->key : std::string();
  _batches[std::move(key)].push_back(std::move(m));
}

bool batch_container::is_full() const { return _count >= _max_messages || _bytes >= _max_bytes; }

std::vector<built_entry> batch_container::build(const entry_context& context) {
  std::vector<std::vector<queued_message>> groups;
  for (auto& [key, messages] : _batches) groups.push_back(std::move(messages));
  _batches.clear();
  _count = 0;
  _bytes = 0;
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.front().sequence_id < b.front().sequence_id; });
  std::vector<built_entry> out;
  out.reserve(groups.size());
  for (auto& g : groups) out.push_back(build_batch(std::move(g), context));
  return out;
}

std::vector<queued_message> batch_container::take_all() {
  std::vector<queued_message> out;
  for (auto& [key, messages] : _batches) {
    for (auto& m : messages) out.push_back(std::move(m));
  }
  _batches.clear();
  _count = 0;
  _bytes = 0;
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.sequence_id < b.sequence_id; });
  return out;
}

}  // namespace magnetar::client_detail
