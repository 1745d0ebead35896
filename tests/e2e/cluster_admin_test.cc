// End to end: operating a cluster of two brokers as pulsar-admin users do, through
// `magnetar admin` against either broker: a topic's admin calls reach its owner (307),
// the leader and the health check, unloading and splitting a bundle while a producer
// sends, and the leader's load shedding moving a bundle to a broker that joined late.
// No error may reach a producer in any of them.
#include "tests/e2e/cluster_fixture.h"
#include "tests/e2e/traffic.h"

#include <boost/crc.hpp>

#include <atomic>
#include <set>
#include <sstream>
#include <thread>

namespace magnetar::e2e {
namespace {

// The bundle of public/default that `topic` falls into (upstream's CRC-32 of its full name).
std::string bundle_of(const nlohmann::json& bundles, const std::string& topic) {
  const std::string full = "persistent://public/default/" + topic;
  boost::crc_32_type crc;
  crc.process_bytes(full.data(), full.size());
  const auto hash = crc.checksum();
  const auto& b = bundles["boundaries"];
  for (std::size_t i = 0; i + 1 < b.size(); ++i) {
    const auto lower = std::stoul(b[i].get<std::string>(), nullptr, 16);
    const auto upper = std::stoul(b[i + 1].get<std::string>(), nullptr, 16);
    if (hash >= lower && (hash < upper || i + 2 == b.size())) {
      return b[i].get<std::string>() + "_" + b[i + 1].get<std::string>();
    }
  }
  return {};
}

class cluster_admin : public cluster {
 protected:
  // `magnetar admin --admin-url <broker's> args...`: its exit status and its output.
  std::pair<int, std::string> admin(int broker, std::vector<std::string> args) {
    const auto log = dir / fmt::format("admin-{}.log", ++_runs);
    std::vector<std::string> argv{MAGNETAR_BINARY, "admin", "--admin-url", brokers[broker]->web_url()};
    argv.insert(argv.end(), args.begin(), args.end());
    magnetar::testing::child_process cli;
    if (!cli.start(argv, log)) return {-1, "did not start"};
    const int status = cli.wait(std::chrono::seconds(60));
    return {status, read(log)};
  }
  nlohmann::json bundles() { return get(0, "/admin/v2/namespaces/public/default/bundles"); }
  // Whether the broker's log has `text` within 10 s (it writes info lines within a second).
  bool log_has(int broker, const std::string& text) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (read(brokers[broker]->log_path()).find(text) == std::string::npos) {
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return true;
  }
  // The broker's log lines that mention `text`, to show with a failure.
  std::string log_lines(int broker, const std::string& text) {
    std::istringstream log(read(brokers[broker]->log_path()));
    std::string out;
    for (std::string line; std::getline(log, line);) {
      if (line.find(text) != std::string::npos) out += line + "\n";
    }
    return out;
  }

