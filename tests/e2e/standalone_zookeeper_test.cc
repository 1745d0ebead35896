// End to end: `magnetar standalone` with its metadata in a real ZooKeeper server
// (metadataStoreUrl=zk:...) that the test starts itself: messages survive a kill -9 of
// the standalone and a restart of ZooKeeper while producers write.
#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/zookeeper_store.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/standalone_process.h"
#include "tests/e2e/traffic.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

namespace magnetar::e2e {
namespace {

class standalone_on_zookeeper : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto problem = magnetar::testing::zookeeper_server::unavailable_reason();
    if (!problem.empty()) GTEST_SKIP() << "no ZooKeeper: " << problem;
    std::string why;
    ASSERT_TRUE(zookeeper.start(&why)) << why;
    std::ofstream(conf) << "metadataStoreUrl=zk:" << zookeeper.address() << "/magnetar-e2e\n"
                        << "metadataStoreSessionTimeoutMillis=10000\n";
    server.start();
  }

  std::set<std::string> produce(const std::string& topic, int count, const std::function<void(int)>& during = {}) {
    auto receipted = produce_numbered(server.service_url(), topic, count, during);
    return {receipted.begin(), receipted.end()};
  }
  std::set<std::string> consume(const std::string& topic, std::size_t count) {
    auto got = consume_from_start(server.service_url(), topic, count);
    return {got.begin(), got.end()};
  }

  io::temp_directory dir{"standalone-zk-e2e"};
  std::string conf = dir / "standalone.conf";
  magnetar::testing::zookeeper_server zookeeper{dir / "zookeeper"};
  standalone_process server{MAGNETAR_BINARY, dir / "standalone", {"--config", conf}};
};

TEST_F(standalone_on_zookeeper, metadata_lives_in_zookeeper_and_survives_a_kill_9) {
  auto receipted = produce("persistent://public/default/zk-kill", 2000);
  ASSERT_EQ(receipted.size(), 2000u);
  server.kill_now();
  server.start();
  EXPECT_EQ(consume("persistent://public/default/zk-kill", receipted.size()), receipted);

  io::running_shards shards{1};
  meta::zookeeper_store store({.servers = zookeeper.address(), .chroot = "/magnetar-e2e"});
  ASSERT_TRUE(io::block_on(shards[0], store.start()));
  auto ledgers = io::block_on(shards[0], store.children("/ledgers"));
  ASSERT_TRUE(ledgers) << ledgers.error();
  EXPECT_FALSE(ledgers.value().empty()) << "the ledgers' metadata is in ZooKeeper";
  io::block_on(shards[0], store.stop());
}

TEST_F(standalone_on_zookeeper, receipted_messages_survive_a_zookeeper_restart_during_writes) {
  auto receipted = produce("persistent://public/default/zk-restart", 5000, [&](int i) {
    if (i == 1000) zookeeper.stop();
    if (i == 2000) {
      std::string why;
      ASSERT_TRUE(zookeeper.start(&why)) << why;
    }
  });
  EXPECT_GT(receipted.size(), 0u);
  server.kill_now();
  server.start();
  auto got = consume("persistent://public/default/zk-restart", receipted.size());
  for (const auto& r : receipted) ASSERT_TRUE(got.count(r)) << "receipted message " << r << " lost";
}

}  // namespace
}  // namespace magnetar::e2e
