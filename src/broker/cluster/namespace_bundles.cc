#include "broker/cluster/namespace_bundles.h"

#include "broker/api/errc.h"

#include <fmt/format.h>
#include <boost/crc.hpp>

#include <algorithm>
#include <charconv>

namespace magnetar::broker::cluster {
namespace {

result<std::uint32_t> parse_hex(std::string_view text) {
  if (!text.starts_with("0x") && !text.starts_with("0X")) {
    return fail(errc::invalid_request, fmt::format("'{}' is not a 0x-prefixed hash boundary", text));
  }
  std::uint64_t value = 0;
  const auto digits = text.substr(2);
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, 16);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty() || value > 0xffffffffULL) {
    return fail(errc::invalid_request, fmt::format("'{}' is not a 32-bit hash boundary", text));
  }
  return static_cast<std::uint32_t>(value);
}

}  // namespace

std::string bundle_range::name() const { return fmt::format("0x{:08x}_0x{:08x}", lower, upper); }

std::uint32_t topic_hash(std::string_view full_topic_name) {
  boost::crc_32_type crc;
  crc.process_bytes(full_topic_name.data(), full_topic_name.size());
  return crc.checksum();
}

result<std::vector<bundle_range>> bundles_of_policies(const nlohmann::json& policies) {
  const auto bundles = policies.find("bundles");
  if (bundles == policies.end() || !bundles->is_object() || !bundles->contains("boundaries")) {
    return std::vector<bundle_range>{bundle_range{}};
  }
  const auto& listed = bundles->at("boundaries");
  if (!listed.is_array() || listed.size() < 2) {
    return fail(errc::invalid_request, "bundles.boundaries must list at least two hash boundaries");
  }
  std::vector<std::uint32_t> boundaries;
  for (const auto& b : listed) {
    if (!b.is_string()) return fail(errc::invalid_request, "bundles.boundaries must be strings such as \"0x40000000\"");
    MAGNETAR_TRY(value, parse_hex(b.get<std::string>()));
    if (!boundaries.empty() && value <= boundaries.back()) {
      return fail(errc::invalid_request, "bundles.boundaries must grow");
    }
    boundaries.push_back(value);
  }
  if (boundaries.front() != 0 || boundaries.back() != 0xffffffff) {
    return fail(errc::invalid_request, "bundles.boundaries must start at 0x00000000 and end at 0xffffffff");
  }
  std::vector<bundle_range> out;
  for (std::size_t i = 0; i + 1 < boundaries.size(); ++i) out.push_back({boundaries[i], boundaries[i + 1]});
  return out;
}

bundle_range bundle_for(const std::vector<bundle_range>& bundles, std::uint32_t hash) {
  // The first bundle whose (exclusive) upper bound is past the hash; the last bundle
  // also takes 0xffffffff itself.
  auto it = std::upper_bound(bundles.begin(), bundles.end(), hash,
                             [](std::uint32_t h, const bundle_range& b) { return h < b.upper; });
  return it == bundles.end() ? bundles.back() : *it;
}

result<bundle_range> parse_bundle_range(std::string_view name) {
  const auto underscore = name.find('_');
  if (underscore == std::string_view::npos) {
    return fail(errc::invalid_request, fmt::format("'{}' is not a bundle such as 0x00000000_0x40000000", name));
  }
  MAGNETAR_TRY(lower, parse_hex(name.substr(0, underscore)));
  MAGNETAR_TRY(upper, parse_hex(name.substr(underscore + 1)));
  if (upper <= lower) return fail(errc::invalid_request, fmt::format("bundle '{}' is empty", name));
  return bundle_range{lower, upper};
}

result<std::pair<bundle_range, bundle_range>> split_in_half(bundle_range bundle) {
  const auto middle = static_cast<std::uint32_t>(bundle.lower + (bundle.upper - bundle.lower) / 2);
  if (middle == bundle.lower)
    return fail(errc::not_allowed, fmt::format("bundle {} is too small to split", bundle.name()));
  return std::pair{bundle_range{bundle.lower, middle}, bundle_range{middle, bundle.upper}};
}

nlohmann::json bundles_json(const std::vector<bundle_range>& bundles) {
  nlohmann::json boundaries = nlohmann::json::array();
  for (const auto& b : bundles) boundaries.push_back(fmt::format("0x{:08x}", b.lower));
  boundaries.push_back(fmt::format("0x{:08x}", bundles.back().upper));
  return {{"boundaries", std::move(boundaries)}, {"numBundles", bundles.size()}};
}

}  // namespace magnetar::broker::cluster
