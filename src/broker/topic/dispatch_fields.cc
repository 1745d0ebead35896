#include "broker/topic/dispatch_fields.h"

#include "base/varint.h"
#include "broker/topic/entry_format.h"
#include "proto/pulsar_api.pb.h"
#include "wire/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker {
namespace {

// The MessageMetadata fields dispatch reads, by the numbers the schema gives them.
constexpr std::uint32_t partition_key_field = proto::MessageMetadata::kPartitionKeyFieldNumber;
constexpr std::uint32_t num_messages_in_batch_field = proto::MessageMetadata::kNumMessagesInBatchFieldNumber;
constexpr std::uint32_t partition_key_b64_encoded_field = proto::MessageMetadata::kPartitionKeyB64EncodedFieldNumber;
constexpr std::uint32_t ordering_key_field = proto::MessageMetadata::kOrderingKeyFieldNumber;
constexpr std::uint32_t deliver_at_time_field = proto::MessageMetadata::kDeliverAtTimeFieldNumber;

enum wire_type : std::uint32_t { varint = 0, fixed64 = 1, length_delimited = 2, fixed32 = 5 };

// Reads protobuf's wire format over [at, end); every read fails (false) rather than
// run past the end.
class reader {
 public:
  reader(const std::byte* at, const std::byte* end) : _at(at), _end(end) {}
  bool done() const { return _at == _end; }

  bool read_varint(std::uint64_t& value) {
    const auto r = base::read_varint(std::span<const std::byte>(_at, _end), base::varint_rules::protobuf);
    if (r.status != base::varint_status::ok) return false;
    _at += r.size;
    value = r.value;
    return true;
  }
  bool read_bytes(std::string_view& out) {
    std::uint64_t size = 0;
    if (!read_varint(size) || size > static_cast<std::uint64_t>(_end - _at)) return false;
    out = std::string_view(reinterpret_cast<const char*>(_at), static_cast<std::size_t>(size));
    _at += size;
    return true;
  }
  bool skip(std::uint32_t type) {
    std::uint64_t ignored = 0;
    std::string_view bytes;
    switch (type) {
      case varint: return read_varint(ignored);
      case fixed64: return skip_bytes(8);
      case length_delimited: return read_bytes(bytes);
      case fixed32: return skip_bytes(4);
      default: return false;  // groups: not in MessageMetadata
    }
  }

 private:
  bool skip_bytes(std::size_t n) {
    if (n > static_cast<std::size_t>(_end - _at)) return false;
    _at += n;
    return true;
  }

  const std::byte* _at;
  const std::byte* _end;
};

}  // namespace

result<dispatch_fields> dispatch_fields_of(const wire::shared_bytes& entry) {
  MAGNETAR_TRY(metadata, entry_metadata_bytes(entry));
  reader in(metadata.data(), metadata.data() + metadata.size());
  dispatch_fields fields;
  auto malformed = [] { return fail(wire::errc::bad_metadata, "the entry's message metadata doesn't parse"); };
  while (!in.done()) {
    std::uint64_t tag = 0;
    if (!in.read_varint(tag)) return malformed();
    const auto field = static_cast<std::uint32_t>(tag >> 3);
    const auto type = static_cast<std::uint32_t>(tag & 7);
    std::uint64_t value = 0;
    std::string_view bytes;
    // The last occurrence of a field wins, as in a full parse.
    if (field == partition_key_field && type == length_delimited) {
      if (!in.read_bytes(bytes)) return malformed();
      fields.partition_key = bytes;
    } else if (field == ordering_key_field && type == length_delimited) {
      if (!in.read_bytes(bytes)) return malformed();
      fields.ordering_key = bytes;
    } else if (field == num_messages_in_batch_field && type == varint) {
      if (!in.read_varint(value)) return malformed();
      fields.messages = std::max(1, static_cast<int>(static_cast<std::int32_t>(value)));
    } else if (field == partition_key_b64_encoded_field && type == varint) {
      if (!in.read_varint(value)) return malformed();
      fields.partition_key_b64_encoded = value != 0;
    } else if (field == deliver_at_time_field && type == varint) {
      if (!in.read_varint(value)) return malformed();
      fields.deliver_at_time = static_cast<std::int64_t>(value);
    } else if (field == 0 || !in.skip(type)) {
      return malformed();
    }
  }
  return fields;
}

}  // namespace magnetar::broker
