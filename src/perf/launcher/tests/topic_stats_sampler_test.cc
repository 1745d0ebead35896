#include "perf/launcher/topic_stats_sampler.h"
#include "perf/cluster/standalone_process.h"
#include "perf/launcher/admin_requests.h"

#include "http/client.h"

#include "perf/cluster/tests/test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace magnetar::perf {
namespace {

using testing::eventually;
using testing::read_text;
using testing::temp_dir;

TEST(topic_stats, one_row_per_subscription) {
  auto rows = parse_topic_stats("persistent://public/default/t", R"({
    "msgInCounter": 100, "msgOutCounter": 150,
    "subscriptions": {"a": {"msgBacklog": 3, "msgOutCounter": 97}, "b": {"msgBacklog": 47, "msgOutCounter": 53}}})");
  ASSERT_TRUE(rows) << rows.error();
  ASSERT_EQ(rows.value().size(), 2u);
  EXPECT_EQ(topic_stats_csv_line(1, rows.value()[0]), "1,persistent://public/default/t,a,3,100,97");
  EXPECT_EQ(topic_stats_csv_line(1, rows.value()[1]), "1,persistent://public/default/t,b,47,100,53");
}

TEST(topic_stats, a_topic_without_subscriptions_gets_one_row) {
  auto rows = parse_topic_stats("persistent://public/default/t",
                                R"({"msgInCounter": 5, "msgOutCounter": 0, "subscriptions": {}})");
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows.value().size(), 1u);
  EXPECT_EQ(topic_stats_csv_line(9, rows.value()[0]), "9,persistent://public/default/t,,0,5,0");
}

TEST(broker_metrics, cache_counters_are_summed_over_their_labels) {
  const auto sample = parse_broker_metrics(
      "# TYPE magnetar_ml_cache_hits_total counter\n"
      "magnetar_ml_cache_hits_total{cluster=\"a\"} 5\n"
      "magnetar_ml_cache_hits_total{cluster=\"b\"} 7\n"
      "magnetar_ml_cache_misses_total{cluster=\"a\"} 2\n"
      "magnetar_ml_cache_inserts_total{cluster=\"a\",x=\"}\"} 9\n"
      "magnetar_ml_cache_evictions_total 1 1700000000000\n"
      "pulsar_ml_cache_used_size{cluster=\"a\"} 4096\n"
      "pulsar_rate_in{cluster=\"a\"} 100\n");
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->cache_hits, 12);
  EXPECT_EQ(sample->cache_misses, 2);
  EXPECT_EQ(sample->cache_inserts, 9);
  EXPECT_EQ(sample->cache_evictions, 1);
  EXPECT_EQ(sample->cache_bytes, 4096);
  EXPECT_EQ(sample->msg_rate_in, 100);
  EXPECT_EQ(broker_metrics_csv_line(1000, "broker-0", *sample), "1000,broker-0,12,2,9,1,4096,100.0,0.0");
}

TEST(broker_metrics, a_broker_without_the_families_has_no_sample) {
  EXPECT_FALSE(parse_broker_metrics("pulsar_ml_cache_used_size{cluster=\"a\"} 4096\npulsar_topics_count 1\n"));
}

TEST(bookie_metrics, successful_adds_and_journal_syncs_are_counted_and_timed) {
  const auto sample = parse_bookie_metrics(
      "bookkeeper_server_ADD_ENTRY_REQUEST_count{success=\"true\"} 7\n"
      "bookkeeper_server_ADD_ENTRY_REQUEST_count{success=\"false\"} 2\n"
      "bookkeeper_server_ADD_ENTRY_REQUEST_sum{success=\"true\"} 3.5\n"
      "bookie_journal_JOURNAL_SYNC_count{success=\"true\"} 4\n"
      "bookie_journal_JOURNAL_SYNC_sum{success=\"true\"} 2.5\n");
  ASSERT_TRUE(sample);
  EXPECT_EQ(sample->adds, 7);
  EXPECT_EQ(bookie_metrics_csv_line(5, "bookie-1", *sample), "5,bookie-1,7,3.500,4,2.500");
}

TEST(topic_stats, a_body_that_is_not_json_is_an_error) {
  EXPECT_FALSE(parse_topic_stats("persistent://public/default/t", "<html>"));
}

TEST(topic_stats, the_admin_path_of_a_topic) {
  EXPECT_EQ(topic_stats_path("persistent://public/default/iot-0").value(),
            "/admin/v2/persistent/public/default/iot-0/stats");
  EXPECT_EQ(topic_stats_path("non-persistent://t/n/x").value(), "/admin/v2/non-persistent/t/n/x/stats");
  EXPECT_FALSE(topic_stats_path("public/default/x"));
  EXPECT_FALSE(topic_stats_path("persistent://public/x"));
}

TEST(topic_stats, the_local_name_stays_one_path_segment) {
  EXPECT_EQ(topic_stats_path("persistent://t/n/a b?c").value(), "/admin/v2/persistent/t/n/a%20b%3Fc/stats");
}

TEST(topic_stats, the_namespace_of_a_topic) {
  auto ns = namespace_of("persistent://acme/iot/t-0");
  ASSERT_TRUE(ns) << ns.error();
  EXPECT_EQ(ns.value().tenant, "acme");
  EXPECT_EQ(ns.value().name, "iot");
}

TEST(topic_stats, a_name_without_its_domain_has_no_namespace) { EXPECT_FALSE(namespace_of("acme/iot/t-0")); }

