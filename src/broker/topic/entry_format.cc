#include "broker/topic/entry_format.h"

#include "wire/big_endian.h"
#include "wire/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace magnetar::broker {

namespace {
constexpr std::size_t size_field = 4;
}

result<std::span<const std::byte>> entry_metadata_bytes(const wire::shared_bytes& entry) {
  if (entry.size() < size_field) {
    return fail(wire::errc::bad_metadata, fmt::format("an entry of {} bytes has no metadata size", entry.size()));
  }
  const std::uint32_t size = wire::load_be32(entry.data());
  if (size > entry.size() - size_field) {
    return fail(wire::errc::bad_metadata,
                fmt::format("metadata size {} is beyond the entry's {} bytes", size, entry.size()));
  }
  return entry.span().subspan(size_field, size);
}

result<proto::MessageMetadata> entry_metadata(const wire::shared_bytes& entry) {
  MAGNETAR_TRY(bytes, entry_metadata_bytes(entry));
  proto::MessageMetadata metadata;
  if (!metadata.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return fail(wire::errc::bad_metadata, "the entry's message metadata doesn't parse");
  }
  return metadata;
}

int messages_in(const proto::MessageMetadata& metadata) { return std::max(1, metadata.num_messages_in_batch()); }

wire::shared_bytes entry_for_send(const proto::MessageMetadata& metadata,
                                  const wire::shared_bytes& metadata_and_payload, std::int64_t now_ms) {
  if (metadata.has_publish_time() && metadata.publish_time() != 0) return metadata_and_payload;
  proto::MessageMetadata stamped = metadata;
  stamped.set_publish_time(static_cast<std::uint64_t>(now_ms));
  const std::uint32_t old_size = wire::load_be32(metadata_and_payload.data());
  const auto payload = metadata_and_payload.span().subspan(size_field + old_size);
  const auto new_size = stamped.ByteSizeLong();
  auto buffer = std::make_shared_for_overwrite<std::byte[]>(size_field + new_size + payload.size());
  wire::store_be32(buffer.get(), static_cast<std::uint32_t>(new_size));
  stamped.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(buffer.get() + size_field));
  std::copy(payload.begin(), payload.end(), buffer.get() + size_field + new_size);
  const std::byte* data = buffer.get();
  return wire::shared_bytes(std::move(buffer), {data, size_field + new_size + payload.size()});
}

}  // namespace magnetar::broker
