// compression: Pulsar's payload codecs, as upstream applies them to a message's payload
// (a whole batch when batched): LZ4 as a raw block (not the LZ4 frame format) and ZSTD
// as one frame at level 3. MessageMetadata carries the codec and the uncompressed size,
// which decompression needs.
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"

#include <cstddef>
#include <span>
#include <vector>

namespace magnetar::client_detail {

proto::CompressionType to_proto(compression_type type);
bool is_supported(compression_type type);

// The compressed bytes; for none, a copy. Only none, lz4 and zstd (is_supported).
std::vector<std::byte> compress(compression_type type, std::span<const std::byte> bytes);

// The original bytes of `compressed`, which must be `uncompressed_size` long; NONE
// returns `compressed` itself. Errors (client_errc::corrupt_message): a codec this build
// doesn't decode, or bytes that don't decompress to the stated size.
result<wire::shared_bytes> decompress(proto::CompressionType type, const wire::shared_bytes& compressed,
                                      std::size_t uncompressed_size);

}  // namespace magnetar::client_detail
