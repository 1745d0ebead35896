// The topic routes against the real broker (its topic_registry implementing topic_admin)
// over a one-bookie in-process cluster on the real metadata store.
#include "broker/admin/admin_server.h"
#include "broker/api/errc.h"
#include "broker/broker_service.h"
#include "http/client.h"
#include "io/block_on.h"
#include "ledger/tests/ledger_test_cluster.h"

#include <gmock/gmock.h>

namespace magnetar::broker::admin {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

class broker_routes_test : public ::testing::Test {
 protected:
  void SetUp() override {
    config.bind_address = "127.0.0.1";
    config.broker_service_port = 0;
    config.web_service_port = 0;
    resources = std::make_unique<namespace_resources>(*cluster.store, config.cluster_name);
    broker = std::make_unique<broker_service>(
        config, broker_deps{*cluster.store, *resources, *cluster.client, cluster.clock, cluster.shards.set()});
    auto started = broker->start();
    ASSERT_TRUE(started) << started.error();
    server = std::make_unique<admin_server>(config, *cluster.store, &broker->topics(), cluster.shards[0]);
    auto made = cluster.run(server->resources().ensure_defaults("http://localhost:8080", "pulsar://localhost:6650"));
    ASSERT_TRUE(made) << made.error();
    auto listening = server->start();
    ASSERT_TRUE(listening) << listening.error();
  }
  void TearDown() override {
    if (server) io::block_on(cluster.shards[1], server->stop());
    server.reset();
    if (broker) broker->stop();
    broker.reset();
  }
  magnetar::http::reply call(const char* method, const std::string& target, const std::string& body = {}) {
    auto r =
        magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, method, target, body);
    EXPECT_TRUE(r) << r.error();
    return r ? std::move(r).value() : magnetar::http::reply{.status = -1};
  }
  static json body_of(const magnetar::http::reply& r) { return json::parse(r.body); }

  static constexpr const char* topic = "/admin/v2/persistent/public/default/t1";
  ledger::testing::test_cluster cluster{1, false};
  broker_config config;
  std::unique_ptr<namespace_resources> resources;
  std::unique_ptr<broker_service> broker;
  std::unique_ptr<admin_server> server;
};

TEST_F(broker_routes_test, creates_and_lists_a_topic) {
  EXPECT_EQ(call("PUT", topic).status, 204);
  EXPECT_EQ(body_of(call("GET", "/admin/v2/persistent/public/default")),
            json::array({"persistent://public/default/t1"}));
}

TEST_F(broker_routes_test, creating_an_existing_topic_is_409) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  EXPECT_EQ(call("PUT", topic).status, 409);
}

TEST_F(broker_routes_test, topic_over_a_partitioned_one_is_409) {
  ASSERT_EQ(call("PUT", std::string(topic) + "/partitions", "2").status, 204);
  EXPECT_EQ(call("PUT", topic).status, 409);
}

TEST_F(broker_routes_test, stats_of_a_topic_use_pulsars_fields) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  auto r = call("GET", std::string(topic) + "/stats");
  ASSERT_EQ(r.status, 200) << r.body;
  auto stats = body_of(r);
  EXPECT_EQ(stats["msgInCounter"], 0);
  EXPECT_TRUE(stats["subscriptions"].is_object());
  EXPECT_TRUE(stats["publishers"].is_array());
}

TEST_F(broker_routes_test, stats_of_a_missing_topic_is_404) {
  auto r = call("GET", "/admin/v2/persistent/public/default/ghost/stats");
  EXPECT_EQ(r.status, 404);
  EXPECT_TRUE(body_of(r).contains("reason"));
}

TEST_F(broker_routes_test, internal_stats_show_ledgers_and_cursors) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  auto r = call("GET", std::string(topic) + "/internalStats");
  ASSERT_EQ(r.status, 200) << r.body;
  auto stats = body_of(r);
  EXPECT_TRUE(stats["ledgers"].is_array());
  EXPECT_TRUE(stats["cursors"].is_object());
  EXPECT_TRUE(stats.contains("lastConfirmedEntry"));
}

