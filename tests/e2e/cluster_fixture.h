// cluster_fixture: a cluster as Pulsar users run one, for end-to-end tests: ZooKeeper,
// three `magnetar bookie` processes, `magnetar initialize-cluster-metadata`, and two
// `magnetar broker` processes at E/W/A 3/3/2 with 6 s ZooKeeper sessions, each on free
// ports under a throwaway directory; all of it ends with the test.
#pragma once

#include "http/client.h"
#include "io/temp_directory.h"
#include "testing/child_process.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/bookie_process.h"
#include "tests/e2e/standalone_process.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::e2e {

class cluster : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    std::string why;
    ASSERT_TRUE(zookeeper.start(&why)) << why;
    for (int i = 0; i < 3; ++i) {
      bookies.push_back(std::make_unique<bookie_process>(dir / fmt::format("bookie-{}", i), zookeeper.address(),
                                                         magnetar::testing::free_port(), bookie_extra_config()));
      ASSERT_TRUE(bookies.back()->start()) << bookies.back()->log();
    }
    ASSERT_EQ(initialize("http://127.0.0.1:8080", "pulsar://127.0.0.1:6650"), 0) << read(dir / "initialize.log");
    std::ofstream(conf) << "clusterName=e2e\nmetadataStoreUrl=zk:" << zookeeper.address() << "\n"
                        << "advertisedAddress=127.0.0.1\n"
                        << "managedLedgerDefaultEnsembleSize=3\nmanagedLedgerDefaultWriteQuorum=3\n"
                        << "managedLedgerDefaultAckQuorum=2\nmetadataStoreSessionTimeoutMillis=6000\n"
                        << "brokerDeduplicationEnabled=true\n"
                        // Load reports every second, shedding checked every 3 s; a
                        // bundle needs two busy ones on a broker to move at all.
                        << "loadBalancerReportUpdateMinIntervalMillis=1000\n"
                        << "loadBalancerSheddingIntervalMinutes=0.05\n"
                        << "loadBalancerHistoryResourcePercentage=0.3\n"
                        << extra_config();
    for (int i = 0; i < 2; ++i) {
      brokers.push_back(std::make_unique<standalone_process>(MAGNETAR_BINARY, dir / fmt::format("broker-{}", i),
                                                             std::vector<std::string>{"--config", conf}, "broker"));
      std::filesystem::create_directories(dir / fmt::format("broker-{}", i));
      brokers.back()->start();
    }
  }

  // A failed test prints what the brokers logged at warn and above (their logs go with
  // the temporary directory): once, a failure under load left nothing to read.
  void TearDown() override {
    if (!HasFailure()) return;
    for (std::size_t i = 0; i < brokers.size(); ++i) {
      std::ifstream in(brokers[i]->log_path());
      std::string line;
      std::string notable;
      while (std::getline(in, line)) {
        // base/log.h's pattern: "<time> <level letter> [<logger> <thread>] <text>".
        if (line.find(" W [") != std::string::npos || line.find(" E [") != std::string::npos) {
          notable += line + "\n";
        }
      }
      std::cerr << "broker-" << i << " warnings and errors:\n" << notable;
    }
  }

  // Lines a derived fixture adds to the brokers' configuration.
  virtual std::string extra_config() { return {}; }
  // Lines a derived fixture adds to the bookies' bookkeeper.conf.
  virtual std::string bookie_extra_config() { return {}; }

  int initialize(const std::string& web_url, const std::string& broker_url) {
    magnetar::testing::child_process init;
    const std::vector<std::string> argv{MAGNETAR_BINARY,
                                        "initialize-cluster-metadata",
                                        "--cluster",
                                        "e2e",
                                        "--metadata-store",
                                        "zk:" + zookeeper.address(),
                                        "--web-service-url",
                                        web_url,
                                        "--broker-service-url",
                                        broker_url};
    if (!init.start(argv, dir / "initialize.log")) return -1;
    return init.wait(std::chrono::seconds(60));
  }
  static std::string read(const std::filesystem::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  nlohmann::json get(int broker, const std::string& target) {
    auto reply =
        http::call(http::url::parse(brokers[broker]->web_url()).value(), "GET", target, {}, {.max_redirects = 3});
    EXPECT_TRUE(reply) << reply.error();
    if (!reply) return nullptr;
    EXPECT_EQ(reply.value().status, 200) << reply.value().body;
    return nlohmann::json::parse(reply.value().body, nullptr, false);
  }
  // Both brokers, so that a client finds one that is up.
  std::string both() const {
    return fmt::format("{},{}", brokers[0]->service_url(),
                       brokers[1]->service_url().substr(std::string("pulsar://").size()));
  }
  // The index of the broker that owns `topic`, by the lookup any client makes (asked of `asked`).
  int owner_of(const std::string& topic, int asked = 0) {
    auto answer = get(asked, "/lookup/v2/topic/persistent/public/default/" + topic);
    const auto url = answer.value("brokerUrl", "");
    return url == brokers[0]->service_url() ? 0 : url == brokers[1]->service_url() ? 1 : -1;
  }

  io::temp_directory dir{"cluster-e2e"};
  std::string conf = dir / "broker.conf";
  magnetar::testing::zookeeper_server zookeeper{dir / "zookeeper"};
  std::vector<std::unique_ptr<bookie_process>> bookies;
  std::vector<std::unique_ptr<standalone_process>> brokers;
};

}  // namespace magnetar::e2e
