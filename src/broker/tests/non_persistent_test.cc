// Raw-frame tests of non-persistent topics: receipted at once with entry 0:0, delivered to
// consumers that have permits and dropped (and counted) for the others, each subscription
// type, listed for pattern subscriptions while active, unloaded and seen in stats.
#include "broker/tests/broker_fixture.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;

class non_persistent_test : public broker_test {
 protected:
  static std::string np(const std::string& local) { return "non-persistent://public/default/" + local; }

  // Producer 1 on `topic` from `client`.
  static void create_producer(raw_client& client, const std::string& topic) {
    client.send(producer_command(topic, 1, 1000, "p"));
    client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
  }
  static void send(raw_client& client, int i, const std::string& key = "") {
    auto md = metadata("p", static_cast<std::uint64_t>(i));
    if (!key.empty()) md.set_partition_key(key);
    client.send_payload(send_command(1, static_cast<std::uint64_t>(i)), md, "m" + std::to_string(i));
    client.expect(proto::BaseCommand::SEND_RECEIPT);
  }
  void subscribe(raw_client& client, const std::string& topic, proto::CommandSubscribe::SubType type,
                 const std::string& consumer_name = "c", std::uint32_t permits = 100) {
    client.send(subscribe_command(topic, "s", 1, 20, type, consumer_name));
    client.expect(proto::BaseCommand::SUCCESS);
    if (permits > 0) client.send(flow_command(1, permits));
  }
  static std::string text(const wire::frame& f) { return std::string(f.payload.as_chars()); }

  json stats(const std::string& local) {
    auto r = call("GET", "/admin/v2/non-persistent/public/default/" + local + "/stats");
    EXPECT_EQ(r.status, 200) << r.body;
    return json::parse(r.body, nullptr, false);
  }
};

TEST_F(non_persistent_test, ASendIsReceiptedAtOnceAsEntryZero) {
  auto client = connected_client();
  create_producer(*client, np("n1"));
  client->send_payload(send_command(1, 0), metadata("p", 0), "nobody listens");
  const auto receipt = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt();
  EXPECT_EQ(receipt.sequence_id(), 0u);
  EXPECT_EQ(receipt.message_id().ledgerid(), 0u);
  EXPECT_EQ(receipt.message_id().entryid(), 0u);
}

TEST_F(non_persistent_test, AConsumerWithPermitsGetsEachMessage) {
  auto consumer = connected_client();
  subscribe(*consumer, np("n2"), proto::CommandSubscribe::Exclusive);
  sync(*consumer);
  auto producer = connected_client();
  create_producer(*producer, np("n2"));
  for (int i = 0; i < 3; ++i) send(*producer, i);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(text(consumer->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
}

TEST_F(non_persistent_test, MessagesNoConsumerHasRoomForAreDroppedAndCounted) {
  auto consumer = connected_client();
  subscribe(*consumer, np("n3"), proto::CommandSubscribe::Exclusive, "c", /*permits=*/0);
  stats("n3");  // starts the rate window
  auto producer = connected_client();
  create_producer(*producer, np("n3"));
  send(*producer, 0);
  send(*producer, 1);
  EXPECT_GT(stats("n3")["subscriptions"]["s"]["msgDropRate"].get<double>(), 0);
  consumer->send(flow_command(1, 10));
  sync(*consumer);
  send(*producer, 2);
  // The dropped ones are gone for good: the first message this consumer sees is m2.
  EXPECT_EQ(text(consumer->expect(proto::BaseCommand::MESSAGE)), "m2");
}

TEST_F(non_persistent_test, SharedConsumersTakeTurns) {
  auto a = connected_client();
  subscribe(*a, np("n4"), proto::CommandSubscribe::Shared, "a");
  sync(*a);
  auto b = connected_client();
  subscribe(*b, np("n4"), proto::CommandSubscribe::Shared, "b");
  sync(*b);
  auto producer = connected_client();
  create_producer(*producer, np("n4"));
  for (int i = 0; i < 4; ++i) send(*producer, i);
  EXPECT_EQ(text(a->expect(proto::BaseCommand::MESSAGE)), "m0");
  EXPECT_EQ(text(b->expect(proto::BaseCommand::MESSAGE)), "m1");
  EXPECT_EQ(text(a->expect(proto::BaseCommand::MESSAGE)), "m2");
  EXPECT_EQ(text(b->expect(proto::BaseCommand::MESSAGE)), "m3");
}

TEST_F(non_persistent_test, AnExclusiveSubscriptionTakesOneConsumer) {
  auto a = connected_client();
  subscribe(*a, np("n5"), proto::CommandSubscribe::Exclusive, "a");
  auto b = connected_client();
  b->send(subscribe_command(np("n5"), "s", 1, 21, proto::CommandSubscribe::Exclusive, "b"));
  EXPECT_EQ(b->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ConsumerBusy);
}

TEST_F(non_persistent_test, FailoverDeliversToTheFirstConsumerByName) {
  auto second = connected_client();
  subscribe(*second, np("n6"), proto::CommandSubscribe::Failover, "zed");
  sync(*second);
  auto first = connected_client();
  subscribe(*first, np("n6"), proto::CommandSubscribe::Failover, "alpha");
  sync(*first);
  auto producer = connected_client();
  create_producer(*producer, np("n6"));
  send(*producer, 0);
  EXPECT_EQ(text(first->expect(proto::BaseCommand::MESSAGE)), "m0");
  sync(*second);  // nothing came before the pong
}

TEST_F(non_persistent_test, KeySharedKeepsAKeyOnOneConsumer) {
  auto a = connected_client();
  subscribe(*a, np("n7"), proto::CommandSubscribe::Key_Shared, "a");
  sync(*a);
  auto b = connected_client();
  subscribe(*b, np("n7"), proto::CommandSubscribe::Key_Shared, "b");
  sync(*b);
  auto producer = connected_client();
  create_producer(*producer, np("n7"));
  for (int i = 0; i < 6; ++i) send(*producer, i, "device-42");
  const auto s = stats("n7")["subscriptions"]["s"]["consumers"];
  ASSERT_EQ(s.size(), 2u);
  const auto got_a = s[0]["msgOutCounter"].get<int>();
  const auto got_b = s[1]["msgOutCounter"].get<int>();
  EXPECT_EQ(got_a + got_b, 6);
  EXPECT_TRUE(got_a == 0 || got_b == 0) << got_a << " / " << got_b;
}

TEST_F(non_persistent_test, PatternListingsIncludeActiveNonPersistentTopicsByMode) {
  auto producer = connected_client();
  create_producer(*producer, np("n8"));
  publish(*producer, "persistent-one", 1, 2);
  auto list = [&](proto::CommandGetTopicsOfNamespace::Mode mode) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE);
    c.mutable_gettopicsofnamespace()->set_namespace_("public/default");
    c.mutable_gettopicsofnamespace()->set_request_id(9);
    c.mutable_gettopicsofnamespace()->set_mode(mode);
    producer->send(c);
    const auto r = producer->expect(proto::BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE);
    const auto& topics = r.command.gettopicsofnamespaceresponse().topics();
    return std::vector<std::string>(topics.begin(), topics.end());
  };
  using ::testing::Contains;
  using ::testing::Not;
  EXPECT_THAT(list(proto::CommandGetTopicsOfNamespace::NON_PERSISTENT), Contains(np("n8")));
  EXPECT_THAT(list(proto::CommandGetTopicsOfNamespace::NON_PERSISTENT),
              Not(Contains("persistent://public/default/persistent-one")));
  EXPECT_THAT(list(proto::CommandGetTopicsOfNamespace::PERSISTENT), Not(Contains(np("n8"))));
  EXPECT_THAT(list(proto::CommandGetTopicsOfNamespace::ALL), Contains(np("n8")));
}

