// End to end: a broker (`magnetar standalone` with bookkeeperMetadataServiceUri)
// that writes its topics to three `magnetar bookie` processes at E/W/A 3/3/2,
// all registered in a ZooKeeper server the test starts. Receipted messages
// survive a kill -9 of a bookie, of the broker, and a ZooKeeper restart, each
// during writes.
#include "http/client.h"
#include "io/temp_directory.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/bookie_process.h"
#include "tests/e2e/standalone_process.h"
#include "tests/e2e/traffic.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace magnetar::e2e {
namespace {

class broker_on_bookies : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    std::string why;
    ASSERT_TRUE(zookeeper.start(&why)) << why;
    for (int i = 0; i < 3; ++i) {
      bookies.push_back(std::make_unique<bookie_process>(dir / fmt::format("bookie-{}", i), zookeeper.address()));
      ASSERT_TRUE(bookies.back()->start()) << bookies.back()->log();
    }
    std::ofstream(conf) << "metadataStoreUrl=zk:" << zookeeper.address() << "/magnetar-e2e\n"
                        << "bookkeeperMetadataServiceUri=zk://" << zookeeper.address() << "/ledgers\n"
                        << "managedLedgerDefaultEnsembleSize=3\nmanagedLedgerDefaultWriteQuorum=3\n"
                        << "managedLedgerDefaultAckQuorum=2\nmetadataStoreSessionTimeoutMillis=10000\n";
    server.start();
  }

  std::vector<std::string> produce(const std::string& topic, int count, const std::function<void(int)>& during = {}) {
    return produce_numbered(server.service_url(), topic, count, during);
  }
  std::vector<std::string> consume(const std::string& topic, std::size_t count) {
    return consume_from_start(server.service_url(), topic, count);
  }
  // The topic's storageSize in its admin stats, -1 when they can't be read.
  std::int64_t storage_size(const std::string& path) {
    auto reply =
        http::call(http::url::parse(server.web_url()).value(), "GET", "/admin/v2/persistent/" + path + "/stats");
    if (!reply || reply.value().status != 200) return -1;
    return nlohmann::json::parse(reply.value().body, nullptr, false).value("storageSize", std::int64_t{-1});
  }

  io::temp_directory dir{"broker-on-bookies"};
  std::string conf = dir / "broker.conf";
  magnetar::testing::zookeeper_server zookeeper{dir / "zookeeper"};
  std::vector<std::unique_ptr<bookie_process>> bookies;
  standalone_process server{MAGNETAR_BINARY, dir / "broker", {"--config", conf}};
};

TEST_F(broker_on_bookies, messages_land_on_every_bookie_and_read_back_in_order) {
  const auto topic = "persistent://public/default/on-bookies";
  auto receipted = produce(topic, 2000);
  ASSERT_EQ(receipted.size(), 2000u);
  EXPECT_EQ(consume(topic, receipted.size()), receipted);
  for (auto& b : bookies) {
    const auto metrics = b->get("/metrics").body;
    EXPECT_NE(metrics.find("bookie_WRITE_BYTES"), std::string::npos) << metrics.substr(0, 400);
    EXPECT_EQ(metrics.find("bookie_WRITE_BYTES 0\n"), std::string::npos) << "bookie " << b->id() << " took no entry";
  }
}

TEST_F(broker_on_bookies, a_kill_9_of_a_bookie_during_writes_loses_no_receipted_message) {
  const auto topic = "persistent://public/default/bookie-killed";
  auto receipted = produce(topic, 3000, [&](int i) {
    if (i == 1000) bookies[1]->kill();
  });
  EXPECT_EQ(receipted.size(), 3000u) << "adds go on at the ack quorum of the two left";
  EXPECT_EQ(consume(topic, receipted.size()), receipted);
}

TEST_F(broker_on_bookies, a_kill_9_of_the_broker_loses_no_receipted_message) {
  const auto topic = "persistent://public/default/broker-killed";
  auto receipted = produce(topic, 2000);
  ASSERT_EQ(receipted.size(), 2000u);
  const auto size_before = storage_size("public/default/broker-killed");
  ASSERT_GT(size_before, 0);
  server.kill_now();
  server.start();  // recovers the open ledger from the bookies: fences it, reads past its LAC
  EXPECT_EQ(storage_size("public/default/broker-killed"), size_before) << "the recovered ledger counts every entry";
  auto more = produce(topic, 100);
  EXPECT_EQ(more.size(), 100u);
  auto got = consume(topic, receipted.size() + more.size());
  ASSERT_GE(got.size(), receipted.size());
  got.resize(receipted.size());
  EXPECT_EQ(got, receipted);
}

TEST_F(broker_on_bookies, receipted_messages_survive_a_zookeeper_restart_during_writes) {
  const auto topic = "persistent://public/default/zk-restart";
  auto receipted = produce(topic, 4000, [&](int i) {
    if (i == 1000) zookeeper.stop();
    if (i == 2000) {
      std::string why;
      ASSERT_TRUE(zookeeper.start(&why)) << why;
    }
  });
  EXPECT_GT(receipted.size(), 0u);
  auto got = consume(topic, receipted.size());
  EXPECT_EQ(got, receipted);
}

}  // namespace
}  // namespace magnetar::e2e
