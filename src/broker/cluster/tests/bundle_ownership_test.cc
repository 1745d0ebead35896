// Two brokers' bundle ownership over one real metadata store (the embedded one: its
// sessions and ephemeral nodes behave as ZooKeeper's do here; what only ZooKeeper
// shows, session expiry, is tested with processes in tests/e2e/cluster_test.cc).
#include "broker/cluster/bundle_ownership.h"

#include "broker/api/errc.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/namespace/tests/store_fixture.h"

#include <gtest/gtest.h>

namespace magnetar::broker::cluster {
namespace {

class bundle_ownership_test : public testing::store_fixture {
 protected:
  void SetUp() override {
    store_fixture::SetUp();
    resources = std::make_unique<namespace_resources>(*store, "test");
    ASSERT_TRUE(run(resources->ensure_defaults("http://a:8080", "pulsar://a:6650")));
    for (int i = 0; i < 2; ++i) {
      brokers.push_back(std::make_unique<bundle_ownership>(*store, *resources, shards[0].executor(),
                                                           std::chrono::seconds(30), [this, i]() -> awaitable<void> {
                                                             ++unload_sweeps[i];
                                                             co_return;
                                                           }));
      auto started = run(brokers.back()->start(identity(i)));
      ASSERT_TRUE(started) << started.error();
    }
  }
  void TearDown() override {
    for (auto& b : brokers) run(b->stop());
    brokers.clear();
    store_fixture::TearDown();
  }
  static broker_identity identity(int i) {
    return {fmt::format("broker-{}:8080", i),
            fmt::format("pulsar://broker-{}:6650", i),
            fmt::format("http://broker-{}:8080", i),
            {{.name = "external",
              .broker_url = fmt::format("pulsar://ext-{}:16650", i),
              .broker_url_tls = {},
              .http_url = {},
              .https_url = {}}}};
  }
  // Follows a redirect once, as a client does.
  lookup_target resolve(int asked, const wire::topic_name& topic) {
    auto answer = run(brokers[asked]->lookup(topic, false));
    EXPECT_TRUE(answer) << answer.error();
    if (!answer.value().redirect) return answer.value();
    const int other = answer.value().broker_url == identity(0).broker_url ? 0 : 1;
    auto again = run(brokers[other]->lookup(topic, answer.value().authoritative));
    EXPECT_TRUE(again) << again.error();
    EXPECT_FALSE(again.value().redirect);
    return again.value();
  }

  std::unique_ptr<namespace_resources> resources;
  std::vector<std::unique_ptr<bundle_ownership>> brokers;
  int unload_sweeps[2] = {0, 0};
};

wire::topic_name topic(int i) {
  return wire::topic_name::parse(fmt::format("persistent://public/default/t-{}", i)).value();
}

TEST_F(bundle_ownership_test, both_brokers_register) {
  auto listed = run(brokers[0]->registered_brokers());
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed.value().size(), 2u);
  EXPECT_EQ(listed.value()[0].id, "broker-0:8080");
  EXPECT_EQ(listed.value()[1].broker_url, "pulsar://broker-1:6650");
}

TEST_F(bundle_ownership_test, a_lookup_from_either_broker_lands_on_the_same_owner) {
  for (int t = 0; t < 20; ++t) {
    const auto first = resolve(t % 2, topic(t));
    const auto second = resolve((t + 1) % 2, topic(t));
    EXPECT_EQ(first.broker_url, second.broker_url) << topic(t).full();
  }
}

TEST_F(bundle_ownership_test, only_the_owner_serves_a_topic) {
  const auto owner = resolve(0, topic(1));
  const int owner_index = owner.broker_url == identity(0).broker_url ? 0 : 1;
  EXPECT_TRUE(run(brokers[owner_index]->check_owned(topic(1))));
  auto refused = run(brokers[1 - owner_index]->check_owned(topic(1)));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::service_not_ready);
  EXPECT_NE(refused.error().detail().find("Please redo the lookup"), std::string::npos);
}

TEST_F(bundle_ownership_test, bundles_spread_over_both_brokers) {
  std::set<std::string> owners;
  for (int t = 0; t < 40; ++t) owners.insert(resolve(0, topic(t)).broker_url);
  EXPECT_EQ(owners.size(), 2u) << "4 bundles, 40 topics: rendezvous hashing gives each broker some";
}

TEST_F(bundle_ownership_test, a_released_bundle_is_unloaded_and_placed_again) {
  const auto owner = resolve(0, topic(3));
  const int owner_index = owner.broker_url == identity(0).broker_url ? 0 : 1;
  const auto sweeps = unload_sweeps[owner_index];
  ASSERT_TRUE(run(brokers[owner_index]->release("public/default")));
  EXPECT_GT(unload_sweeps[owner_index], sweeps);
  EXPECT_FALSE(run(brokers[owner_index]->check_owned(topic(3))));
  EXPECT_TRUE(brokers[owner_index]->owned_bundles().empty());
  EXPECT_FALSE(resolve(1 - owner_index, topic(3)).broker_url.empty());
}

TEST_F(bundle_ownership_test, a_stopped_brokers_bundles_go_to_the_other) {
  for (int t = 0; t < 10; ++t) resolve(0, topic(t));
  run(brokers[1]->stop());
  for (int t = 0; t < 10; ++t) {
    auto answer = run(brokers[0]->lookup(topic(t), false));
    ASSERT_TRUE(answer) << answer.error();
    EXPECT_FALSE(answer.value().redirect);
    EXPECT_EQ(answer.value().broker_url, identity(0).broker_url);
  }
}

