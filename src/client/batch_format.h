// batch_format: the payload of a batched entry, byte for byte as upstream Pulsar writes
// it, and its decoding.
//
// A batch payload is, for each message in order,
//   [4-byte big-endian size of its SingleMessageMetadata][SingleMessageMetadata][payload]
// and the entry's MessageMetadata says num_messages_in_batch = N. Compression applies to
// the whole batch payload (compression.h), after encoding and before decoding.
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "client/message_data.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"

#include <cstddef>
#include <span>
#include <vector>

namespace magnetar::client_detail {

// The SingleMessageMetadata of a message going into a batch: key, ordering key,
// properties, event time, sequence id and payload size, as upstream fills it.
proto::SingleMessageMetadata single_metadata_of(const message_data& m, std::uint64_t sequence_id);

// Appends one message's [size][SingleMessageMetadata][payload] to `out`.
void append_to_batch(std::vector<std::byte>& out, const proto::SingleMessageMetadata& metadata,
                     std::span<const std::byte> payload);

struct batch_entry {
  proto::SingleMessageMetadata metadata;
  wire::shared_bytes payload;  // shares the batch payload's buffer
};

// Splits an (uncompressed) batch payload into its `count` messages. Errors
// (client_errc::corrupt_message): a size running past the end, metadata that doesn't
// parse, or bytes left over.
result<std::vector<batch_entry>> decode_batch(const wire::shared_bytes& payload, int count);

}  // namespace magnetar::client_detail
