// What a topic does with another cluster's replicator (a producer named
// "pulsar.repl.<cluster>" sending entries marked replicated_from): it stores each entry
// once, deduplicating by the original producer's name and sequence ids even with the
// namespace's deduplication policy off, across a restart too, and counts them as
// replication in from that cluster.
#include "broker/tests/policies_fixture.h"

#include <limits>

namespace magnetar::broker::testing {
namespace {

constexpr auto minus_one = std::numeric_limits<std::uint64_t>::max();  // -1 as the wire's uint64

class replicated_publish_test : public policies_test {
 protected:
  void SetUp() override {
    policies_test::SetUp();
    // A second cluster, allowed by the tenant, replicating public/default: the topics
    // here then take replicators' entries. (Its URL leads nowhere; this side's own
    // replicators to it just keep trying.)
    for (const auto& name : {"east", "west"}) {
      auto made =
          call("PUT", fmt::format("/admin/v2/clusters/{}", name), R"({"brokerServiceUrl":"pulsar://127.0.0.1:1"})");
      ASSERT_EQ(made.status, 204) << made.body;
    }
    auto tenant =
        call("POST", "/admin/v2/tenants/public", R"({"adminRoles":[],"allowedClusters":["standalone","east","west"]})");
    ASSERT_EQ(tenant.status, 204) << tenant.body;
    auto replicated = call("POST", std::string(ns) + "/replication", R"(["standalone","east","west"])");
    ASSERT_EQ(replicated.status, 204) << replicated.body;
  }

  // The replicator of `cluster` sends the original producer `producer`'s entry
  // `sequence_id` under its own SEND sequence id `send_id`; the answer.
  static wire::frame replicate(raw_client& client, std::uint64_t producer_id, const std::string& cluster,
                               const std::string& producer, std::uint64_t sequence_id, std::uint64_t send_id) {
    auto m = metadata(producer, sequence_id);
    m.set_replicated_from(cluster);
    client.send_payload(send_command(producer_id, send_id), m, cluster + "-" + std::to_string(sequence_id));
    return client.expect(proto::BaseCommand::SEND_RECEIPT);
  }

  static bool names_no_entry(const wire::frame& receipt) {
    const auto& id = receipt.command.send_receipt().message_id();
    return id.ledgerid() == minus_one && id.entryid() == minus_one;
  }
};

TEST_F(replicated_publish_test, an_entry_a_replicator_sends_again_is_receipted_and_not_stored_twice) {
  auto client = connected_client();
  create_producer(*client, "r1", 1, "pulsar.repl.east");
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_FALSE(names_no_entry(replicate(*client, 1, "east", "p", i, 100 + i)));
  auto again = replicate(*client, 1, "east", "p", 1, 103);
  EXPECT_EQ(again.command.send_receipt().sequence_id(), 103u);
  EXPECT_TRUE(names_no_entry(again));
  EXPECT_EQ(entries("r1"), 3);
  EXPECT_EQ(stats("r1")["deduplicationStatus"], "Enabled");
}

TEST_F(replicated_publish_test, a_replicator_sending_again_after_a_restart_stores_nothing_twice) {
  {
    auto client = connected_client();
    create_producer(*client, "r2", 1, "pulsar.repl.east");
    for (std::uint64_t i = 0; i < 5; ++i) replicate(*client, 1, "east", "p", i, 100 + i);
  }
  restart();
  auto client = connected_client();
  create_producer(*client, "r2", 1, "pulsar.repl.east");
  EXPECT_TRUE(names_no_entry(replicate(*client, 1, "east", "p", 3, 200)));
  EXPECT_TRUE(names_no_entry(replicate(*client, 1, "east", "p", 4, 201)));
  EXPECT_FALSE(names_no_entry(replicate(*client, 1, "east", "p", 5, 202)));
  EXPECT_EQ(entries("r2"), 6);
}

TEST_F(replicated_publish_test, producers_of_one_name_in_two_clusters_are_told_apart) {
  auto client = connected_client();
  create_producer(*client, "r3", 1, "pulsar.repl.east");
  create_producer(*client, "r3", 2, "pulsar.repl.west");
  EXPECT_FALSE(names_no_entry(replicate(*client, 1, "east", "p", 7, 1)));
  EXPECT_FALSE(names_no_entry(replicate(*client, 2, "west", "p", 0, 1)));
  EXPECT_EQ(entries("r3"), 2);
}

TEST_F(replicated_publish_test, a_local_producer_is_not_deduplicated_without_the_policy) {
  auto client = connected_client();
  create_producer(*client, "r4", 1, "p");
  send(*client, 1, "p", 0);
  EXPECT_FALSE(names_no_entry(send(*client, 1, "p", 0)));
  EXPECT_EQ(entries("r4"), 2);
}

TEST_F(replicated_publish_test, topic_stats_count_replication_in_by_cluster) {
  auto client = connected_client();
  create_producer(*client, "r5", 1, "pulsar.repl.east");
  for (std::uint64_t i = 0; i < 4; ++i) replicate(*client, 1, "east", "p", i, i);
  const auto s = stats("r5");
  ASSERT_TRUE(s["replication"].contains("east")) << s;
  EXPECT_EQ(s["replication"]["east"]["msgInCount"], 4) << s;
  EXPECT_FALSE(s["subscriptions"].contains("pulsar.repl.east")) << s;
}

}  // namespace
}  // namespace magnetar::broker::testing
