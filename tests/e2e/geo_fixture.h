// geo_fixture: two clusters run as Pulsar users run them, for geo-replication's
// end-to-end tests: each with its own ZooKeeper, bookie and brokers (east one, west two),
// sharing a configuration store (east's ZooKeeper, as a small deployment shares it), with
// `public/default` replicated to both. Subclasses add broker configuration (TLS, tokens)
// through the hooks; produce() and consume() check what arrives where. All of it ends
// with the test.
#pragma once

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
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::e2e {

// One cluster: its ZooKeeper, one bookie, and its brokers.
struct region {
  std::string name;
  std::unique_ptr<magnetar::testing::zookeeper_server> zookeeper;
  std::unique_ptr<bookie_process> bookie;
  std::vector<std::unique_ptr<standalone_process>> brokers;

  // Every running broker (pulsar+ssl:// ones with `tls`), so that a client finds one
  // that is up.
  std::string service_url(bool tls = false) const {
    std::string out;
    for (const auto& b : brokers) {
      if (!b->running()) continue;
      const auto& url = tls ? b->service_url_tls() : b->service_url();
      out += out.empty() ? url : "," + url.substr(url.find("://") + 3);
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
  using json = nlohmann::json;

  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    ASSERT_NO_FATAL_FAILURE(start_region(east, "east", 1));
    ASSERT_NO_FATAL_FAILURE(start_region(west, "west", 2));
    // The clusters' real URLs (the brokers took free ports), the tenant allowed in both,
    // and the namespace replicated to both: through either cluster's admin API, since
    // they share the configuration store.
    for (const auto* r : {&east, &west}) admin(east, "POST", "/admin/v2/clusters/" + r->name, cluster_data(*r));
    admin(west, "POST", "/admin/v2/tenants/public",
          json{{"adminRoles", json::array()}, {"allowedClusters", {"east", "west"}}});
    admin(east, "POST", "/admin/v2/namespaces/public/default/replication", json{"east", "west"});
  }

  // Hooks: lines added to every broker's configuration file; what a cluster is
  // registered with; the service URL and client configuration the tests' clients use;
  // the admin calls' options (credentials, trust).
  virtual std::string broker_extra_config() { return {}; }
  virtual json cluster_data(const region& r) {
    return json{{"serviceUrl", r.brokers[0]->web_url()}, {"brokerServiceUrl", r.service_url()}};
  }
  virtual std::string client_url(const region& r) { return r.service_url(); }
  virtual client_config client_settings() { return {}; }
  virtual std::string admin_url(const region& r) { return r.any_broker().web_url(); }
  virtual http::call_options admin_options() { return {}; }

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
    ASSERT_EQ(init.wait(std::chrono::seconds(60)), 0) << read(init_log);
    const auto conf = home / "broker.conf";
    std::ofstream(conf) << "clusterName=" << name << "\nmetadataStoreUrl=zk:" << r.zookeeper->address() << "\n"
                        << "configurationMetadataStoreUrl=" << configuration << "\n"
                        << "advertisedAddress=127.0.0.1\nmetadataStoreSessionTimeoutMillis=6000\n"
                        << "loadBalancerEnabled=false\n"
                        << broker_extra_config();
    for (int i = 0; i < broker_count; ++i) {
      const auto broker_dir = home / fmt::format("broker-{}", i);
      std::filesystem::create_directories(broker_dir);
      r.brokers.push_back(std::make_unique<standalone_process>(
          MAGNETAR_BINARY, broker_dir, std::vector<std::string>{"--config", conf.string()}, "broker"));
      ASSERT_NO_FATAL_FAILURE(r.brokers.back()->start());
    }
  }

  json admin(const region& r, const std::string& method, const std::string& target, const json& body = nullptr) {
    auto options = admin_options();
    options.max_redirects = 3;
    auto reply = http::call(http::url::parse(admin_url(r)).value(), method, target,
                            body.is_null() ? std::string() : body.dump(), options);
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
  void produce(const region& r, const std::string& topic, const std::string& prefix, int count,
               const std::function<void(int)>& during = {}) {
    auto c = client::create(client_url(r), client_settings());
    ASSERT_TRUE(c) << c.error();
    producer_config config;
    config.send_timeout = std::chrono::milliseconds(0);
    config.block_if_queue_full = true;
    config.batching_max_delay = std::chrono::milliseconds(1);
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
  std::map<std::string, std::vector<std::string>> consume(const region& r, const std::string& topic, std::size_t count,
                                                          std::size_t* total, std::chrono::milliseconds settle = {}) {
    std::map<std::string, std::vector<std::string>> by_key;
    *total = 0;
    auto c = client::create(client_url(r), client_settings());
    EXPECT_TRUE(c) << c.error();
    if (!c) return by_key;
    consumer_config config;
    config.position = initial_position::earliest;
    auto cons = c.value().subscribe(topic, "check", config);
    EXPECT_TRUE(cons) << cons.error();
    if (!cons) return by_key;
    while (*total < count) {
      auto m = cons.value().receive(std::chrono::seconds(45));
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

  // Each cluster holds what "east-" and "west-" producers sent `count` of each (see
  // produce()), once and in their order per key; after the last, nothing more comes back
  // within 3 s (a loop would bring messages back).
  void expect_both_ways_in_each_cluster(const std::string& topic, int count) {
    for (const auto* r : {&east, &west}) {
      std::size_t total = 0;
      const auto both = static_cast<std::size_t>(2 * count);
      auto got = consume(*r, topic, both, &total, std::chrono::seconds(3));
      EXPECT_EQ(total, both) << r->name;
      std::map<std::string, std::vector<std::string>> from_east;
      std::map<std::string, std::vector<std::string>> from_west;
      for (const auto& [key, payloads] : got) {
        for (const auto& p : payloads) (p.starts_with("east-") ? from_east : from_west)[key].push_back(p);
      }
      EXPECT_EQ(from_east, expected("east-", count)) << r->name;
      EXPECT_EQ(from_west, expected("west-", count)) << r->name;
    }
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

}  // namespace magnetar::e2e
