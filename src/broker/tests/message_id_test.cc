// Raw-frame tests of the message ids the broker hands out: a partition's index travels in
// every id of a partitioned topic's partition (MESSAGE, SEND_RECEIPT,
// GET_LAST_MESSAGE_ID_RESPONSE), and an empty topic's last message id is (-1, -1), which
// is how a reader learns that no message is available.
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class message_id_test : public broker_test {
 protected:
  void create_partitioned(const std::string& topic, int partitions) {
    auto r = call("PUT", "/admin/v2/persistent/public/default/" + topic + "/partitions", std::to_string(partitions));
    ASSERT_EQ(r.status, 204) << r.body;
  }

  proto::CommandGetLastMessageIdResponse last_message_id(raw_client& client, std::uint64_t consumer_id) {
    proto::BaseCommand request;
    request.set_type(proto::BaseCommand::GET_LAST_MESSAGE_ID);
    request.mutable_getlastmessageid()->set_consumer_id(consumer_id);
    request.mutable_getlastmessageid()->set_request_id(77);
    client.send(request);
    return client.expect(proto::BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE).command.getlastmessageidresponse();
  }
};

TEST_F(message_id_test, ReceiptOfAPartitionCarriesItsIndex) {
  create_partitioned("pt1", 3);
  auto client = connected_client();
  client->send(producer_command("pt1-partition-2", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send_payload(send_command(1, 0), metadata("p", 0), "hello");
  auto receipt = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt();
  EXPECT_EQ(receipt.message_id().partition(), 2);
}

TEST_F(message_id_test, MessageOfAPartitionCarriesItsIndex) {
  create_partitioned("pt2", 2);
  auto client = connected_client();
  publish(*client, "pt2-partition-1", 1);
  client->send(subscribe_command("pt2-partition-1", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  auto message = client->expect(proto::BaseCommand::MESSAGE).command.message();
  EXPECT_EQ(message.message_id().partition(), 1);
}

TEST_F(message_id_test, IdsOfATopicThatIsNoPartitionLeaveThePartitionUnset) {
  auto client = connected_client();
  client->send(producer_command("plain", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send_payload(send_command(1, 0), metadata("p", 0), "hello");
  auto receipt = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt();
  EXPECT_EQ(receipt.message_id().partition(), -1);
}

TEST_F(message_id_test, LastMessageIdOfAnEmptyTopicIsMinusOne) {
  auto client = connected_client();
  client->send(subscribe_command("empty", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto reply = last_message_id(*client, 1);
  EXPECT_EQ(static_cast<std::int64_t>(reply.last_message_id().ledgerid()), -1);
  EXPECT_EQ(static_cast<std::int64_t>(reply.last_message_id().entryid()), -1);
}

TEST_F(message_id_test, LastMessageIdOfAnEmptyPartitionCarriesItsIndex) {
  create_partitioned("pt3", 4);
  auto client = connected_client();
  client->send(subscribe_command("pt3-partition-3", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto reply = last_message_id(*client, 1);
  EXPECT_EQ(static_cast<std::int64_t>(reply.last_message_id().entryid()), -1);
  EXPECT_EQ(reply.last_message_id().partition(), 3);
}

TEST_F(message_id_test, LastMessageIdOfAPartitionIsItsLastEntryWithItsIndex) {
  create_partitioned("pt4", 2);
  auto client = connected_client();
  client->send(producer_command("pt4-partition-0", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send_payload(send_command(1, 0), metadata("p", 0), "hello");
  const auto stored = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().message_id();
  client->send(subscribe_command("pt4-partition-0", "s", 2, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto reply = last_message_id(*client, 2);
  EXPECT_EQ(reply.last_message_id().ledgerid(), stored.ledgerid());
  EXPECT_EQ(reply.last_message_id().entryid(), stored.entryid());
  EXPECT_EQ(reply.last_message_id().partition(), 0);
}

}  // namespace
}  // namespace magnetar::broker::testing
