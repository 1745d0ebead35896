#include "client/consumer_config_check.h"

#include "magnetar/errc.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace magnetar::client_detail {

namespace {

// Key hashes are taken modulo 65536 (upstream's DefaultHashRangeSize).
constexpr int max_hash = 65535;

result<void> check_sticky_ranges(std::vector<hash_range> ranges) {
  if (ranges.empty()) return fail(client_errc::invalid_argument, "sticky Key_Shared mode needs hash ranges");
  for (const auto& r : ranges) {
    if (r.start < 0 || r.end > max_hash || r.start > r.end) {
      return fail(client_errc::invalid_argument,
                  fmt::format("hash range [{}, {}] is not within [0, {}]", r.start, r.end, max_hash));
    }
  }
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].start <= ranges[i - 1].end) {
      return fail(client_errc::invalid_argument,
                  fmt::format("hash ranges [{}, {}] and [{}, {}] overlap", ranges[i - 1].start, ranges[i - 1].end,
                              ranges[i].start, ranges[i].end));
    }
  }
  return success();
}

}  // namespace

result<void> check_consumer_config(const consumer_config& c) {
  if (c.ack_timeout.count() < 0 || (c.ack_timeout.count() > 0 && c.ack_timeout < std::chrono::seconds(1))) {
    // Upstream's Java client's floor: shorter timeouts redeliver what is still being processed.
    return fail(client_errc::invalid_argument,
                fmt::format("ack_timeout {} ms: 0 (off) or at least 1000 ms", c.ack_timeout.count()));
  }
  if (c.ack_timeout.count() > 0 && c.ack_timeout_tick.count() <= 0) {
    return fail(client_errc::invalid_argument, "ack_timeout_tick must be positive");
  }
  if (c.type == subscription_type::key_shared && c.key_shared_policy.mode == key_shared_mode::sticky) {
    MAGNETAR_TRY(check_sticky_ranges(c.key_shared_policy.sticky_ranges));
  }
  if (c.dead_letter_policy.max_redeliver_count < 0) {
    return fail(client_errc::invalid_argument, "max_redeliver_count must not be negative");
  }
  return success();
}

}  // namespace magnetar::client_detail
