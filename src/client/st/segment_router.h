// segment_router: which active segment of a layout a message goes to, as upstream's
// scalable-topic producer picks it, so a key lands on the segment an upstream producer
// would use.
//
// A key is hashed once with MurmurHash3 x86_32, seed 0, over its bytes, unmasked: the
// high 16 bits are the segment hash (routing), the low 16 bits the entry-bucket hash
// (PIP-486 buckets inside a segment).
//   - keyed: the active segment whose [hash_start, hash_end] holds the segment hash;
//     when every active segment is a legacy one (a regular topic's synthetic layout),
//     the classic partition rule (masked murmur3 % count picks the segment whose id is
//     that index), as the topic's old partitioned producers did;
//   - keyless: round robin over the active segments in hash order, one step per call.
// Errors: service_not_ready (no active segment yet), protocol_error (the layout leaves
// the hash uncovered). Thread-safe: the round-robin counter is atomic.
#pragma once

#include "base/result.h"
#include "client/st/segment_layout.h"

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>

namespace magnetar::st::detail {

// (murmur3_32(key) >> 16) & 0xFFFF
std::uint32_t segment_hash(std::string_view key);
// murmur3_32(key) & 0xFFFF
std::uint32_t entry_bucket_hash(std::string_view key);

class segment_router {
 public:
  // The segment for a message with `key` (nullopt: keyless). The pointer is into
  // `layout` and lives as long as it.
  result<const segment_info*> route(const segment_layout& layout, std::optional<std::string_view> key);

 private:
  std::atomic<std::uint64_t> _next{0};
};

}  // namespace magnetar::st::detail
