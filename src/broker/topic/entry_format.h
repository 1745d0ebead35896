// entry_format: what the broker stores for a published message, and how it reads it.
//
// An entry is the SEND frame's [metadata size][MessageMetadata][payload], exactly the
// bytes the frame's checksum covers, so that dispatch sends them on unchanged and the
// producer's crc32c reaches the consumer. The broker only rewrites the metadata when it
// must add something (a publish time the producer left out).
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <span>

namespace magnetar::broker {

// The encoded metadata of a stored entry; wire::errc::bad_metadata when the entry has
// no metadata size or the size runs past the entry.
result<std::span<const std::byte>> entry_metadata_bytes(const wire::shared_bytes& entry);
// The metadata of a stored entry; wire::errc::bad_metadata when it doesn't parse.
result<proto::MessageMetadata> entry_metadata(const wire::shared_bytes& entry);

// Messages in the entry (a batch holds several), at least 1.
int messages_in(const proto::MessageMetadata& metadata);

// The entry to store for a SEND: `metadata_and_payload` as received, or, when the
// producer set no publish time, the same with `now_ms` as its publish time.
wire::shared_bytes entry_for_send(const proto::MessageMetadata& metadata,
                                  const wire::shared_bytes& metadata_and_payload, std::int64_t now_ms);

}  // namespace magnetar::broker
