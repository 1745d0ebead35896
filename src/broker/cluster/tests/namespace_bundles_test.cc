#include "broker/cluster/namespace_bundles.h"

#include "broker/api/errc.h"

#include <gtest/gtest.h>

namespace magnetar::broker::cluster {
namespace {

nlohmann::json policies_with(std::vector<std::string> boundaries) {
  return {{"bundles", {{"boundaries", boundaries}, {"numBundles", boundaries.size() - 1}}}};
}

TEST(namespace_bundles, the_topic_hash_is_crc32_as_upstreams) {
  // CRC-32's check value: the hash Guava's crc32 gives too.
  EXPECT_EQ(topic_hash("123456789"), 0xcbf43926u);
}

TEST(namespace_bundles, four_bundles_split_the_hash_space_evenly) {
  auto bundles =
      bundles_of_policies(policies_with({"0x00000000", "0x40000000", "0x80000000", "0xc0000000", "0xffffffff"}));
  ASSERT_TRUE(bundles) << bundles.error();
  ASSERT_EQ(bundles.value().size(), 4u);
  EXPECT_EQ(bundles.value()[0].name(), "0x00000000_0x40000000");
  EXPECT_EQ(bundles.value()[3].name(), "0xc0000000_0xffffffff");
}

TEST(namespace_bundles, a_hash_falls_in_the_bundle_whose_range_holds_it) {
  auto bundles =
      bundles_of_policies(policies_with({"0x00000000", "0x40000000", "0x80000000", "0xc0000000", "0xffffffff"}))
          .value();
  EXPECT_EQ(bundle_for(bundles, 0).name(), "0x00000000_0x40000000");
  EXPECT_EQ(bundle_for(bundles, 0x3fffffff).name(), "0x00000000_0x40000000");
  EXPECT_EQ(bundle_for(bundles, 0x40000000).name(), "0x40000000_0x80000000") << "lower bounds are inclusive";
  EXPECT_EQ(bundle_for(bundles, 0xffffffff).name(), "0xc0000000_0xffffffff") << "the last bundle is closed";
}

TEST(namespace_bundles, policies_without_bundles_make_one_full_bundle) {
  auto bundles = bundles_of_policies(nlohmann::json::object());
  ASSERT_TRUE(bundles);
  ASSERT_EQ(bundles.value().size(), 1u);
  EXPECT_EQ(bundles.value()[0].name(), "0x00000000_0xffffffff");
}

TEST(namespace_bundles, boundaries_that_leave_a_gap_are_refused) {
  EXPECT_EQ(bundles_of_policies(policies_with({"0x00000010", "0xffffffff"})).error(), errc::invalid_request);
  EXPECT_EQ(bundles_of_policies(policies_with({"0x00000000", "0x80000000"})).error(), errc::invalid_request);
  EXPECT_EQ(bundles_of_policies(policies_with({"0x00000000", "0x90000000", "0x80000000", "0xffffffff"})).error(),
            errc::invalid_request);
  EXPECT_EQ(bundles_of_policies(policies_with({"0x00000000", "banana", "0xffffffff"})).error(), errc::invalid_request);
}

TEST(namespace_bundles, a_name_parses_back_to_its_range) {
  auto range = parse_bundle_range("0x40000000_0x80000000");
  ASSERT_TRUE(range) << range.error();
  EXPECT_EQ(range.value(), (bundle_range{0x40000000, 0x80000000}));
  EXPECT_FALSE(parse_bundle_range("0x40000000"));
  EXPECT_FALSE(parse_bundle_range("0x80000000_0x40000000"));
  EXPECT_FALSE(parse_bundle_range("0x1_0x1ffffffff"));
}

TEST(namespace_bundles, splitting_halves_a_bundle_and_the_json_lists_every_boundary) {
  auto halves = split_in_half(bundle_range{0x40000000, 0x80000000});
  ASSERT_TRUE(halves);
  EXPECT_EQ(halves.value().first, (bundle_range{0x40000000, 0x60000000}));
  EXPECT_EQ(halves.value().second, (bundle_range{0x60000000, 0x80000000}));
  EXPECT_FALSE(split_in_half(bundle_range{7, 8}));
  const auto json = bundles_json({bundle_range{0, 0x60000000}, bundle_range{0x60000000, 0xffffffff}});
  EXPECT_EQ(json["boundaries"], nlohmann::json({"0x00000000", "0x60000000", "0xffffffff"}));
  EXPECT_EQ(json["numBundles"], 2);
}

}  // namespace
}  // namespace magnetar::broker::cluster
