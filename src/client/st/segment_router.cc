#include "client/st/segment_router.h"

#include "base/murmur3.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::st::detail {

std::uint32_t segment_hash(std::string_view key) { return (base::murmur3_32(key) >> 16) & 0xFFFF; }

std::uint32_t entry_bucket_hash(std::string_view key) { return base::murmur3_32(key) & 0xFFFF; }

result<const segment_info*> segment_router::route(const segment_layout& layout, std::optional<std::string_view> key) {
  const auto& active = layout.active();
  if (active.empty()) {
    return fail(client_errc::service_not_ready, fmt::format("{} has no active segment yet", layout.topic()));
  }
  if (!key) {
    const auto n = _next.fetch_add(1, std::memory_order_relaxed);
    return &active[n % active.size()];
  }
  const bool all_legacy =
      std::all_of(active.begin(), active.end(), [](const segment_info& s) { return s.is_legacy(); });
  if (all_legacy) {
    // The topic's partitions before migration: where its partitioned producers sent the key.
    const std::uint64_t index = (base::murmur3_32(*key) & 0x7FFFFFFFu) % active.size();
    auto it = std::find_if(active.begin(), active.end(), [&](const segment_info& s) { return s.id == index; });
    if (it == active.end()) {
      return fail(client_errc::protocol_error,
                  fmt::format("{}: no legacy segment {} for key '{}'", layout.topic(), index, *key));
    }
    return &*it;
  }
  const std::uint32_t hash = segment_hash(*key);
  auto it = std::find_if(active.begin(), active.end(), [&](const segment_info& s) { return s.contains(hash); });
  if (it == active.end()) {
    return fail(client_errc::protocol_error, fmt::format("{}: no active segment covers hash {:#06x} (layout epoch {})",
                                                         layout.topic(), hash, layout.epoch()));
  }
  return &*it;
}

}  // namespace magnetar::st::detail