// One standalone for the tests that talk to a broker.
class sampler_against_standalone : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::filesystem::path bin = MAGNETAR_TEST_MAGNETAR_BIN;
    if (!std::filesystem::exists(bin)) return;
    _dir = new temp_dir();
    auto started = standalone_process::start({.magnetar_bin = bin, .directory = _dir->path() / "standalone"});
    ASSERT_TRUE(started) << started.error();
    _standalone = new standalone_process(std::move(started).value());
  }
  static void TearDownTestSuite() {
    delete _standalone;
    delete _dir;
    _standalone = nullptr;
    _dir = nullptr;
  }
  void SetUp() override {
    if (_standalone == nullptr) GTEST_SKIP() << MAGNETAR_TEST_MAGNETAR_BIN << " is not built; skipped";
    _admin = http::url::parse(_standalone->admin_url()).value();
  }

  static inline temp_dir* _dir = nullptr;
  static inline standalone_process* _standalone = nullptr;
  http::url _admin;
  temp_dir _out;
};

TEST_F(sampler_against_standalone, a_topic_that_does_not_exist_writes_no_rows) {
  std::vector<std::string> errors;
  topic_stats_sampler sampler({.admin = _admin,
                               .topics = {"persistent://public/default/never-created"},
                               .csv_file = _out.path() / "topic-stats.csv",
                               .interval = std::chrono::milliseconds(20),
                               .on_error = [&](std::string_view e) { errors.emplace_back(e); }});
  ASSERT_TRUE(sampler.start());
  ASSERT_TRUE(eventually([&] { return sampler.samples() >= 3; }));
  sampler.stop();
  EXPECT_EQ(sampler.rows(), 0);
  EXPECT_EQ(sampler.errors(), 0);
  EXPECT_TRUE(errors.empty());
  EXPECT_FALSE(sampler.latest_backlog());
  EXPECT_EQ(read_text(_out.path() / "topic-stats.csv"), std::string(topic_stats_sampler::csv_header) + "\n");
}

TEST_F(sampler_against_standalone, a_created_topic_gets_rows) {
  topic_stats_sampler sampler({.admin = _admin,
                               .topics = {"persistent://public/default/x"},
                               .csv_file = _out.path() / "topic-stats.csv",
                               .interval = std::chrono::milliseconds(20)});
  ASSERT_TRUE(sampler.start());
  auto created = http::call(_admin, "PUT", "/admin/v2/persistent/public/default/x");
  ASSERT_TRUE(created) << created.error();
  ASSERT_LT(created.value().status, 300) << created.value().body;
  ASSERT_TRUE(eventually([&] { return sampler.rows() > 0; }));
  sampler.stop();
  EXPECT_EQ(sampler.latest_backlog(), 0);
  const auto csv = read_text(_out.path() / "topic-stats.csv");
  EXPECT_NE(csv.find(",persistent://public/default/x,,0,0,0\n"), std::string::npos) << csv;
}

TEST_F(sampler_against_standalone, the_brokers_cache_counters_go_to_the_metrics_file) {
  topic_stats_sampler sampler({.admin = _admin,
                               .topics = {"persistent://public/default/x"},
                               .csv_file = _out.path() / "topic-stats.csv",
                               .metrics_csv_file = _out.path() / "broker-metrics.csv",
                               .interval = std::chrono::milliseconds(20)});
  ASSERT_TRUE(sampler.start());
  ASSERT_TRUE(eventually([&] { return sampler.metrics_lines() >= 2; }));
  sampler.stop();
  const auto csv = read_text(_out.path() / "broker-metrics.csv");
  EXPECT_EQ(csv.rfind(std::string(broker_metrics_csv_header) + "\n", 0), 0u) << csv;
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), sampler.metrics_lines() + 1) << csv;
}

TEST_F(sampler_against_standalone, a_topic_that_does_not_replicate_leaves_the_replication_file_its_header) {
  topic_stats_sampler sampler({.admin = _admin,
                               .topics = {"persistent://public/default/x"},
                               .csv_file = _out.path() / "topic-stats.csv",
                               .interval = std::chrono::milliseconds(20),
                               .replication_csv_file = _out.path() / "replication-stats.csv"});
  ASSERT_TRUE(sampler.start());
  auto created = http::call(_admin, "PUT", "/admin/v2/persistent/public/default/x");
  ASSERT_TRUE(created) << created.error();
  ASSERT_TRUE(eventually([&] { return sampler.rows() > 0; }));
  sampler.stop();
  EXPECT_FALSE(sampler.latest_replication_backlog());
  EXPECT_EQ(read_text(_out.path() / "replication-stats.csv"), std::string(replication_stats_csv_header) + "\n");
}

TEST_F(sampler_against_standalone, the_namespace_of_a_topic_is_created_once) {
  auto first = ensure_namespace(_admin, "persistent://public/perf-launcher-test/t");
  ASSERT_TRUE(first) << first.error();
  EXPECT_TRUE(first.value());
  auto again = ensure_namespace(_admin, "persistent://public/perf-launcher-test/t");
  ASSERT_TRUE(again) << again.error();
  EXPECT_FALSE(again.value());
}

TEST(topic_stats_sampler, an_unreachable_admin_is_reported_once) {
  temp_dir out;
  std::vector<std::string> errors;
  topic_stats_sampler sampler({.admin = {.host = "127.0.0.1", .port = 1},
                               .topics = {"persistent://public/default/x"},
                               .csv_file = out.path() / "topic-stats.csv",
                               .interval = std::chrono::milliseconds(20),
                               .on_error = [&](std::string_view e) { errors.emplace_back(e); }});
  ASSERT_TRUE(sampler.start());
  ASSERT_TRUE(eventually([&] { return sampler.errors() >= 2; }));
  sampler.stop();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].find("127.0.0.1:1"), std::string::npos) << errors[0];
}

}  // namespace
}  // namespace magnetar::perf
