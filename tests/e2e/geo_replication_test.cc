// End to end: geo-replication between two clusters run as Pulsar users run them, each
// with its own ZooKeeper, bookie and brokers, sharing a configuration store (the east
// cluster's ZooKeeper, as a small deployment shares it). `public/default` is replicated
// to both; every test checks that each message arrives once in each cluster, in the
// order its producer sent it, whatever happens to the link or the brokers.
#include "http/client.h"
#include "io/temp_directory.h"
#include "magnetar/client.h"
#include "testing/child_process.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/bookie_process.h"
#include "tests/e2e/standalone_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::e2e {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// One cluster: its ZooKeeper, one bookie, and `broker_count` brokers.
struct region {
  std::string name;
  std::unique_ptr<magnetar::testing::zookeeper_server> zookeeper;
  std::unique_ptr<bookie_process> bookie;
  std::vector<std::unique_ptr<standalone_process>> brokers;

  // Every running broker, so that a client finds one that is up.
  std::string service_url() const {
    std::string out;
    for (const auto& b : brokers) {
      if (!b->running()) continue;
      out += out.empty() ? b->service_url() : "," + b->service_url().substr(std::string("pulsar://").size());
    }
    return out;
  }
  const standalone_process& any_broker() const {
    for (const auto& b : brokers) {
      if (b->running()) return *b;
    }
    return *brokers.front();
  }
};

