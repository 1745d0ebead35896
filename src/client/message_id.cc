#include "magnetar/message_id.h"

#include "magnetar/errc.h"
#include "proto/pulsar_api.pb.h"

#include <fmt/format.h>

#include <limits>

namespace magnetar {

message_id message_id::earliest() { return {-1, -1}; }
message_id message_id::latest() {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  return {max, max};
}

const std::string& message_id::topic_name() const {
  static const std::string none;
  return _topic ? *_topic : none;
}

void message_id::set_topic_name(std::string topic) { _topic = std::make_shared<const std::string>(std::move(topic)); }

std::string message_id::serialize() const {
  proto::MessageIdData data;
  // The protocol's fields are unsigned; earliest's -1 travels as all ones, as upstream.
  data.set_ledgerid(static_cast<std::uint64_t>(_ledger_id));
  data.set_entryid(static_cast<std::uint64_t>(_entry_id));
  if (_partition >= 0) data.set_partition(_partition);
  if (_batch_index >= 0) data.set_batch_index(_batch_index);
  if (_batch_size > 0) data.set_batch_size(_batch_size);
  return data.SerializeAsString();
}

result<message_id> message_id::deserialize(std::string_view bytes) {
  proto::MessageIdData data;
  if (!data.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())) || !data.has_ledgerid() ||
      !data.has_entryid()) {
    return fail(client_errc::invalid_argument, "bytes are not a serialized message id");
  }
  return message_id(static_cast<std::int64_t>(data.ledgerid()), static_cast<std::int64_t>(data.entryid()),
                    data.partition(), data.batch_index(), data.batch_size());
}

std::string message_id::to_string() const {
  return fmt::format("{}:{}:{}:{}", _ledger_id, _entry_id, _partition, _batch_index);
}

std::ostream& operator<<(std::ostream& out, const message_id& id) { return out << id.to_string(); }

}  // namespace magnetar
