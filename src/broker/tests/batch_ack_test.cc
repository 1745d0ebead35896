// Raw-frame tests of cumulative acks inside a batch (upstream clients send them with
// batchIndexAckEnabled): the batch's partial state is kept, persisted with the cursor.
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

// A cumulative ack inside a batch (the batch-index ack upstream clients send with
// batchIndexAckEnabled) keeps the batch's partial state: a redelivery carries the ack_set,
// to a consumer that comes back and after a restart, so acknowledged messages stay acked.
class cumulative_batch_ack_test : public broker_test {
 protected:
  // One entry holding a batch of `count` messages; its id.
  proto::MessageIdData publish_batch(const std::string& topic, int count) {
    auto producer = connected_client();
    producer->send(producer_command(topic, 1, 1000, "p"));
    producer->expect(proto::BaseCommand::PRODUCER_SUCCESS);
    auto md = metadata("p", 0);
    md.set_num_messages_in_batch(count);
    auto send = send_command(1, 0);
    send.mutable_send()->set_num_messages(count);
    producer->send_payload(send, md, "batch-bytes");
    return producer->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().message_id();
  }

  // Subscribes (Exclusive, consumer 1) and returns the first MESSAGE.
  proto::CommandMessage first_message(raw_client& client, const std::string& topic) {
    client.send(subscribe_command(topic, "s", 1, 20));
    client.expect(proto::BaseCommand::SUCCESS);
    client.send(flow_command(1, 10));
    return client.expect(proto::BaseCommand::MESSAGE).command.message();
  }

  // The close is answered on the topic's shard after the acks sent before it.
  static void close_consumer(raw_client& client) {
    client.send(close_consumer_command(1, 99));
    client.expect(proto::BaseCommand::SUCCESS);
  }

  // Cumulative ack of messages 0 and 1 of a 4-message batch: bits 2 and 3 stay unacked.
  void ack_first_two(raw_client& client, proto::MessageIdData id) {
    id.add_ack_set(0b1100);
    client.send(ack_command(1, id, proto::CommandAck::Cumulative));
  }
};

TEST_F(cumulative_batch_ack_test, AConsumerThatComesBackGetsTheBatchWithItsAckSet) {
  publish_batch("cb1", 4);
  {
    auto client = connected_client();
    const auto message = first_message(*client, "cb1");
    EXPECT_EQ(message.ack_set_size(), 0);
    ack_first_two(*client, message.message_id());
    close_consumer(*client);
  }
  auto client = connected_client();
  const auto again = first_message(*client, "cb1");
  ASSERT_EQ(again.ack_set_size(), 1);
  EXPECT_EQ(again.ack_set(0), 0b1100);
}

TEST_F(cumulative_batch_ack_test, TheBatchsAckSetSurvivesARestart) {
  publish_batch("cb2", 4);
  {
    auto client = connected_client();
    ack_first_two(*client, first_message(*client, "cb2").message_id());
    close_consumer(*client);
  }
  restart();
  auto client = connected_client();
  const auto again = first_message(*client, "cb2");
  ASSERT_EQ(again.ack_set_size(), 1);
  EXPECT_EQ(again.ack_set(0), 0b1100);
}

}  // namespace
}  // namespace magnetar::broker::testing