 private:
  int _runs = 0;
};

TEST_F(cluster_admin, a_topics_admin_call_to_the_other_broker_is_served_by_its_owner) {
  const auto topic = "persistent://public/default/redirected";
  ASSERT_EQ(produce_numbered(both(), topic, 10).size(), 10u);
  const int owner = owner_of("redirected");
  ASSERT_GE(owner, 0);
  const int other = 1 - owner;
  const auto path = "/admin/v2/persistent/public/default/redirected/stats";
  auto moved = http::call(http::url::parse(brokers[other]->web_url()).value(), "GET", path);
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(moved.value().status, 307);
  EXPECT_EQ(moved.value().header("Location"), brokers[owner]->web_url() + path);

  const auto [status, output] = admin(other, {"topics", "stats", "redirected"});
  ASSERT_EQ(status, 0) << output;
  EXPECT_EQ(nlohmann::json::parse(output).value("msgInCounter", -1), 10) << output;
  const auto [looked_up, url] = admin(other, {"topics", "lookup", "redirected"});
  ASSERT_EQ(looked_up, 0) << url;
  EXPECT_EQ(url, brokers[owner]->service_url() + "\n");
}

TEST_F(cluster_admin, one_broker_leads_and_both_pass_the_health_check) {
  const auto [listed, ids] = admin(1, {"brokers", "list", "e2e"});
  ASSERT_EQ(listed, 0) << ids;
  // The first broker up takes the leadership at once; the other sees it.
  nlohmann::json leader;
  for (int i = 0; i < 2; ++i) {
    const auto [status, output] = admin(i, {"brokers", "leader-broker"});
    ASSERT_EQ(status, 0) << output;
    const auto answer = nlohmann::json::parse(output);
    if (i == 0) leader = answer;
    EXPECT_EQ(answer, leader);
    const auto [healthy, ok] = admin(i, {"brokers", "healthcheck"});
    EXPECT_EQ(healthy, 0) << ok;
    EXPECT_EQ(ok, "ok\n");
  }
  EXPECT_NE(ids.find(leader.value("brokerId", "?") + "\n"), std::string::npos) << ids << leader;
}

TEST_F(cluster_admin, a_bundle_unloaded_through_the_other_broker_comes_back_with_no_error_to_the_producer) {
  const auto topic = "persistent://public/default/unloaded";
  const int owner = owner_of("unloaded");
  ASSERT_GE(owner, 0);
  const auto bundle = bundle_of(bundles(), "unloaded");
  // A subscription keeps what is published: without one (and without retention) a
  // topic's closed ledgers are trimmed, as upstream's are, and an unload closes one.
  const auto [created, problem] = admin(1 - owner, {"topics", "create", "unloaded"});
  ASSERT_EQ(created, 0) << problem;
  const auto [subscribed, why] =
      admin(1 - owner, {"topics", "create-subscription", "unloaded", "-s", "check", "-m", "earliest"});
  ASSERT_EQ(subscribed, 0) << why;
  auto receipted = produce_numbered(both(), topic, 3000, [&](int i) {
    if (i != 1000) return;
    const auto [status, output] = admin(1 - owner, {"namespaces", "unload", "public/default", "--bundle", bundle});
    EXPECT_EQ(status, 0) << output;
  });
  EXPECT_EQ(receipted.size(), 3000u);
  EXPECT_TRUE(log_has(owner, "released bundle public/default/" + bundle)) << "see " << brokers[owner]->log_path();
  EXPECT_EQ(consume_from_start(both(), topic, receipted.size()), receipted);
}

TEST_F(cluster_admin, a_split_bundle_is_two_bundles_whose_topics_stay_served) {
  const auto topic = "persistent://public/default/split";
  auto before = produce_numbered(both(), topic, 100);
  ASSERT_EQ(before.size(), 100u);
  const int owner = owner_of("split");
  const auto was = bundles();
  ASSERT_EQ(was.value("numBundles", 0), 4) << was;
  const auto bundle = bundle_of(was, "split");
  const auto [status, output] = admin(1 - owner, {"namespaces", "split-bundle", "public/default", "--bundle", bundle});
  ASSERT_EQ(status, 0) << output;
  const auto now = bundles();
  EXPECT_EQ(now.value("numBundles", 0), 5) << now;
  const auto half = bundle_of(now, "split");
  EXPECT_NE(half, bundle);
  EXPECT_TRUE(half.starts_with(bundle.substr(0, 10)) || half.ends_with(bundle.substr(11))) << half << " of " << bundle;
  EXPECT_EQ(owner_of("split", 1 - owner), owner) << "the owner keeps both halves";
  auto after = produce_numbered(both(), topic, 100);
  EXPECT_EQ(after.size(), 100u);
  before.insert(before.end(), after.begin(), after.end());
  EXPECT_EQ(consume_from_start(both(), topic, 200), before);
}

// A partitioned topic's partitions have owners of their own; a call on its base name
// from either broker reaches each partition's owner.
TEST_F(cluster_admin, a_partitioned_topics_admin_calls_reach_every_partitions_owner) {
  const auto [created, why] = admin(0, {"topics", "create-partitioned-topic", "spread", "-p", "8"});
  ASSERT_EQ(created, 0) << why;
  const auto [subscribed, problem] =
      admin(1, {"topics", "create-subscription", "spread", "-s", "check", "-m", "earliest"});
  ASSERT_EQ(subscribed, 0) << problem;
  std::set<int> owners;
  for (int i = 0; i < 8; ++i) owners.insert(owner_of(fmt::format("spread-partition-{}", i)));
  EXPECT_EQ(owners, (std::set<int>{0, 1})) << "8 partitions over 4 bundles and 2 brokers";
  ASSERT_EQ(produce_numbered(both(), "persistent://public/default/spread", 400).size(), 400u);

  for (int asked = 0; asked < 2; ++asked) {
    const auto [status, output] = admin(asked, {"topics", "partitioned-stats", "spread"});
    ASSERT_EQ(status, 0) << output;
    const auto stats = nlohmann::json::parse(output);
    EXPECT_EQ(stats.value("msgInCounter", -1), 400) << output;
    EXPECT_EQ(stats["metadata"].value("partitions", 0), 8);
    std::int64_t backlog = 0;  // in entries, each partition's from its owner
    for (const auto& [name, partition] : stats["partitions"].items()) {
      backlog += partition["subscriptions"]["check"].value("msgBacklog", 0);
    }
    EXPECT_GT(backlog, 0) << output;
    EXPECT_EQ(stats["subscriptions"]["check"].value("msgBacklog", -1), backlog) << output;
    const auto [listed, names] = admin(asked, {"topics", "subscriptions", "spread"});
    EXPECT_EQ(listed, 0) << names;
    EXPECT_EQ(names, "check\n");
  }
  const auto [unloaded, reason] = admin(0, {"topics", "unload", "spread"});
  EXPECT_EQ(unloaded, 0) << reason;
  EXPECT_EQ(consume_from_start(both(), "persistent://public/default/spread", 400).size(), 400u);
}

// Broker 1 stops, so broker 0 owns every bundle that producers use; broker 1 comes
// back, idle. The leader sees broker 0 far above the mean and unloads one of its busy
// bundles, which the next lookup places on broker 1. The producers never see an error.
TEST_F(cluster_admin, load_shedding_moves_a_busy_bundle_to_an_idle_broker_with_no_error_to_producers) {
  brokers[1]->stop();
  const auto layout = bundles();
  std::vector<std::string> topics;
  std::set<std::string> busy;
  for (int i = 0; topics.size() < 8; ++i) {
    topics.push_back(fmt::format("shed-{}", i));
    busy.insert(bundle_of(layout, topics.back()));
  }
  ASSERT_GE(busy.size(), 2u);

  auto c = client::create(both());
  ASSERT_TRUE(c) << c.error();
  std::atomic<bool> stop{false};
  std::atomic<int> sent{0}, receipted{0}, failed{0};
  std::vector<std::thread> senders;
  for (const auto& t : topics) {
    producer_config config;
    config.send_timeout = std::chrono::milliseconds(0);
    config.block_if_queue_full = true;
    auto p = c.value().create_producer("persistent://public/default/" + t, config);
    ASSERT_TRUE(p) << p.error();
    senders.emplace_back([&, p = std::move(p).value()]() mutable {
      // About 200 msg/s each: a pace, not a wait for a condition.
      while (!stop) {
        ++sent;
        p.send_async(message_builder().payload("x").build(),
                     [&](result<message_id> id) { ++(id ? receipted : failed); });
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
      EXPECT_TRUE(p.flush());
    });
  }
  for (const auto& t : topics) ASSERT_EQ(owner_of(t), 0);
  brokers[1]->start();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  bool moved = false;
  while (!moved && std::chrono::steady_clock::now() < deadline) {
    for (const auto& t : topics) moved = moved || owner_of(t) == 1;
    if (!moved) std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  stop = true;
  for (auto& s : senders) s.join();
  EXPECT_TRUE(moved) << "no bundle moved to the idle broker:\n"
                     << log_lines(0, "bundle") << log_lines(0, "leader") << log_lines(0, "load");
  EXPECT_TRUE(log_has(0, "load shedding: unloading bundle")) << "see " << brokers[0]->log_path();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(receipted.load(), sent.load());
}

}  // namespace
}  // namespace magnetar::e2e
