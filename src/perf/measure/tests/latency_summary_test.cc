#include "perf/measure/latency_summary.h"

#include <gtest/gtest.h>

namespace magnetar::perf {
namespace {

TEST(latency_summary_millis, gives_percentiles_and_max_in_milliseconds) {
  base::histogram h(3'600'000'000, 3);
  for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);
  h.record(12'345);
  const nlohmann::json j = latency_summary_millis(h);
  EXPECT_DOUBLE_EQ(j["p50"].get<double>(), 0.501);
  EXPECT_DOUBLE_EQ(j["p95"].get<double>(), 0.951);
  EXPECT_DOUBLE_EQ(j["p99"].get<double>(), 0.991);
  EXPECT_DOUBLE_EQ(j["p999"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["max"].get<double>(), 12.345);
  EXPECT_EQ(j.dump(), R"({"max":12.345,"p50":0.501,"p95":0.951,"p99":0.991,"p999":1.0})");
}

TEST(latency_summary_millis, is_zero_for_an_empty_histogram) {
  const nlohmann::json j = latency_summary_millis(base::histogram(3'600'000'000, 3));
  for (const char* key : {"p50", "p95", "p99", "p999", "max"}) EXPECT_EQ(j[key].get<double>(), 0.0) << key;
}

TEST(latency_in_millis, gives_count_percentiles_max_and_mean) {
  base::histogram h(3'600'000'000, 3);
  h.record(1000);
  h.record(2000);
  const auto l = latency_in_millis(h);
  EXPECT_EQ(l.count, 2);
  EXPECT_DOUBLE_EQ(l.p50, 1.0);
  EXPECT_DOUBLE_EQ(l.p99, 2.0);
  EXPECT_DOUBLE_EQ(l.max, 2.0);
  EXPECT_DOUBLE_EQ(l.mean, 1.5);
}

TEST(latency_percentiles_line, prints_p50_p99_p999_and_max_with_two_decimals) {
  base::histogram h(3'600'000'000, 3);
  for (std::int64_t v = 1; v <= 1000; ++v) h.record(v);
  h.record(12'345);
  EXPECT_EQ(latency_percentiles_line(h), "p50 0.50 p99 0.99 p99.9 1.00 max 12.35");
}

TEST(latency_percentiles_line, is_zeros_for_an_empty_histogram) {
  EXPECT_EQ(latency_percentiles_line(base::histogram(3'600'000'000, 3)), "p50 0.00 p99 0.00 p99.9 0.00 max 0.00");
}

}  // namespace
}  // namespace magnetar::perf