TEST_F(bundle_ownership_test, a_restarted_broker_takes_back_the_nodes_of_its_previous_life) {
  const auto owner = resolve(0, topic(5));
  const int owner_index = owner.broker_url == identity(0).broker_url ? 0 : 1;
  // The same broker (same address) again, while its old session's nodes are still there.
  brokers[owner_index] = std::make_unique<bundle_ownership>(
      *store, *resources, shards[0].executor(), std::chrono::seconds(30), []() -> awaitable<void> { co_return; });
  ASSERT_TRUE(run(brokers[owner_index]->start(identity(owner_index))));
  auto answer = run(brokers[owner_index]->lookup(topic(5), true));
  ASSERT_TRUE(answer) << answer.error();
  EXPECT_EQ(answer.value().broker_url, identity(owner_index).broker_url);
  EXPECT_TRUE(run(brokers[owner_index]->check_owned(topic(5))));
}

TEST_F(bundle_ownership_test, a_split_bundle_is_two_halves_its_owner_keeps) {
  const auto owner = resolve(0, topic(7));
  const int o = owner.broker_url == identity(0).broker_url ? 0 : 1;
  const auto before = run(brokers[o]->bundles_of("public/default"));
  ASSERT_TRUE(before);
  const auto whole = bundle_for(before.value(), topic_hash(topic(7).full()));
  ASSERT_TRUE(run(brokers[o]->split("public/default", whole)));

  const auto after = run(brokers[o]->bundles_of("public/default"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after.value().size(), before.value().size() + 1);
  const auto halves = split_in_half(whole).value();
  EXPECT_NE(std::find(after.value().begin(), after.value().end(), halves.first), after.value().end());
  EXPECT_NE(std::find(after.value().begin(), after.value().end(), halves.second), after.value().end());
  // The owner serves the topic still, and the other broker's lookup finds it there.
  EXPECT_TRUE(run(brokers[o]->check_owned(topic(7))));
  EXPECT_EQ(resolve(1 - o, topic(7)).broker_url, identity(o).broker_url);
  const auto owned = brokers[o]->owned_bundles();
  EXPECT_EQ(std::count(owned.begin(), owned.end(), "public/default/" + whole.name()), 0);
}

TEST_F(bundle_ownership_test, only_the_owner_splits_a_bundle) {
  const auto owner = resolve(0, topic(8));
  const int o = owner.broker_url == identity(0).broker_url ? 0 : 1;
  const auto bundles = run(brokers[o]->bundles_of("public/default")).value();
  auto refused = run(brokers[1 - o]->split("public/default", bundle_for(bundles, topic_hash(topic(8).full()))));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::service_not_ready);
}

// The whole's node is gone and nobody takes it back: the other broker's lookup, even
// authoritative, places the topic by the new boundaries.
TEST_F(bundle_ownership_test, after_a_split_lookups_use_the_new_boundaries) {
  const auto owner = resolve(0, topic(9));
  const int o = owner.broker_url == identity(0).broker_url ? 0 : 1;
  const auto whole = bundle_for(run(brokers[o]->bundles_of("public/default")).value(), topic_hash(topic(9).full()));
  ASSERT_TRUE(run(brokers[o]->split("public/default", whole)));
  const auto stale = run(brokers[1 - o]->lookup(topic(9), true));
  ASSERT_TRUE(stale) << stale.error();
  EXPECT_EQ(stale.value().broker_url, identity(o).broker_url) << "the lookup uses the new boundaries";
  auto node = run(store->get("/namespace/public/default/" + whole.name()));
  ASSERT_TRUE(node);
  EXPECT_FALSE(node.value().has_value());
}

TEST_F(bundle_ownership_test, a_lookup_carries_the_owners_advertised_listeners) {
  for (int asked = 0; asked < 2; ++asked) {
    const auto owner = resolve(asked, topic(11));
    const int o = owner.broker_url == identity(0).broker_url ? 0 : 1;
    ASSERT_EQ(owner.listeners.size(), 1u);
    EXPECT_EQ(owner.listeners[0].name, "external");
    EXPECT_EQ(owner.listeners[0].broker_url, fmt::format("pulsar://ext-{}:16650", o));
  }
  // A redirect names the placing broker's listeners too.
  const auto listed = run(brokers[0]->registered_brokers()).value();
  EXPECT_EQ(listed[1].listeners.at(0).broker_url, "pulsar://ext-1:16650");
}

TEST_F(bundle_ownership_test, a_loaded_broker_gets_no_new_bundles) {
  ASSERT_TRUE(run(brokers[0]->report_load(nlohmann::json{{"msgRateIn", 5000.0}, {"msgRateOut", 0.0}})));
  ASSERT_TRUE(run(brokers[1]->report_load(nlohmann::json{{"msgRateIn", 10.0}, {"msgRateOut", 0.0}})));
  for (int t = 0; t < 20; ++t) EXPECT_EQ(resolve(t % 2, topic(t)).broker_url, identity(1).broker_url) << t;
  const auto listed = run(brokers[0]->registered_brokers()).value();
  EXPECT_EQ(listed[0].load.value("msgRateIn", 0.0), 5000.0);
  EXPECT_EQ(listed[0].load.value("pulsarServiceUrl", ""), identity(0).broker_url) << "the URLs stay";
}

}  // namespace
}  // namespace magnetar::broker::cluster
