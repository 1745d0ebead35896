// End to end: geo-replication between two clusters (tests/e2e/geo_fixture.h: each with
// its own ZooKeeper, bookie and brokers, sharing a configuration store). `public/default`
// is replicated to both; every test checks that each message arrives once in each
// cluster, in the order its producer sent it, whatever happens to the link or the brokers.
#include "tests/e2e/geo_fixture.h"

#include <thread>

namespace magnetar::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

TEST_F(geo_replication, messages_reach_the_other_cluster_once_in_order_with_key_properties_and_times) {
  const auto topic = "persistent://public/default/one-way";
  auto c = client::create(east.service_url());
  ASSERT_TRUE(c) << c.error();
  auto p = c.value().create_producer(topic);
  ASSERT_TRUE(p) << p.error();
  auto sent = p.value().send(message_builder()
                                 .key("device-7")
                                 .property("unit", "celsius")
                                 .event_time(1'700'000'000'000)
                                 .payload("21.5")
                                 .build());
  ASSERT_TRUE(sent) << sent.error();

  auto w = client::create(west.service_url());
  ASSERT_TRUE(w) << w.error();
  consumer_config config;
  config.position = initial_position::earliest;
  auto cons = w.value().subscribe(topic, "check", config);
  ASSERT_TRUE(cons) << cons.error();
  auto m = cons.value().receive(60s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "21.5");
  EXPECT_EQ(m.value().key(), "device-7");
  EXPECT_EQ(m.value().properties().at("unit"), "celsius");
  EXPECT_EQ(m.value().event_time(), 1'700'000'000'000u);
  // The publish time is the original's: end-to-end latency is measured from it.
  auto e = c.value().subscribe(topic, "check", config);
  ASSERT_TRUE(e) << e.error();
  auto original = e.value().receive(60s);
  ASSERT_TRUE(original) << original.error();
  EXPECT_EQ(m.value().publish_time(), original.value().publish_time());
  EXPECT_EQ(m.value().producer_name(), original.value().producer_name());

  // The sending side's stats show the replicator, the receiving side's what came in.
  const auto out = admin(east, "GET", "/admin/v2/persistent/public/default/one-way/stats");
  ASSERT_TRUE(out.contains("replication") && out["replication"].contains("west")) << out;
  EXPECT_EQ(out["replication"]["west"]["replicationBacklog"], 0) << out;
  EXPECT_EQ(out["replication"]["west"]["connected"], true) << out;
  auto metrics = http::call(http::url::parse(east.any_broker().web_url()).value(), "GET", "/metrics", {}, {});
  ASSERT_TRUE(metrics) << metrics.error();
  EXPECT_NE(metrics.value().body.find("pulsar_replication_connected_count{cluster=\"east\",namespace=\"public/"
                                      "default\",topic=\"persistent://public/default/one-way\",remote_cluster="
                                      "\"west\"} 1"),
            std::string::npos)
      << metrics.value().body;
}

TEST_F(geo_replication, both_ways_every_message_arrives_once_in_each_cluster_and_never_comes_back) {
  const auto topic = "persistent://public/default/both-ways";
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "east-", 500));
  ASSERT_NO_FATAL_FAILURE(produce(west, topic, "west-", 500));
  expect_both_ways_in_each_cluster(topic, 500);
}

TEST_F(geo_replication, a_partitioned_topic_replicates_partition_by_partition) {
  const auto topic = "persistent://public/default/partitioned";
  auto reply = http::call(http::url::parse(east.any_broker().web_url()).value(), "PUT",
                          "/admin/v2/persistent/public/default/partitioned/partitions", "3");
  ASSERT_TRUE(reply && reply.value().status < 300) << (reply ? reply.value().body : reply.error().message());
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "m", 900));
  std::size_t total = 0;
  auto got = consume(west, topic, 900, &total);
  EXPECT_EQ(total, 900u);
  EXPECT_EQ(got, expected("m", 900));
}

TEST_F(geo_replication, a_remote_broker_killed_mid_stream_loses_and_duplicates_nothing) {
  const auto topic = "persistent://public/default/remote-killed";
  // The topic exists in west, owned by one of its brokers, before the stream starts.
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "warm-", 10));
  std::size_t warm = 0;
  consume(west, topic, 10, &warm);
  ASSERT_EQ(warm, 10u);
  const auto lookup = admin(west, "GET", "/lookup/v2/topic/persistent/public/default/remote-killed");
  const auto owner_url = lookup.value("brokerUrl", "");
  int owner = -1;
  for (int i = 0; i < 2; ++i) {
    if (west.brokers[i]->service_url() == owner_url) owner = i;
  }
  ASSERT_GE(owner, 0) << lookup;
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "m", 3000, [&](int i) {
    if (i == 1000) west.brokers[owner]->kill_now();
  }));
  std::size_t total = 0;
  auto got = consume(west, topic, 3010, &total, 3s);
  EXPECT_EQ(total, 3010u);
  auto want = expected("m", 3000);
  for (const auto& [key, payloads] : expected("warm-", 10)) {
    want[key].insert(want[key].begin(), payloads.begin(), payloads.end());
  }
  EXPECT_EQ(got, want);
}

// The replicating topic moves (an unload: the owner closes it, and whoever loads it next
// resumes from its replication cursor) while entries are on their way.
TEST_F(geo_replication, a_topic_unloaded_mid_stream_resumes_replication_from_its_cursor) {
  const auto topic = "persistent://public/default/unloaded";
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "m", 2000, [&](int i) {
    if (i % 500 == 250) admin(east, "PUT", "/admin/v2/persistent/public/default/unloaded/unload");
  }));
  std::size_t total = 0;
  auto got = consume(west, topic, 2000, &total, 3s);
  EXPECT_EQ(total, 2000u);
  EXPECT_EQ(got, expected("m", 2000));
}

// The remote cluster hangs for 30 s (its brokers stopped by SIGSTOP: the link carries
// nothing and nothing answers, as in a partition, and the replicator's connection goes
// silent rather than failing): what was published meanwhile arrives once the remote
// comes back, once, in order.
TEST_F(geo_replication, a_remote_cluster_cut_off_for_30_s_gets_everything_once_it_is_back) {
  const auto topic = "persistent://public/default/cut-off";
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "m", 200));
  for (auto& b : west.brokers) b->pause();
  const auto resume_at = std::chrono::steady_clock::now() + 30s;
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "cut-", 1000));
  std::this_thread::sleep_until(resume_at);  // the fault's length is the test's subject
  for (auto& b : west.brokers) b->resume();
  std::size_t total = 0;
  auto got = consume(west, topic, 1200, &total, 3s);
  EXPECT_EQ(total, 1200u);
  auto want = expected("m", 200);
  for (const auto& [key, payloads] : expected("cut-", 1000))
    want[key].insert(want[key].end(), payloads.begin(), payloads.end());
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace magnetar::e2e