TEST_F(broker_routes_test, subscription_is_created_listed_and_deleted) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  EXPECT_EQ(call("PUT", std::string(topic) + "/subscription/sub", R"({"ledgerId":-1,"entryId":-1})").status, 204);
  EXPECT_EQ(body_of(call("GET", std::string(topic) + "/subscriptions")), json::array({"sub"}));
  EXPECT_TRUE(body_of(call("GET", std::string(topic) + "/stats"))["subscriptions"].contains("sub"));
  EXPECT_EQ(call("DELETE", std::string(topic) + "/subscription/sub").status, 204);
  EXPECT_EQ(body_of(call("GET", std::string(topic) + "/subscriptions")), json::array());
}

TEST_F(broker_routes_test, cursor_moves_by_time_skip_and_clear) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  ASSERT_EQ(call("PUT", std::string(topic) + "/subscription/sub").status, 204);
  EXPECT_EQ(call("POST", std::string(topic) + "/subscription/sub/resetcursor/0").status, 204);
  EXPECT_EQ(call("POST", std::string(topic) + "/subscription/sub/skip/0").status, 204);
  EXPECT_EQ(call("POST", std::string(topic) + "/subscription/sub/skip_all").status, 204);
  EXPECT_EQ(
      call("POST", std::string(topic) + "/subscription/sub/resetcursor", R"({"ledgerId":-1,"entryId":-1})").status,
      204);
}

TEST_F(broker_routes_test, missing_subscription_is_404) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  EXPECT_EQ(call("POST", std::string(topic) + "/subscription/nope/skip_all").status, 404);
}

TEST_F(broker_routes_test, deletes_a_topic) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  EXPECT_EQ(call("DELETE", topic).status, 204);
  EXPECT_EQ(call("GET", std::string(topic) + "/stats").status, 404);
}

TEST_F(broker_routes_test, terminate_answers_the_last_message_id_and_the_state_shows_it) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  auto r = call("POST", std::string(topic) + "/terminate");
  ASSERT_EQ(r.status, 200) << r.body;
  auto last = body_of(r);
  EXPECT_EQ(last["entryId"], -1);  // nothing was published
  EXPECT_EQ(last["partitionIndex"], -1);
  EXPECT_TRUE(last["ledgerId"].is_number_integer());
  EXPECT_EQ(body_of(call("POST", std::string(topic) + "/terminate")), last);
  EXPECT_EQ(body_of(call("GET", std::string(topic) + "/internalStats"))["state"], "Terminated");
}

TEST_F(broker_routes_test, terminate_of_a_missing_topic_is_404) {
  EXPECT_EQ(call("POST", "/admin/v2/persistent/public/default/ghost/terminate").status, 404);
}

TEST_F(broker_routes_test, terminate_of_a_partitioned_topic_is_405) {
  ASSERT_EQ(call("PUT", std::string(topic) + "/partitions", "2").status, 204);
  EXPECT_EQ(call("POST", std::string(topic) + "/terminate").status, 405);
}

// What the scalable-topic controller calls to seal a segment.
TEST_F(broker_routes_test, the_broker_terminates_a_segment_topic) {
  auto name = wire::topic_name::parse("segment://public/default/st/0000-7fff-1").value();
  ASSERT_TRUE(io::block_on(cluster.shards[1], broker->topics().create_topic(name)));
  auto last = io::block_on(cluster.shards[1], broker->topics().terminate_topic(name));
  ASSERT_TRUE(last) << last.error();
  EXPECT_EQ(last.value().entry_id, -1);
  auto again = io::block_on(cluster.shards[1], broker->topics().terminate_topic(name));
  ASSERT_TRUE(again);
  EXPECT_EQ(again.value().ledger_id, last.value().ledger_id);
  auto stats = io::block_on(cluster.shards[1], broker->topics().internal_stats(name));
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats.value().state, "Terminated");
  auto missing = wire::topic_name::parse("segment://public/default/st/8000-ffff-2").value();
  EXPECT_EQ(io::block_on(cluster.shards[1], broker->topics().terminate_topic(missing)).error(), errc::topic_not_found);
}

TEST_F(broker_routes_test, metrics_include_a_loaded_topic) {
  ASSERT_EQ(call("PUT", topic).status, 204);
  ASSERT_EQ(call("GET", std::string(topic) + "/stats").status, 200);  // loads it
  auto r = call("GET", "/metrics");
  EXPECT_EQ(r.status, 200);
  EXPECT_THAT(
      r.body,
      HasSubstr(
          R"(pulsar_storage_size{cluster="standalone",namespace="public/default",topic="persistent://public/default/t1"})"));
}

}  // namespace
}  // namespace magnetar::broker::admin
