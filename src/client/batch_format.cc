#include "client/batch_format.h"

#include "magnetar/errc.h"
#include "wire/big_endian.h"

#include <fmt/format.h>

namespace magnetar::client_detail {

proto::SingleMessageMetadata single_metadata_of(const message_data& m, std::uint64_t sequence_id) {
  proto::SingleMessageMetadata s;
  s.set_payload_size(static_cast<std::int32_t>(m.payload.size()));
  if (m.key) s.set_partition_key(*m.key);
  if (m.ordering_key) s.set_ordering_key(*m.ordering_key);
  for (const auto& [name, value] : m.properties) {
    auto* kv = s.add_properties();
    kv->set_key(name);
    kv->set_value(value);
  }
  if (m.event_time != 0) s.set_event_time(m.event_time);
  s.set_sequence_id(sequence_id);
  return s;
}

void append_to_batch(std::vector<std::byte>& out, const proto::SingleMessageMetadata& metadata,
                     std::span<const std::byte> payload) {
  const std::size_t metadata_size = metadata.ByteSizeLong();
  const std::size_t start = out.size();
  out.resize(start + 4 + metadata_size + payload.size());
  wire::store_be32(out.data() + start, static_cast<std::uint32_t>(metadata_size));
  metadata.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out.data() + start + 4));
  if (!payload.empty()) std::memcpy(out.data() + start + 4 + metadata_size, payload.data(), payload.size());
}

result<std::vector<batch_entry>> decode_batch(const wire::shared_bytes& payload, int count) {
  if (count < 0) return fail(client_errc::corrupt_message, fmt::format("batch of {} messages", count));
  std::vector<batch_entry> entries;
  entries.reserve(static_cast<std::size_t>(count));
  std::size_t at = 0;
  const std::size_t size = payload.size();
  for (int i = 0; i < count; ++i) {
    if (size - at < 4) {
      return fail(client_errc::corrupt_message, fmt::format("batch ends before message {} of {}", i, count));
    }
    const std::size_t metadata_size = wire::load_be32(payload.data() + at);
    at += 4;
    if (metadata_size > size - at) {
      return fail(client_errc::corrupt_message, fmt::format("metadata of batch message {} runs past the end", i));
    }
    batch_entry e;
    if (!e.metadata.ParseFromArray(payload.data() + at, static_cast<int>(metadata_size))) {
      return fail(client_errc::corrupt_message, fmt::format("metadata of batch message {} doesn't parse", i));
    }
    at += metadata_size;
    const auto payload_size = e.metadata.payload_size();
    if (payload_size < 0 || static_cast<std::size_t>(payload_size) > size - at) {
      return fail(client_errc::corrupt_message, fmt::format("payload of batch message {} runs past the end", i));
    }
    e.payload = payload.slice(at, static_cast<std::size_t>(payload_size));
    at += static_cast<std::size_t>(payload_size);
    entries.push_back(std::move(e));
  }
  if (at != size) {
    return fail(client_errc::corrupt_message, fmt::format("{} bytes after the last batch message", size - at));
  }
  return entries;
}

}  // namespace magnetar::client_detail