class geo_replication : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    ASSERT_NO_FATAL_FAILURE(start_region(east, "east", 1));
    ASSERT_NO_FATAL_FAILURE(start_region(west, "west", 2));
    // The clusters' real URLs (the brokers took free ports), the tenant allowed in both,
    // and the namespace replicated to both: through either cluster's admin API, since
    // they share the configuration store.
    for (const auto* r : {&east, &west}) {
      admin(east, "POST", "/admin/v2/clusters/" + r->name,
            json{{"serviceUrl", r->brokers[0]->web_url()}, {"brokerServiceUrl", r->service_url()}});
    }
    admin(west, "POST", "/admin/v2/tenants/public",
          json{{"adminRoles", json::array()}, {"allowedClusters", {"east", "west"}}});
    admin(east, "POST", "/admin/v2/namespaces/public/default/replication", json{"east", "west"});
  }

  void start_region(region& r, const std::string& name, int broker_count) {
    r.name = name;
    const std::filesystem::path home = dir / name;
    r.zookeeper = std::make_unique<magnetar::testing::zookeeper_server>((home / "zookeeper").string());
    std::string why;
    ASSERT_TRUE(r.zookeeper->start(&why)) << why;
    r.bookie = std::make_unique<bookie_process>((home / "bookie").string(), r.zookeeper->address());
    ASSERT_TRUE(r.bookie->start()) << r.bookie->log();
    const auto configuration = "zk:" + east.zookeeper->address();
    magnetar::testing::child_process init;
    const auto init_log = home / "initialize.log";
    const std::vector<std::string> argv{MAGNETAR_BINARY,
                                        "initialize-cluster-metadata",
                                        "--cluster",
                                        name,
                                        "--metadata-store",
                                        "zk:" + r.zookeeper->address(),
                                        "--configuration-metadata-store",
                                        configuration,
                                        "--web-service-url",
                                        "http://127.0.0.1:8080",
                                        "--broker-service-url",
                                        "pulsar://127.0.0.1:6650"};
    ASSERT_TRUE(init.start(argv, init_log.string()));
    ASSERT_EQ(init.wait(60s), 0) << read(init_log);
    const auto conf = home / "broker.conf";
    std::ofstream(conf) << "clusterName=" << name << "\nmetadataStoreUrl=zk:" << r.zookeeper->address() << "\n"
                        << "configurationMetadataStoreUrl=" << configuration << "\n"
                        << "advertisedAddress=127.0.0.1\nmetadataStoreSessionTimeoutMillis=6000\n"
                        << "loadBalancerEnabled=false\n";
    for (int i = 0; i < broker_count; ++i) {
      const auto broker_dir = home / fmt::format("broker-{}", i);
      std::filesystem::create_directories(broker_dir);
      r.brokers.push_back(std::make_unique<standalone_process>(
          MAGNETAR_BINARY, broker_dir, std::vector<std::string>{"--config", conf.string()}, "broker"));
      ASSERT_NO_FATAL_FAILURE(r.brokers.back()->start());
    }
  }

  json admin(const region& r, const std::string& method, const std::string& target, const json& body = nullptr) {
    auto reply = http::call(http::url::parse(r.any_broker().web_url()).value(), method, target,
                            body.is_null() ? std::string() : body.dump(), {.max_redirects = 3});
    EXPECT_TRUE(reply) << reply.error();
    if (!reply) return nullptr;
    EXPECT_LT(reply.value().status, 300) << method << " " << target << ": " << reply.value().body;
    return json::parse(reply.value().body, nullptr, false);
  }

  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  // Sends "<prefix><i>" keyed "k<i % 10>" for i in [0, count), waiting for every
  // receipt; `during(i)` runs after the i-th send.
  static void produce(const region& r, const std::string& topic, const std::string& prefix, int count,
                      const std::function<void(int)>& during = {}) {
    auto c = client::create(r.service_url());
    ASSERT_TRUE(c) << c.error();
    producer_config config;
    config.send_timeout = 0ms;
    config.block_if_queue_full = true;
    config.batching_max_delay = 1ms;
    auto p = c.value().create_producer(topic, config);
    ASSERT_TRUE(p) << p.error();
    std::atomic<int> failed{0};
    for (int i = 0; i < count; ++i) {
      p.value().send_async(
          message_builder().key(fmt::format("k{}", i % 10)).payload(prefix + std::to_string(i)).build(),
          [&failed](result<message_id> id) {
            if (!id) ++failed;
          });
      if (during) during(i);
    }
    ASSERT_TRUE(p.value().flush());
    EXPECT_EQ(failed.load(), 0);
  }

  // What a new subscription from the topic's start receives in `r` until `count`
  // messages came or none came for 45 s (a broker's failover takes a few seconds), then
  // anything more within `settle`: the payloads by key, in the order delivered.
  static std::map<std::string, std::vector<std::string>> consume(const region& r, const std::string& topic,
                                                                 std::size_t count, std::size_t* total,
                                                                 std::chrono::milliseconds settle = 0ms) {
    std::map<std::string, std::vector<std::string>> by_key;
    *total = 0;
    auto c = client::create(r.service_url());
    EXPECT_TRUE(c) << c.error();
    if (!c) return by_key;
    consumer_config config;
    config.position = initial_position::earliest;
    auto cons = c.value().subscribe(topic, "check", config);
    EXPECT_TRUE(cons) << cons.error();
    if (!cons) return by_key;
    while (*total < count) {
      auto m = cons.value().receive(45s);
      if (!m) break;
      by_key[m.value().key()].emplace_back(m.value().payload());
      ++*total;
    }
    while (settle.count() > 0) {
      auto m = cons.value().receive(settle);
      if (!m) break;
      by_key[m.value().key()].emplace_back(m.value().payload());
      ++*total;
    }
    return by_key;
  }

  // Per key, "<prefix><i>" for the i that key gets, in order.
  static std::map<std::string, std::vector<std::string>> expected(const std::string& prefix, int count) {
    std::map<std::string, std::vector<std::string>> out;
    for (int i = 0; i < count; ++i) out[fmt::format("k{}", i % 10)].push_back(prefix + std::to_string(i));
    return out;
  }

  io::temp_directory dir{"geo-e2e"};
  region east;
  region west;
};

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
  for (const auto* r : {&east, &west}) {
    std::size_t total = 0;
    // A loop would bring messages back: wait past the replication of the last ones.
    auto got = consume(*r, topic, 1000, &total, 3s);
    EXPECT_EQ(total, 1000u) << r->name;
    std::map<std::string, std::vector<std::string>> from_east;
    std::map<std::string, std::vector<std::string>> from_west;
    for (const auto& [key, payloads] : got) {
      for (const auto& p : payloads) (p.starts_with("east-") ? from_east : from_west)[key].push_back(p);
    }
    EXPECT_EQ(from_east, expected("east-", 500)) << r->name;
    EXPECT_EQ(from_west, expected("west-", 500)) << r->name;
  }
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
