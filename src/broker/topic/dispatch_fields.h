// dispatch_fields: what dispatch needs of a stored entry's metadata (the message count,
// the keys Key_Shared orders by, the delayed-delivery time), read straight from the
// metadata's protobuf encoding: no MessageMetadata is built, nothing is allocated.
// Every subscription reads each entry it dispatches, so with one message per entry (many
// keys, as IoT telemetry has) a full parse per read was a large part of dispatch.
// The views point into the entry's bytes. Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <optional>
#include <string_view>

namespace magnetar::broker {

struct dispatch_fields {
  int messages = 1;  // in the entry (a batch holds several), at least 1
  std::optional<std::string_view> ordering_key;
  std::optional<std::string_view> partition_key;
  bool partition_key_b64_encoded = false;
  std::optional<std::int64_t> deliver_at_time;  // milliseconds since the epoch
};

// wire::errc::bad_metadata when the entry has no metadata size, or its metadata is not
// well-formed protobuf.
result<dispatch_fields> dispatch_fields_of(const wire::shared_bytes& entry);

}  // namespace magnetar::broker
