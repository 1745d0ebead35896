// Topic patterns: the namespace they list, and which topics they match.
#include "client/topic_pattern.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

TEST(topic_pattern, names_the_namespace_to_list) {
  auto p = topic_pattern::parse("persistent://acme/orders/eu-.*");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p.value().namespace_name(), "acme/orders");
}

TEST(topic_pattern, matches_whole_names_without_the_domain) {
  auto p = topic_pattern::parse("persistent://public/default/eu-.*");
  ASSERT_TRUE(p) << p.error();
  EXPECT_TRUE(p.value().matches("persistent://public/default/eu-1"));
  EXPECT_FALSE(p.value().matches("persistent://public/default/us-1"));
  EXPECT_FALSE(p.value().matches("persistent://public/default/x-eu-1"));
  EXPECT_TRUE(p.value().matches("non-persistent://public/default/eu-2"));
}

TEST(topic_pattern, a_bare_pattern_is_in_public_default) {
  auto p = topic_pattern::parse("eu-[0-9]+");
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p.value().namespace_name(), "public/default");
  EXPECT_TRUE(p.value().matches("persistent://public/default/eu-12"));
  EXPECT_FALSE(p.value().matches("persistent://other/default/eu-12"));
}

TEST(topic_pattern, a_bad_regex_is_refused) {
  auto p = topic_pattern::parse("persistent://public/default/eu-(");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::invalid_argument);
}

TEST(topic_pattern, a_pattern_without_a_namespace_is_refused) {
  auto p = topic_pattern::parse("public/eu-.*");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::invalid_topic_name);
  auto wild = topic_pattern::parse("public/.*/eu");
  ASSERT_FALSE(wild);
  EXPECT_EQ(wild.error(), client_errc::invalid_topic_name);
}

}  // namespace
}  // namespace magnetar::client_detail