TEST_F(non_persistent_test, GetLastMessageIdIsRefused) {
  auto client = connected_client();
  subscribe(*client, np("n9"), proto::CommandSubscribe::Exclusive);
  proto::BaseCommand request;
  request.set_type(proto::BaseCommand::GET_LAST_MESSAGE_ID);
  request.mutable_getlastmessageid()->set_consumer_id(1);
  request.mutable_getlastmessageid()->set_request_id(30);
  client->send(request);
  const auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.request_id(), 30u);
  // What upstream's table view relies on to refuse a non-persistent topic.
  EXPECT_EQ(error.error(), proto::NotAllowedError);
}

TEST_F(non_persistent_test, TheRestListingTakesAMode) {
  auto client = connected_client();
  create_producer(*client, np("n12"));
  const std::string path = "/admin/v2/namespaces/public/default/topics";
  EXPECT_EQ(json::parse(call("GET", path + "?mode=NON_PERSISTENT").body), json::array({np("n12")}));
  EXPECT_FALSE(call("GET", path).body.find(np("n12")) != std::string::npos);
  EXPECT_NE(call("GET", path + "?mode=ALL").body.find(np("n12")), std::string::npos);
  EXPECT_EQ(call("GET", path + "?mode=SOME").status, 400);
}

TEST_F(non_persistent_test, UnsubscribeRemovesTheSubscription) {
  auto client = connected_client();
  subscribe(*client, np("n13"), proto::CommandSubscribe::Shared);
  create_producer(*client, np("n13"));
  proto::BaseCommand unsubscribe;
  unsubscribe.set_type(proto::BaseCommand::UNSUBSCRIBE);
  unsubscribe.mutable_unsubscribe()->set_consumer_id(1);
  unsubscribe.mutable_unsubscribe()->set_request_id(40);
  client->send(unsubscribe);
  client->expect(proto::BaseCommand::SUCCESS);
  EXPECT_TRUE(stats("n13")["subscriptions"].empty());
}

TEST_F(non_persistent_test, UnloadClosesItsClients) {
  auto client = connected_client();
  create_producer(*client, np("n10"));
  ASSERT_EQ(call("PUT", "/admin/v2/non-persistent/public/default/n10/unload").status, 204);
  client->expect(proto::BaseCommand::CLOSE_PRODUCER);
  EXPECT_EQ(call("GET", "/admin/v2/non-persistent/public/default/n10/stats").status, 404);
}

TEST_F(non_persistent_test, StatsShowPublishersAndSubscriptions) {
  auto client = connected_client();
  subscribe(*client, np("n11"), proto::CommandSubscribe::Shared);
  create_producer(*client, np("n11"));
  const auto s = stats("n11");
  ASSERT_EQ(s["publishers"].size(), 1u);
  EXPECT_EQ(s["publishers"][0]["producerName"], "p");
  EXPECT_EQ(s["subscriptions"]["s"]["type"], "Shared");
  EXPECT_TRUE(s.contains("msgDropRate"));
}

TEST_F(non_persistent_test, APartitionPastItsTopicsCountIsRefused) {
  ASSERT_EQ(call("PUT", "/admin/v2/non-persistent/public/default/np-parts/partitions", "2").status, 204);
  EXPECT_EQ(json::parse(call("GET", "/admin/v2/non-persistent/public/default/np-parts/partitions").body)["partitions"],
            2);
  auto client = connected_client();
  client->send(producer_command(np("np-parts-partition-2"), 1, 10, "p"));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::NotAllowedError);
  create_producer(*client, np("np-parts-partition-1"));
}

}  // namespace
}  // namespace magnetar::broker::testing
