#include "wire/topic_name.h"

#include "wire/errc.h"

#include <gtest/gtest.h>

namespace magnetar::wire {
namespace {

TEST(TopicName, ShortNameLivesInPublicDefault) {
  auto name = topic_name::parse("my-topic");
  ASSERT_TRUE(name);
  EXPECT_EQ(name.value().full(), "persistent://public/default/my-topic");
  EXPECT_EQ(name.value().namespace_name(), "public/default");
}

TEST(TopicName, ThreePartNameIsPersistent) {
  auto name = topic_name::parse("acme/iot/readings");
  ASSERT_TRUE(name);
  EXPECT_EQ(name.value().full(), "persistent://acme/iot/readings");
}

TEST(TopicName, FullNameKeepsItsDomain) {
  auto name = topic_name::parse("non-persistent://acme/iot/readings");
  ASSERT_TRUE(name);
  EXPECT_FALSE(name.value().is_persistent());
  EXPECT_EQ(name.value().local_name(), "readings");
}

TEST(TopicName, PartitionSuffixGivesIndexAndParent) {
  auto name = topic_name::parse("persistent://acme/iot/readings-partition-7");
  ASSERT_TRUE(name);
  EXPECT_EQ(name.value().partition(), 7);
  EXPECT_EQ(name.value().partitioned_parent().full(), "persistent://acme/iot/readings");
  EXPECT_EQ(name.value().partitioned_parent().partition_of(2).full(), "persistent://acme/iot/readings-partition-2");
}

TEST(TopicName, SuffixWithoutDigitsIsNoPartition) {
  auto name = topic_name::parse("acme/iot/readings-partition-x");
  ASSERT_TRUE(name);
  EXPECT_EQ(name.value().partition(), -1);
}

TEST(TopicName, PersistenceNameIsTenantNamespaceDomainLocal) {
  EXPECT_EQ(topic_name::parse("t").value().persistence_name(), "public/default/persistent/t");
}

TEST(TopicName, ClusterFormIsRefusedWithReason) {
  auto name = topic_name::parse("persistent://acme/cluster/iot/readings");
  ASSERT_FALSE(name);
  EXPECT_EQ(name.error().code(), errc::invalid_topic_name);
  EXPECT_NE(name.error().detail().find("cluster"), std::string::npos);
}

TEST(TopicName, ScalableTopicKeepsItsDomain) {
  auto name = topic_name::parse("topic://acme/iot/orders");
  ASSERT_TRUE(name);
  EXPECT_TRUE(name.value().is_scalable());
  EXPECT_FALSE(name.value().is_persistent());
  EXPECT_EQ(name.value().full(), "topic://acme/iot/orders");
}

TEST(TopicName, SegmentLocalNameHoldsTopicAndDescriptor) {
  auto name = topic_name::parse("segment://acme/iot/orders/0000-7fff-1");
  ASSERT_TRUE(name);
  EXPECT_TRUE(name.value().is_segment());
  EXPECT_TRUE(name.value().is_persistent());
  EXPECT_EQ(name.value().local_name(), "orders/0000-7fff-1");
  EXPECT_EQ(name.value().namespace_name(), "acme/iot");
  EXPECT_EQ(name.value().full(), "segment://acme/iot/orders/0000-7fff-1");
  EXPECT_EQ(name.value().persistence_name(), "acme/iot/segment/orders/0000-7fff-1");
}

TEST(TopicName, SegmentWithoutDescriptorIsRefused) {
  EXPECT_FALSE(topic_name::parse("segment://acme/iot/orders"));
  EXPECT_FALSE(topic_name::parse("segment://acme/iot/orders/"));
}

TEST(TopicName, MalformedNamesAreRefused) {
  for (auto bad : {"", "a/b", "http://a/b/c", "persistent://a/b/", "persistent://a b/c/d", "a//c"}) {
    EXPECT_FALSE(topic_name::parse(bad)) << bad;
  }
}

TEST(TopicName, DotAndDotDotAreRefusedAsAnyPart) {
  for (auto bad : {"persistent://../ns/t", "persistent://t/../x", "persistent://t/ns/..", "persistent://./ns/t",
                   "persistent://t/ns/.", "segment://t/ns/../0000-ffff-1", "segment://t/ns/x/.."}) {
    EXPECT_FALSE(topic_name::parse(bad)) << bad;
  }
}

TEST(TopicName, SegmentNameIsTheScalableTopicsPathAndItsDescriptor) {
  EXPECT_EQ(segment_topic_name("topic://public/default/orders", 0x8000, 0xffff, 12),
            "segment://public/default/orders/8000-ffff-12");
  EXPECT_EQ(segment_topic_name("t/n/x", 0, 0x7f, 3), "segment://t/n/x/0000-007f-3");
  auto parsed = topic_name::parse(segment_topic_name("t/n/x", 0, 0x7fff, 1));
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_TRUE(parsed.value().is_segment());
  EXPECT_EQ(parsed.value().local_name(), "x/0000-7fff-1");
}

}  // namespace
}  // namespace magnetar::wire
