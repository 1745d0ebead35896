// Raw-frame tests of producers: PRODUCER, SEND, receipts and errors, CLOSE_PRODUCER.
#include "broker/tests/broker_fixture.h"
#include "wire/big_endian.h"

namespace magnetar::broker::testing {
namespace {

class producer_test : public broker_test {};

TEST_F(producer_test, ProducerWithoutNameGetsAGeneratedOne) {
  auto client = connected_client();
  client->send(producer_command("t1", 1, 10));
  auto reply = client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  EXPECT_EQ(reply.command.producer_success().request_id(), 10u);
  EXPECT_FALSE(reply.command.producer_success().producer_name().empty());
  EXPECT_EQ(reply.command.producer_success().last_sequence_id(), -1);
}

TEST_F(producer_test, SendIsReceiptedWithMessageIdsInOrder) {
  auto client = connected_client();
  client->send(producer_command("t2", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  for (int i = 0; i < 3; ++i) client->send_payload(send_command(1, i), metadata("p", i), "hello");
  std::int64_t previous_entry = -1;
  for (int i = 0; i < 3; ++i) {
    auto receipt = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt();
    EXPECT_EQ(receipt.sequence_id(), static_cast<std::uint64_t>(i));
    EXPECT_EQ(receipt.producer_id(), 1u);
    EXPECT_GT(static_cast<std::int64_t>(receipt.message_id().entryid()), previous_entry);
    previous_entry = static_cast<std::int64_t>(receipt.message_id().entryid());
  }
}

TEST_F(producer_test, PipelinedSendsAreReceiptedInSendOrder) {
  auto client = connected_client();
  client->send(producer_command("t2b", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  constexpr int count = 3000;
  std::vector<std::byte> burst;
  const std::string payload(100, 'x');
  for (int i = 0; i < count; ++i) {
    wire::append_payload_command(burst, send_command(1, i), metadata("p", i), std::as_bytes(std::span(payload)));
  }
  client->write(burst);
  for (int i = 0; i < count; ++i) {
    auto receipt = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt();
    ASSERT_EQ(receipt.sequence_id(), static_cast<std::uint64_t>(i));
  }
}

TEST_F(producer_test, SendWithWrongChecksumGetsChecksumError) {
  auto client = connected_client();
  client->send(producer_command("t3", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  const std::string payload = "hello";
  auto frame = wire::encode_payload_command(send_command(1, 0), metadata("p", 0), std::as_bytes(std::span(payload)));
  frame.back() ^= std::byte{1};  // flip a payload bit after the checksum was computed
  client->write(frame);
  auto error = client->expect(proto::BaseCommand::SEND_ERROR).command.send_error();
  EXPECT_EQ(error.error(), proto::ChecksumError);
  EXPECT_EQ(error.sequence_id(), 0u);
}

TEST_F(producer_test, SendForUnknownProducerGetsSendError) {
  auto client = connected_client();
  client->send_payload(send_command(42, 0), metadata("p", 0), "x");
  EXPECT_EQ(client->expect(proto::BaseCommand::SEND_ERROR).command.send_error().producer_id(), 42u);
}

TEST_F(producer_test, InvalidTopicNameIsRefused) {
  auto client = connected_client();
  client->send(producer_command("persistent://only/two", 1, 10));
  auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::InvalidTopicName);
  EXPECT_EQ(error.request_id(), 10u);
}

TEST_F(producer_test, SecondProducerWithTheSameNameIsBusy) {
  auto first = connected_client();
  first->send(producer_command("t4", 1, 10, "same"));
  first->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto second = connected_client();
  second->send(producer_command("t4", 1, 11, "same"));
  // The broker asks the holder for a sign of life (producer_name_liveness_test.cc); a
  // live client answers.
  first->expect(proto::BaseCommand::PING);
  proto::BaseCommand pong;
  pong.set_type(proto::BaseCommand::PONG);
  pong.mutable_pong();
  first->send(pong);
  EXPECT_EQ(second->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
}

TEST_F(producer_test, ExclusiveProducerKeepsOthersOut) {
  auto first = connected_client();
  auto exclusive = producer_command("t5", 1, 10, "one");
  exclusive.mutable_producer()->set_producer_access_mode(proto::Exclusive);
  first->send(exclusive);
  first->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto second = connected_client();
  second->send(producer_command("t5", 1, 11, "two"));
  EXPECT_EQ(second->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
}

TEST_F(producer_test, WaitForExclusiveOnAFreeTopicIsReadyAtOnce) {
  auto client = connected_client();
  client->send(with_mode(producer_command("w1", 1, 10, "waiter"), proto::WaitForExclusive));
  EXPECT_TRUE(client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  client->send_payload(send_command(1, 0), metadata("waiter", 0), "hello");
  client->expect(proto::BaseCommand::SEND_RECEIPT);
}

TEST_F(producer_test, WaitForExclusiveIsQueuedUntilTheExclusiveProducerCloses) {
  auto owner = connected_client();
  owner->send(with_mode(producer_command("w2", 1, 10, "owner"), proto::Exclusive));
  owner->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto waiter = connected_client();
  waiter->send(with_mode(producer_command("w2", 7, 20, "waiter"), proto::WaitForExclusive));
  const auto queued = waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  EXPECT_EQ(queued.request_id(), 20u);
  EXPECT_FALSE(queued.producer_ready());
  // Not ready: its sends are refused, the owner's go on.
  waiter->send_payload(send_command(7, 0), metadata("waiter", 0), "too early");
  EXPECT_EQ(waiter->expect(proto::BaseCommand::SEND_ERROR).command.send_error().error(), proto::NotAllowedError);
  owner->send_payload(send_command(1, 0), metadata("owner", 0), "mine");
  owner->expect(proto::BaseCommand::SEND_RECEIPT);

  owner->send(close_producer_command(1, 11));
  owner->expect(proto::BaseCommand::SUCCESS);
  const auto ready = waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  EXPECT_EQ(ready.request_id(), 20u);
  EXPECT_TRUE(ready.producer_ready());
  waiter->send_payload(send_command(7, 1), metadata("waiter", 1), "now");
  EXPECT_EQ(waiter->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().sequence_id(), 1u);
}

TEST_F(producer_test, WaitingProducersGetTheTopicInArrivalOrderAsConnectionsDrop) {
  auto owner = connected_client();
  owner->send(with_mode(producer_command("w3", 1, 10, "owner"), proto::Exclusive));
  owner->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto first = connected_client();
  first->send(with_mode(producer_command("w3", 1, 20, "first"), proto::WaitForExclusive));
  EXPECT_FALSE(first->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  auto second = connected_client();
  second->send(with_mode(producer_command("w3", 1, 30, "second"), proto::WaitForExclusive));
  EXPECT_FALSE(second->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());

  owner.reset();  // the owner's connection drops
  EXPECT_TRUE(first->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  first->send(close_producer_command(1, 21));
  first->expect(proto::BaseCommand::SUCCESS);
  EXPECT_TRUE(second->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
}

TEST_F(producer_test, SharedAndExclusiveProducersAreRefusedWhileOneWaits) {
  auto owner = connected_client();
  owner->send(with_mode(producer_command("w4", 1, 10, "owner"), proto::Exclusive));
  owner->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto waiter = connected_client();
  waiter->send(with_mode(producer_command("w4", 1, 20, "waiter"), proto::WaitForExclusive));
  waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  owner->send(close_producer_command(1, 11));
  owner->expect(proto::BaseCommand::SUCCESS);
  waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS);  // ready: the waiter owns the topic now
  auto late = connected_client();
  late->send(producer_command("w4", 1, 30, "shared"));
  EXPECT_EQ(late->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
  late->send(with_mode(producer_command("w4", 2, 31, "exclusive"), proto::Exclusive));
  EXPECT_EQ(late->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerFenced);
}

TEST_F(producer_test, AFencingProducerFailsTheWaitingOnesRequests) {
  auto owner = connected_client();
  owner->send(with_mode(producer_command("w5", 1, 10, "owner"), proto::Exclusive));
  owner->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto waiter = connected_client();
  waiter->send(with_mode(producer_command("w5", 1, 20, "waiter"), proto::WaitForExclusive));
  EXPECT_FALSE(waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  auto fencer = connected_client();
  fencer->send(with_mode(producer_command("w5", 1, 30, "fencer"), proto::ExclusiveWithFencing));
  EXPECT_TRUE(fencer->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  const auto failed = waiter->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(failed.request_id(), 20u);
  EXPECT_EQ(failed.error(), proto::ProducerFenced);
  owner->expect(proto::BaseCommand::CLOSE_PRODUCER);
}

TEST_F(producer_test, AutoCreationOffRefusesUnknownTopic) {
  server.reset();
  config.allow_auto_topic_creation = false;
  start();
  auto client = connected_client();
  client->send(producer_command("never-created", 1, 10));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::TopicNotFound);
}

TEST_F(producer_test, CloseProducerIsAnsweredAndFurtherSendsFail) {
  auto client = connected_client();
  client->send(producer_command("t6", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send(close_producer_command(1, 12));
  EXPECT_EQ(client->expect(proto::BaseCommand::SUCCESS).command.success().request_id(), 12u);
  client->send_payload(send_command(1, 0), metadata("p", 0), "late");
  client->expect(proto::BaseCommand::SEND_ERROR);
}

TEST_F(producer_test, ProducerNameIsFreeAgainAfterItsConnectionDrops) {
  {
    auto first = connected_client();
    first->send(producer_command("t7", 1, 10, "reused"));
    first->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  }
  // The broker learns of the drop when its read ends; until then the name is taken, and
  // a client retries ProducerBusy as it does after a reconnect.
  auto second = connected_client();
  for (std::uint64_t request = 11; request < 1000; ++request) {
    second->send(producer_command("t7", 1, request, "reused"));
    auto reply = second->next();
    ASSERT_TRUE(reply);
    if (reply->command.type() == proto::BaseCommand::PRODUCER_SUCCESS) return;
    ASSERT_EQ(reply->command.error().error(), proto::ProducerBusy);
  }
  FAIL() << "the name stayed taken";
}

TEST_F(producer_test, ReceiptedMessagesSurviveARestart) {
  {
    auto client = connected_client();
    publish(*client, "durable", 5);
  }
  restart();
  auto client = connected_client();
  client->send(subscribe_command("durable", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 100));
  for (int i = 0; i < 5; ++i) {
    auto message = client->expect(proto::BaseCommand::MESSAGE);
    EXPECT_EQ(std::string(message.payload.as_chars()), "m" + std::to_string(i));
  }
}

}  // namespace
}  // namespace magnetar::broker::testing
