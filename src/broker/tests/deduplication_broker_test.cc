// Producer deduplication through the protocol: SEND receipts for duplicates, the
// PRODUCER_SUCCESS's last sequence id, a broker restart, and the namespace policy.
#include "broker/tests/policies_fixture.h"

#include <limits>

namespace magnetar::broker::testing {
namespace {

constexpr auto minus_one = std::numeric_limits<std::uint64_t>::max();  // -1 as the wire's uint64

class deduplication_broker_test : public policies_test {
 protected:
  deduplication_broker_test() { config.broker_deduplication_enabled = true; }
};

bool names_no_entry(const wire::frame& receipt) {
  const auto& id = receipt.command.send_receipt().message_id();
  return id.ledgerid() == minus_one && id.entryid() == minus_one;
}

TEST_F(deduplication_broker_test, ResentSequenceIdIsReceiptedAsMinusOneAndNotStored) {
  auto client = connected_client();
  create_producer(*client, "d1", 1, "p");
  for (std::uint64_t i = 0; i < 3; ++i) EXPECT_FALSE(names_no_entry(send(*client, 1, "p", i)));
  auto again = send(*client, 1, "p", 1);
  EXPECT_EQ(again.command.send_receipt().sequence_id(), 1u);
  EXPECT_TRUE(names_no_entry(again));
  EXPECT_EQ(entries("d1"), 3);
  EXPECT_EQ(receive("d1", "s", 3), (std::vector<std::string>{"m0", "m1", "m2"}));
}

TEST_F(deduplication_broker_test, ProducerSuccessCarriesTheLastSequenceIdOfItsName) {
  {
    auto client = connected_client();
    create_producer(*client, "d2", 1, "p");
    for (std::uint64_t i = 0; i < 5; ++i) send(*client, 1, "p", i);
  }
  auto client = connected_client();
  // The first connection's producer leaves when its close reaches the topic.
  for (std::uint64_t request = 0;; ++request) {
    client->send(producer_command("d2", 1, request, "p"));
    auto reply = client->next();
    ASSERT_TRUE(reply);
    if (reply->command.type() == proto::BaseCommand::PRODUCER_SUCCESS) {
      EXPECT_EQ(reply->command.producer_success().last_sequence_id(), 4);
      break;
    }
    ASSERT_EQ(reply->command.error().error(), proto::ProducerBusy);
  }
  auto other = create_producer(*client, "d2", 2, "other");
  EXPECT_EQ(other.command.producer_success().last_sequence_id(), -1);
}

TEST_F(deduplication_broker_test, AProducerResendingAfterARestartGetsNoDuplicate) {
  {
    auto client = connected_client();
    create_producer(*client, "d3", 1, "p");
    for (std::uint64_t i = 0; i < 5; ++i) send(*client, 1, "p", i);
  }
  restart();
  auto client = connected_client();
  auto created = create_producer(*client, "d3", 1, "p");
  EXPECT_EQ(created.command.producer_success().last_sequence_id(), 4);
  // What a client resends when it never saw the receipts of 3 and 4.
  EXPECT_TRUE(names_no_entry(send(*client, 1, "p", 3)));
  EXPECT_TRUE(names_no_entry(send(*client, 1, "p", 4)));
  EXPECT_FALSE(names_no_entry(send(*client, 1, "p", 5)));
  EXPECT_EQ(entries("d3"), 6);
  EXPECT_EQ(receive("d3", "s", 6), (std::vector<std::string>{"m0", "m1", "m2", "m3", "m4", "m5"}));
}

TEST_F(deduplication_broker_test, TopicStatsShowTheDeduplicationStatus) {
  auto client = connected_client();
  create_producer(*client, "d4", 1, "p");
  EXPECT_EQ(stats("d4")["deduplicationStatus"], "Enabled");
}

TEST_F(deduplication_broker_test, TheDeduplicationCursorIsNoSubscription) {
  auto client = connected_client();
  create_producer(*client, "d5", 1, "p");
  send(*client, 1, "p", 0);
  EXPECT_TRUE(stats("d5")["subscriptions"].empty());
  EXPECT_EQ(call("GET", topic_path("d5") + "/subscriptions").body, "[]");
}

class timed_snapshot_test : public deduplication_broker_test {
 protected:
  timed_snapshot_test() { config.broker_deduplication_snapshot_interval = std::chrono::milliseconds(200); }
};

TEST_F(timed_snapshot_test, AQuietTopicIsSnapshottedOnATimer) {
  auto client = connected_client();
  create_producer(*client, "d6", 1, "p");
  for (std::uint64_t i = 0; i < 3; ++i) send(*client, 1, "p", i);  // far below the entries interval
  EXPECT_TRUE(eventually([&] {
    auto r = call("GET", topic_path("d6") + "/internalStats");
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() && j["cursors"].contains("pulsar.dedup") &&
           j["cursors"]["pulsar.dedup"]["markDeletePosition"] == j["lastConfirmedEntry"];
  }));
}

class deduplication_policy_test : public policies_test {};

TEST_F(deduplication_policy_test, WithoutDeduplicationAResendIsStoredAgain) {
  auto client = connected_client();
  auto created = create_producer(*client, "n1", 1, "p");
  EXPECT_EQ(created.command.producer_success().last_sequence_id(), -1);
  send(*client, 1, "p", 0);
  EXPECT_FALSE(names_no_entry(send(*client, 1, "p", 0)));
  EXPECT_EQ(entries("n1"), 2);
  EXPECT_EQ(stats("n1")["deduplicationStatus"], "Disabled");
}

TEST_F(deduplication_policy_test, TheNamespacePolicyIsSetReadAndRemoved) {
  EXPECT_EQ(call("GET", std::string(ns) + "/deduplication").status, 204);
  EXPECT_EQ(call("POST", std::string(ns) + "/deduplication", "true").status, 204);
  EXPECT_EQ(call("GET", std::string(ns) + "/deduplication").body, "true");
  EXPECT_EQ(call("POST", std::string(ns) + "/deduplication", "\"yes\"").status, 400);
  EXPECT_EQ(call("DELETE", std::string(ns) + "/deduplication").status, 204);
  EXPECT_EQ(call("GET", std::string(ns) + "/deduplication").status, 204);
}

TEST_F(deduplication_policy_test, TheNamespacePolicyTurnsDeduplicationOnForALoadedTopic) {
  auto client = connected_client();
  create_producer(*client, "n2", 1, "p");
  send(*client, 1, "p", 0);
  ASSERT_EQ(call("POST", std::string(ns) + "/deduplication", "true").status, 204);
  // The admin call reaches the loaded topic before it answers.
  EXPECT_EQ(stats("n2")["deduplicationStatus"], "Enabled");
  send(*client, 1, "p", 1);
  EXPECT_TRUE(names_no_entry(send(*client, 1, "p", 1)));
  ASSERT_EQ(call("POST", std::string(ns) + "/deduplication", "false").status, 204);
  EXPECT_EQ(stats("n2")["deduplicationStatus"], "Disabled");
  EXPECT_FALSE(names_no_entry(send(*client, 1, "p", 1)));
}

}  // namespace
}  // namespace magnetar::broker::testing
