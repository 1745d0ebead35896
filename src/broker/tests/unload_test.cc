// Topic and namespace unload (PUT .../unload): the clients are told to go (CLOSE_PRODUCER,
// CLOSE_CONSUMER), come back, and find every receipted message, unacknowledged ones
// delivered again.
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class unload_test : public broker_test {
 protected:
  static std::string topic_path(const std::string& topic) { return "/admin/v2/persistent/public/default/" + topic; }

  // A producer (id 1) that published `count` messages and a consumer (id 2) that
  // received them without acknowledging, both on one connection.
  std::unique_ptr<raw_client> producing_and_consuming(const std::string& topic, int count) {
    auto client = connected_client();
    client->send(subscribe_command(topic, "s", 2, 20));
    client->expect(proto::BaseCommand::SUCCESS);
    publish(*client, topic, count);
    client->send(flow_command(2, 100));
    for (int i = 0; i < count; ++i) client->expect(proto::BaseCommand::MESSAGE);
    return client;
  }

  // Reads the two close commands in whichever order they come.
  static void expect_both_closed(raw_client& client) {
    bool producer_closed = false;
    bool consumer_closed = false;
    for (int i = 0; i < 2; ++i) {
      auto frame = client.next();
      ASSERT_TRUE(frame);
      if (frame->command.type() == proto::BaseCommand::CLOSE_PRODUCER) producer_closed = true;
      if (frame->command.type() == proto::BaseCommand::CLOSE_CONSUMER) consumer_closed = true;
    }
    EXPECT_TRUE(producer_closed);
    EXPECT_TRUE(consumer_closed);
  }
};

TEST_F(unload_test, UnloadClosesTheClientsAndTheyComeBackToEveryMessage) {
  auto client = producing_and_consuming("u1", 3);
  ASSERT_EQ(call("PUT", topic_path("u1") + "/unload").status, 204);
  expect_both_closed(*client);

  // The client comes back as upstream clients do: the same ids, a new request.
  client->send(producer_command("u1", 1, 30, "p1"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send_payload(send_command(1, 3), metadata("p", 3), "m3");
  client->expect(proto::BaseCommand::SEND_RECEIPT);
  client->send(subscribe_command("u1", "s", 2, 31));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(2, 100));
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(std::string(client->expect(proto::BaseCommand::MESSAGE).payload.as_chars()), "m" + std::to_string(i));
  }
}

TEST_F(unload_test, UnloadingAPartitionedTopicUnloadsEachPartition) {
  ASSERT_EQ(call("PUT", topic_path("u2") + "/partitions", "2").status, 204);
  auto first = producing_and_consuming("u2-partition-0", 1);
  auto second = producing_and_consuming("u2-partition-1", 1);
  ASSERT_EQ(call("PUT", topic_path("u2") + "/unload").status, 204);
  expect_both_closed(*first);
  expect_both_closed(*second);
}

TEST_F(unload_test, UnloadingANamespaceUnloadsItsTopics) {
  auto client = producing_and_consuming("u3", 1);
  ASSERT_EQ(call("PUT", "/admin/v2/namespaces/public/default/unload").status, 204);
  expect_both_closed(*client);
}

TEST_F(unload_test, UnloadingTheNamespacesBundleUnloadsItsTopics) {
  auto client = producing_and_consuming("u4", 1);
  ASSERT_EQ(call("PUT", "/admin/v2/namespaces/public/default/0x00000000_0xffffffff/unload").status, 204);
  expect_both_closed(*client);
}

TEST_F(unload_test, UnloadingATopicThatIsNotLoadedSucceeds) {
  ASSERT_EQ(call("PUT", topic_path("u5")).status, 204);
  EXPECT_EQ(call("PUT", topic_path("u5") + "/unload").status, 204);
}

TEST_F(unload_test, UnloadingAMissingTopicIsNotFound) {
  EXPECT_EQ(call("PUT", topic_path("never") + "/unload").status, 404);
}

TEST_F(unload_test, UnloadingAMissingNamespaceIsNotFound) {
  EXPECT_EQ(call("PUT", "/admin/v2/namespaces/public/nowhere/unload").status, 404);
}

}  // namespace
}  // namespace magnetar::broker::testing
