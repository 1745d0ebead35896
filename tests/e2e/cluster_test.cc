// End to end: a cluster as Pulsar users run one: ZooKeeper, three `magnetar bookie`
// processes, `magnetar initialize-cluster-metadata`, and two `magnetar broker`
// processes at E/W/A 3/3/2 with 6 s ZooKeeper sessions. Topics are served by their
// bundle's owner, reached through either broker; when the owner is killed (-9) or
// stopped (SIGTERM), the other takes its bundles and no receipted message is lost.
#include "http/client.h"
#include "io/temp_directory.h"
#include "testing/child_process.h"
#include "testing/zookeeper_server.h"
#include "tests/e2e/bookie_process.h"
#include "tests/e2e/standalone_process.h"
#include "tests/e2e/traffic.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>

namespace magnetar::e2e {
namespace {

class cluster : public ::testing::Test {
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
    ASSERT_EQ(initialize("http://127.0.0.1:8080", "pulsar://127.0.0.1:6650"), 0) << read(dir / "initialize.log");
    std::ofstream(conf) << "clusterName=e2e\nmetadataStoreUrl=zk:" << zookeeper.address() << "\n"
                        << "advertisedAddress=127.0.0.1\n"
                        << "managedLedgerDefaultEnsembleSize=3\nmanagedLedgerDefaultWriteQuorum=3\n"
                        << "managedLedgerDefaultAckQuorum=2\nmetadataStoreSessionTimeoutMillis=6000\n"
                        << "brokerDeduplicationEnabled=true\n";
    for (int i = 0; i < 2; ++i) {
      brokers.push_back(std::make_unique<standalone_process>(MAGNETAR_BINARY, dir / fmt::format("broker-{}", i),
                                                             std::vector<std::string>{"--config", conf}, "broker"));
      std::filesystem::create_directories(dir / fmt::format("broker-{}", i));
      brokers.back()->start();
    }
  }

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
    auto reply = http::call(http::url::parse(brokers[broker]->web_url()).value(), "GET", target);
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

TEST_F(cluster, both_brokers_register_and_initializing_again_changes_nothing) {
  const auto listed = get(1, "/admin/v2/brokers/e2e");
  ASSERT_TRUE(listed.is_array()) << listed;
  EXPECT_EQ(listed.size(), 2u);
  EXPECT_EQ(initialize("http://127.0.0.1:8080", "pulsar://127.0.0.1:6650"), 0) << read(dir / "initialize.log");
  EXPECT_NE(initialize("http://elsewhere:8080", "pulsar://127.0.0.1:6650"), 0);
  EXPECT_NE(read(dir / "initialize.log").find("initialized already"), std::string::npos)
      << read(dir / "initialize.log");
}

TEST_F(cluster, a_topic_reached_through_either_broker_is_one_topic) {
  const auto topic = "persistent://public/default/either";
  auto first = produce_numbered(brokers[0]->service_url(), topic, 100);
  auto second = produce_numbered(brokers[1]->service_url(), topic, 100);
  ASSERT_EQ(first.size(), 100u);
  ASSERT_EQ(second.size(), 100u);
  auto got = consume_from_start(brokers[1 - owner_of("either")]->service_url(), topic, 200);
  EXPECT_EQ(got.size(), 200u);
}

TEST_F(cluster, a_kill_9_of_the_owner_hands_its_topics_over_and_loses_no_receipted_message) {
  const auto topic = "persistent://public/default/owner-killed";
  auto before = produce_numbered(both(), topic, 500);
  ASSERT_EQ(before.size(), 500u);
  const int owner = owner_of("owner-killed");
  ASSERT_GE(owner, 0);
  brokers[owner]->kill_now();
  // The survivor takes the bundle once the dead owner's session expires (6 s).
  auto after = produce_numbered(brokers[1 - owner]->service_url(), topic, 200);
  EXPECT_EQ(after.size(), 200u);
  auto got = consume_from_start(brokers[1 - owner]->service_url(), topic, 700);
  ASSERT_GE(got.size(), 500u);
  got.resize(500);
  EXPECT_EQ(got, before);
}

TEST_F(cluster, a_graceful_stop_of_the_owner_hands_its_topics_over_at_once) {
  const auto topic = "persistent://public/default/owner-stopped";
  const auto name = std::string("owner-stopped");
  auto receipted = produce_numbered(both(), topic, 2000, [&](int i) {
    if (i == 500) {
      const int owner = owner_of(name);
      ASSERT_GE(owner, 0);
      brokers[owner]->stop();
    }
  });
  EXPECT_EQ(receipted.size(), 2000u) << "the producer moved to the other broker";
  int survivor = brokers[0]->running() ? 0 : 1;
  EXPECT_EQ(consume_from_start(brokers[survivor]->service_url(), topic, receipted.size()), receipted);
}

// The owner hangs (SIGSTOP) past its 6 s session: the other broker takes the bundle,
// fencing the hung owner's ledger. Woken up, the old owner has lost the bundle: it
// serves the topic no more, and every receipted message is there once.
TEST_F(cluster, an_owner_that_lost_its_session_serves_its_topics_no_more) {
  const auto topic = "persistent://public/default/owner-paused";
  auto before = produce_numbered(both(), topic, 300);
  ASSERT_EQ(before.size(), 300u);
  const int owner = owner_of("owner-paused");
  ASSERT_GE(owner, 0);
  brokers[owner]->pause();
  auto after = produce_numbered(brokers[1 - owner]->service_url(), topic, 300);
  EXPECT_EQ(after.size(), 300u);
  EXPECT_EQ(owner_of("owner-paused", 1 - owner), 1 - owner);
  brokers[owner]->resume();
  // Woken, the old owner sends lookups to the survivor.
  EXPECT_EQ(owner_of("owner-paused", owner), 1 - owner);
  std::vector<std::string> expected = before;
  expected.insert(expected.end(), after.begin(), after.end());
  EXPECT_EQ(consume_from_start(brokers[owner]->service_url(), topic, 600), expected);
}

}  // namespace
}  // namespace magnetar::e2e
