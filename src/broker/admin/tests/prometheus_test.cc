// prometheus: Pulsar's metric names, labels, HELP/TYPE lines and escaping.
#include "broker/admin/prometheus.h"

#include "mledger/storage_write_stats.h"

#include <gmock/gmock.h>

namespace magnetar::broker::admin {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::map<std::string, topic_stats> one_topic() {
  topic_stats t;
  t.msg_rate_in = 2.5;
  t.msg_in_counter = 10;
  t.bytes_in_counter = 1000;
  t.msg_out_counter = 4;
  t.storage_size = 2048;
  t.publishers.resize(1);
  subscription_stats s{.type = "Shared", .msg_backlog = 6, .unacked_messages = 3, .msg_delayed = 2};
  s.consumers.resize(2);
  t.subscriptions["sub-a"] = s;
  return {{"persistent://public/default/t1", t}};
}

TEST(prometheus, topic_metrics_carry_cluster_namespace_and_topic_labels) {
  auto text = render_metrics("standalone", one_topic(), {});
  const std::string labels =
      R"({cluster="standalone",namespace="public/default",topic="persistent://public/default/t1"})";
  EXPECT_THAT(text, HasSubstr("pulsar_rate_in" + labels + " 2.5\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_in_messages_total" + labels + " 10\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_in_bytes_total" + labels + " 1000\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_out_messages_total" + labels + " 4\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_size" + labels + " 2048\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_msg_backlog" + labels + " 6\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_producers_count" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_consumers_count" + labels + " 2\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_subscriptions_count" + labels + " 1\n"));
}

TEST(prometheus, the_storage_bucket_bounds_are_upstreams) {
  // Pinned here as values, since the rendering test below takes its buckets from the table.
  const auto& latency = mledger::storage_write_stats::latency_bounds_us;
  EXPECT_EQ(base::values_of(latency),
            (std::vector<std::int64_t>{500, 1'000, 5'000, 10'000, 20'000, 50'000, 100'000, 200'000, 1'000'000}));
  const auto& sizes = mledger::storage_write_stats::entry_size_bounds;
  EXPECT_EQ(base::values_of(sizes),
            (std::vector<std::int64_t>{128, 512, 1 << 10, 2 << 10, 4 << 10, 16 << 10, 100 << 10, 1 << 20}));
}

TEST(prometheus, storage_writes_of_the_last_interval_use_upstreams_bucket_names) {
  auto topics = one_topic();
  auto& t = topics.begin()->second;
  base::stats_buckets latency(base::values_of(mledger::storage_write_stats::latency_bounds_us));
  latency.record(300);
  latency.record(800);
  latency.record(2'000'000);
  t.storage_write_latency_us = latency;
  t.storage_ledger_write_latency_us = latency;
  base::stats_buckets sizes(base::values_of(mledger::storage_write_stats::entry_size_bounds));
  sizes.record(100);
  t.entry_size = sizes;
  auto text = render_metrics("standalone", topics, {});
  const std::string labels =
      R"({cluster="standalone",namespace="public/default",topic="persistent://public/default/t1"})";
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_le_0_5" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_le_1" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_le_1000" + labels + " 0\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_overflow" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_count" + labels + " 3\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_write_latency_sum" + labels + " 2001100\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_storage_ledger_write_latency_le_0_5" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_entry_size_le_128" + labels + " 1\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_entry_size_le_1_mb" + labels + " 0\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_entry_size_le_overflow" + labels + " 0\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE pulsar_entry_size_sum gauge\n"));
}

TEST(prometheus, every_storage_write_family_is_typed_once_under_upstreams_name) {
  auto text = render_metrics("standalone", one_topic(), {});
  std::vector<std::string> names;
  for (const std::string prefix : {"pulsar_storage_write_latency", "pulsar_storage_ledger_write_latency"}) {
    for (const char* bound : {"0_5", "1", "5", "10", "20", "50", "100", "200", "1000"}) {
      names.push_back(prefix + "_le_" + bound);
    }
    for (const char* suffix : {"_overflow", "_count", "_sum"}) names.push_back(prefix + suffix);
  }
  for (const char* suffix : {"_le_128", "_le_512", "_le_1_kb", "_le_2_kb", "_le_4_kb", "_le_16_kb", "_le_100_kb",
                             "_le_1_mb", "_le_overflow", "_count", "_sum"}) {
    names.push_back(std::string("pulsar_entry_size") + suffix);
  }
  ASSERT_EQ(names.size(), 35u);
  for (const auto& name : names) {
    const auto type = "# TYPE " + name + " gauge\n";
    const auto first = text.find(type);
    EXPECT_NE(first, std::string::npos) << name;
    EXPECT_EQ(text.find(type, first + 1), std::string::npos) << name;
  }
}

TEST(prometheus, a_topic_before_its_first_stats_interval_has_no_storage_write_samples) {
  auto text = render_metrics("standalone", one_topic(), {});
  EXPECT_THAT(text, Not(HasSubstr("pulsar_storage_write_latency_le_0_5{")));
}

TEST(prometheus, subscription_metrics_add_the_subscription_label) {
  auto text = render_metrics("standalone", one_topic(), {});
  const std::string labels =
      R"({cluster="standalone",namespace="public/default",topic="persistent://public/default/t1",subscription="sub-a"})";
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_back_log" + labels + " 6\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_unacked_messages" + labels + " 3\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_delayed" + labels + " 2\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_consumers_count" + labels + " 2\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_msg_rate_out" + labels));
  EXPECT_THAT(text, HasSubstr("pulsar_subscription_msg_throughput_out" + labels));
}

TEST(prometheus, broker_metrics_use_pulsars_names) {
  broker_metrics b{.active_connections = 3, .total_connections = 9, .topics = 1, .cache_size_bytes = 4096};
  auto text = render_metrics("c1", one_topic(), b);
  EXPECT_THAT(text, HasSubstr("pulsar_active_connections{cluster=\"c1\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_connection_created_total_count{cluster=\"c1\"} 9\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_ml_cache_used_size{cluster=\"c1\"} 4096\n"));
  EXPECT_THAT(text, HasSubstr("pulsar_topics_count{cluster=\"c1\",namespace=\"public/default\"} 1\n"));
}

TEST(prometheus, entry_cache_counters_are_totals) {
  broker_metrics b{.cache_hits = 5, .cache_misses = 2, .cache_inserts = 7, .cache_evictions = 1};
  auto text = render_metrics("c1", one_topic(), b);
  EXPECT_THAT(text, HasSubstr("# TYPE magnetar_ml_cache_inserts_total counter\n"));
  EXPECT_THAT(text, HasSubstr("magnetar_ml_cache_hits_total{cluster=\"c1\"} 5\n"));
  EXPECT_THAT(text, HasSubstr("magnetar_ml_cache_misses_total{cluster=\"c1\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("magnetar_ml_cache_inserts_total{cluster=\"c1\"} 7\n"));
  EXPECT_THAT(text, HasSubstr("magnetar_ml_cache_evictions_total{cluster=\"c1\"} 1\n"));
}

TEST(prometheus, every_family_has_help_and_type_once) {
  auto text = render_metrics("standalone", one_topic(), {});
  EXPECT_THAT(text, HasSubstr("# HELP pulsar_rate_in "));
  EXPECT_THAT(text, HasSubstr("# TYPE pulsar_rate_in gauge\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE pulsar_in_messages_total counter\n"));
  auto first = text.find("# TYPE pulsar_rate_in ");
  EXPECT_EQ(text.find("# TYPE pulsar_rate_in ", first + 1), std::string::npos);
}

TEST(prometheus, label_values_are_escaped) {
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  std::map<std::string, topic_stats> topics{{"persistent://public/default/q\"x", topic_stats{}}};
  auto text = render_metrics("standalone", topics, {});
  EXPECT_THAT(text, HasSubstr(R"(topic="persistent://public/default/q\"x")"));
  EXPECT_THAT(text, Not(HasSubstr("q\"x\"")));
}

TEST(prometheus, no_topics_still_renders_broker_metrics) {
  auto text = render_metrics("standalone", {}, {});
  EXPECT_THAT(text, HasSubstr("pulsar_active_connections{cluster=\"standalone\"} 0\n"));
  EXPECT_THAT(text, Not(HasSubstr("pulsar_rate_in{")));
}

}  // namespace
}  // namespace magnetar::broker::admin
