// namespace_bundles: a namespace's hash ranges (Pulsar's bundles), the unit of
// ownership in a cluster: one broker at a time owns a bundle and serves every topic
// whose name hashes into it.
//
// As upstream: a topic's hash is CRC-32 (IEEE, Guava's crc32) of its full name as
// UTF-8 ("persistent://t/ns/x-partition-3": each partition on its own), a value in
// 0..0xffffffff. A namespace's boundaries are stored in its policies as
// {"bundles": {"boundaries": ["0x00000000", ..., "0xffffffff"], "numBundles": N}};
// bundle i is [boundary i, boundary i+1), the last one closed at 0xffffffff, and is
// named "0x%08x_0x%08x".
// Pure functions and values; thread-safe.
#pragma once

#include "base/result.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::broker::cluster {

struct bundle_range {
  std::uint32_t lower = 0;
  std::uint32_t upper = 0xffffffff;

  // "0x00000000_0x40000000"
  std::string name() const;
  friend bool operator==(const bundle_range&, const bundle_range&) = default;
  friend auto operator<=>(const bundle_range&, const bundle_range&) = default;
};

std::uint32_t topic_hash(std::string_view full_topic_name);

// The bundles a namespace's policies list; one full bundle when they list none.
// errc::invalid_request for boundaries that don't start at 0, end at 0xffffffff and grow.
result<std::vector<bundle_range>> bundles_of_policies(const nlohmann::json& policies);

// The bundle of `bundles` (from bundles_of_policies) that holds `hash`.
bundle_range bundle_for(const std::vector<bundle_range>& bundles, std::uint32_t hash);

// "0x00000000_0x40000000" back to its range; errc::invalid_request otherwise.
result<bundle_range> parse_bundle_range(std::string_view name);

// The two halves of a bundle (upstream's range_equally_divide); errc::not_allowed for
// a bundle too small to split.
result<std::pair<bundle_range, bundle_range>> split_in_half(bundle_range bundle);

// The policies' "bundles" value for these bundles.
nlohmann::json bundles_json(const std::vector<bundle_range>& bundles);

}  // namespace magnetar::broker::cluster
