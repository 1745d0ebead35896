#include "perf/bench/perf_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

using ::testing::HasSubstr;

TEST(perf_options_test, compressions_go_by_pulsar_perf_names) {
  EXPECT_EQ(compression_of("none").value(), compression_type::none);
  EXPECT_EQ(compression_of("lz4").value(), compression_type::lz4);
  EXPECT_EQ(compression_of("zstd").value(), compression_type::zstd);
}

TEST(perf_options_test, an_unknown_compression_names_the_choices) {
  auto parsed = compression_of("gzip");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), base::errc::invalid_argument);
  EXPECT_EQ(parsed.error().detail(), "compression 'gzip': use none, lz4 or zstd");
}

TEST(perf_options_test, subscription_types_go_by_pulsar_perf_names) {
  EXPECT_EQ(subscription_type_of("Exclusive").value(), subscription_type::exclusive);
  EXPECT_EQ(subscription_type_of("Shared").value(), subscription_type::shared);
  EXPECT_EQ(subscription_type_of("Failover").value(), subscription_type::failover);
  EXPECT_EQ(subscription_type_of("Key_Shared").value(), subscription_type::key_shared);
}

TEST(perf_options_test, an_unknown_subscription_type_names_the_choices) {
  auto parsed = subscription_type_of("key_shared");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("use Exclusive, Shared, Failover or Key_Shared"));
}

}  // namespace
}  // namespace magnetar::perf
