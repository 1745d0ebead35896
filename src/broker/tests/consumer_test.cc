// Raw-frame tests of consumers: SUBSCRIBE, FLOW, MESSAGE, ACK, redelivery, seek, last
// message id, unsubscribe, Exclusive and Failover.
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class consumer_test : public broker_test {
 protected:
  proto::BaseCommand command_of(proto::BaseCommand::Type type) {
    proto::BaseCommand c;
    c.set_type(type);
    return c;
  }
};

std::string text(const wire::frame& f) { return std::string(f.payload.as_chars()); }

TEST_F(consumer_test, MessagesAreDeliveredInOrderWithinPermits) {
  auto client = connected_client();
  publish(*client, "c1", 5);
  client->send(subscribe_command("c1", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 3));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
  // No more without permits: the next frame is the PONG, not a MESSAGE.
  auto ping = command_of(proto::BaseCommand::PING);
  ping.mutable_ping();
  client->send(ping);
  client->expect(proto::BaseCommand::PONG);
  client->send(flow_command(1, 10));
  for (int i = 3; i < 5; ++i) EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
}

TEST_F(consumer_test, TailingConsumerGetsNewMessages) {
  auto consumer = connected_client();
  consumer->send(subscribe_command("c2", "s", 1, 20));
  consumer->expect(proto::BaseCommand::SUCCESS);
  consumer->send(flow_command(1, 10));
  auto producer = connected_client();
  publish(*producer, "c2", 2);
  EXPECT_EQ(text(consumer->expect(proto::BaseCommand::MESSAGE)), "m0");
  EXPECT_EQ(text(consumer->expect(proto::BaseCommand::MESSAGE)), "m1");
}

TEST_F(consumer_test, TailingConsumerGetsEveryMessageOfABurst) {
  // Entries that land while the dispatcher goes from "nothing to read" to waiting must
  // still wake it: the last of a burst used to be left undelivered.
  auto consumer = connected_client();
  consumer->send(subscribe_command("c2b", "s", 1, 20));
  consumer->expect(proto::BaseCommand::SUCCESS);
  consumer->send(flow_command(1, 100000));
  auto producer = connected_client();
  producer->send(producer_command("c2b", 1, 10, "p"));
  producer->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  // Many short bursts: the end of each is a chance for the race.
  constexpr int count = 10;
  for (int round = 0; round < 300; ++round) {
    std::vector<std::byte> burst;
    for (int i = 0; i < count; ++i) {
      const std::string payload = std::to_string(round * count + i);
      wire::append_payload_command(burst, send_command(1, round * count + i), metadata("p", round * count + i),
                                   std::as_bytes(std::span(payload)));
    }
    producer->write(burst);
    for (int i = 0; i < count; ++i) producer->expect(proto::BaseCommand::SEND_RECEIPT);
    for (int i = 0; i < count; ++i) {
      ASSERT_EQ(text(consumer->expect(proto::BaseCommand::MESSAGE, std::chrono::seconds(10))),
                std::to_string(round * count + i));
    }
  }
}

TEST_F(consumer_test, MessagesBeyondTheSocketBufferReachASlowReaderWholeAndInOrder) {
  // The shard that dispatches writes what the socket takes at once and hands the rest,
  // a frame cut part-way included, to the connection's writer.
  auto consumer = connected_client();
  consumer->send(subscribe_command("big", "s", 1, 20));
  consumer->expect(proto::BaseCommand::SUCCESS);
  consumer->send(flow_command(1, 1000));
  auto producer = connected_client();
  producer->send(producer_command("big", 1, 10, "p"));
  producer->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  constexpr int count = 24;
  const auto payload_of = [](int i) { return std::string(1 << 20, static_cast<char>('a' + i)); };
  for (int i = 0; i < count; ++i) {
    const auto payload = payload_of(i);
    producer->send_payload(send_command(1, i), metadata("p", i), payload);
    producer->expect(proto::BaseCommand::SEND_RECEIPT);
  }
  // Only now does the consumer read: 24 MiB waited in the broker and the socket.
  for (int i = 0; i < count; ++i) {
    const auto got = text(consumer->expect(proto::BaseCommand::MESSAGE));
    ASSERT_EQ(got.size(), payload_of(i).size()) << "message " << i;
    ASSERT_EQ(got, payload_of(i)) << "message " << i;
  }
}

TEST_F(consumer_test, LatestSubscriptionSkipsEarlierMessages) {
  auto client = connected_client();
  publish(*client, "c3", 2);
  auto subscribe = subscribe_command("c3", "s", 1, 20);
  subscribe.mutable_subscribe()->set_initialposition(proto::CommandSubscribe::Latest);
  client->send(subscribe);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  client->send_payload(send_command(1, 2), metadata("p", 2), "after");
  // The receipt and the message may come in either order.
  bool got_receipt = false, got_message = false;
  while (!got_receipt || !got_message) {
    auto f = client->next();
    ASSERT_TRUE(f);
    if (f->command.type() == proto::BaseCommand::SEND_RECEIPT) got_receipt = true;
    if (f->command.type() == proto::BaseCommand::MESSAGE) {
      EXPECT_EQ(text(*f), "after");
      got_message = true;
    }
  }
}

TEST_F(consumer_test, SecondExclusiveConsumerIsBusy) {
  auto first = connected_client();
  first->send(subscribe_command("c4", "s", 1, 20));
  first->expect(proto::BaseCommand::SUCCESS);
  auto second = connected_client();
  second->send(subscribe_command("c4", "s", 1, 21));
  EXPECT_EQ(second->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ConsumerBusy);
}

TEST_F(consumer_test, AcknowledgedMessagesAreNotDeliveredAgain) {
  {
    auto client = connected_client();
    publish(*client, "c5", 3);
    client->send(subscribe_command("c5", "s", 1, 20));
    client->expect(proto::BaseCommand::SUCCESS);
    client->send(flow_command(1, 10));
    std::vector<proto::MessageIdData> ids;
    for (int i = 0; i < 3; ++i)
      ids.push_back(client->expect(proto::BaseCommand::MESSAGE).command.message().message_id());
    client->send(ack_command(1, ids[1], proto::CommandAck::Cumulative));
    proto::BaseCommand close = command_of(proto::BaseCommand::CLOSE_CONSUMER);
    close.mutable_close_consumer()->set_consumer_id(1);
    close.mutable_close_consumer()->set_request_id(30);
    client->send(close);
    client->expect(proto::BaseCommand::SUCCESS);
  }
  auto client = connected_client();
  client->send(subscribe_command("c5", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m2");
}

TEST_F(consumer_test, RedeliverUnacknowledgedSendsThemAgainWithACount) {
  auto client = connected_client();
  publish(*client, "c6", 2);
  client->send(subscribe_command("c6", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 2));
  auto first = client->expect(proto::BaseCommand::MESSAGE);
  client->expect(proto::BaseCommand::MESSAGE);
  client->send(ack_command(1, first.command.message().message_id()));
  auto redeliver = command_of(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(1);
  client->send(redeliver);
  client->send(flow_command(1, 2));
  auto again = client->expect(proto::BaseCommand::MESSAGE);
  EXPECT_EQ(text(again), "m1");
  EXPECT_EQ(again.command.message().redelivery_count(), 1u);
}

TEST_F(consumer_test, FailoverMakesOneConsumerActiveAndFailsOverOnClose) {
  auto a = connected_client();
  a->send(subscribe_command("c7", "s", 1, 20, proto::CommandSubscribe::Failover, "a"));
  auto change = a->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE);
  EXPECT_TRUE(change.command.active_consumer_change().is_active());
  a->expect(proto::BaseCommand::SUCCESS);
  auto b = connected_client();
  b->send(subscribe_command("c7", "s", 1, 21, proto::CommandSubscribe::Failover, "b"));
  EXPECT_FALSE(b->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE).command.active_consumer_change().is_active());
  b->expect(proto::BaseCommand::SUCCESS);
  b->send(flow_command(1, 10));
  a.reset();  // the active consumer's connection drops
  EXPECT_TRUE(b->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE).command.active_consumer_change().is_active());
  auto producer = connected_client();
  publish(*producer, "c7", 1);
  EXPECT_EQ(text(b->expect(proto::BaseCommand::MESSAGE)), "m0");
}

TEST_F(consumer_test, FailoverPrefersTheLowerPriorityLevel) {
  auto a = connected_client();
  auto first = subscribe_command("c8", "s", 1, 20, proto::CommandSubscribe::Failover, "a");
  first.mutable_subscribe()->set_priority_level(5);
  a->send(first);
  a->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE);
  a->expect(proto::BaseCommand::SUCCESS);
  auto b = connected_client();
  auto second = subscribe_command("c8", "s", 1, 21, proto::CommandSubscribe::Failover, "b");
  second.mutable_subscribe()->set_priority_level(0);
  b->send(second);
  EXPECT_TRUE(b->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE).command.active_consumer_change().is_active());
  EXPECT_FALSE(a->expect(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE).command.active_consumer_change().is_active());
}

TEST_F(consumer_test, GetLastMessageIdNamesTheLastEntry) {
  auto client = connected_client();
  client->send(producer_command("c9", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  proto::MessageIdData last;
  for (int i = 0; i < 3; ++i) {
    client->send_payload(send_command(1, i), metadata("p", i), "x");
    last = client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().message_id();
  }
  client->send(subscribe_command("c9", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto request = command_of(proto::BaseCommand::GET_LAST_MESSAGE_ID);
  request.mutable_getlastmessageid()->set_consumer_id(1);
  request.mutable_getlastmessageid()->set_request_id(40);
  client->send(request);
  auto reply = client->expect(proto::BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE).command.getlastmessageidresponse();
  EXPECT_EQ(reply.request_id(), 40u);
  EXPECT_EQ(reply.last_message_id().ledgerid(), last.ledgerid());
  EXPECT_EQ(reply.last_message_id().entryid(), last.entryid());
}

TEST_F(consumer_test, SeekToAMessageIdClosesTheConsumerAndRedeliversFromThere) {
  auto client = connected_client();
  client->send(producer_command("c10", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  std::vector<proto::MessageIdData> ids;
  for (int i = 0; i < 4; ++i) {
    client->send_payload(send_command(1, i), metadata("p", i), "m" + std::to_string(i));
    ids.push_back(client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().message_id());
  }
  client->send(subscribe_command("c10", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 4));
  for (int i = 0; i < 4; ++i) client->expect(proto::BaseCommand::MESSAGE);
  client->send(ack_command(1, ids[3], proto::CommandAck::Cumulative));
  auto seek = command_of(proto::BaseCommand::SEEK);
  seek.mutable_seek()->set_consumer_id(1);
  seek.mutable_seek()->set_request_id(50);
  *seek.mutable_seek()->mutable_message_id() = ids[1];
  client->send(seek);
  client->expect(proto::BaseCommand::CLOSE_CONSUMER);
  EXPECT_EQ(client->expect(proto::BaseCommand::SUCCESS).command.success().request_id(), 50u);
  client->send(subscribe_command("c10", "s", 1, 21));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m1");
}

// Upstream's rule: the first message published at or after the time (its finder takes
// the newest one published before it, then the next).
TEST_F(consumer_test, SeekByPublishTimeStartsAtTheFirstMessageAtOrAfterIt) {
  auto client = connected_client();
  publish(*client, "c11", 5);  // publish times are 1'700'000'000'000 + sequence id
  client->send(subscribe_command("c11", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto seek = command_of(proto::BaseCommand::SEEK);
  seek.mutable_seek()->set_consumer_id(1);
  seek.mutable_seek()->set_request_id(51);
  seek.mutable_seek()->set_message_publish_time(1'700'000'000'003);
  client->send(seek);
  client->expect(proto::BaseCommand::CLOSE_CONSUMER);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(subscribe_command("c11", "s", 1, 21));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m3");
}

TEST_F(consumer_test, UnsubscribeDeletesTheSubscription) {
  auto client = connected_client();
  publish(*client, "c12", 2);
  client->send(subscribe_command("c12", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto unsubscribe = command_of(proto::BaseCommand::UNSUBSCRIBE);
  unsubscribe.mutable_unsubscribe()->set_consumer_id(1);
  unsubscribe.mutable_unsubscribe()->set_request_id(60);
  client->send(unsubscribe);
  EXPECT_EQ(client->expect(proto::BaseCommand::SUCCESS).command.success().request_id(), 60u);
  // Subscribing again at latest finds nothing left over from the old subscription.
  auto again = subscribe_command("c12", "s", 2, 61);
  again.mutable_subscribe()->set_initialposition(proto::CommandSubscribe::Latest);
  client->send(again);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(2, 10));
  auto ping = command_of(proto::BaseCommand::PING);
  ping.mutable_ping();
  client->send(ping);
  client->expect(proto::BaseCommand::PONG);
}

TEST_F(consumer_test, ReaderStartsAtTheGivenMessageId) {
  // The client drops the start message itself unless the reader is inclusive.
  auto client = connected_client();
  client->send(producer_command("c13", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  std::vector<proto::MessageIdData> ids;
  for (int i = 0; i < 3; ++i) {
    client->send_payload(send_command(1, i), metadata("p", i), "m" + std::to_string(i));
    ids.push_back(client->expect(proto::BaseCommand::SEND_RECEIPT).command.send_receipt().message_id());
  }
  auto reader = subscribe_command("c13", "reader-1", 1, 20);
  reader.mutable_subscribe()->set_durable(false);
  *reader.mutable_subscribe()->mutable_start_message_id() = ids[1];
  client->send(reader);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m1");
}

// Upstream clients send earliest as -1, which arrives as all ones in the unsigned fields.
proto::MessageIdData earliest_id() {
  proto::MessageIdData id;
  id.set_ledgerid(UINT64_MAX);
  id.set_entryid(UINT64_MAX);
  return id;
}

TEST_F(consumer_test, ReaderFromEarliestAsUpstreamSendsItReadsEverything) {
  auto client = connected_client();
  publish(*client, "c14", 2);
  auto reader = subscribe_command("c14", "reader-1", 1, 20);
  reader.mutable_subscribe()->set_durable(false);
  reader.mutable_subscribe()->set_initialposition(proto::CommandSubscribe::Latest);
  *reader.mutable_subscribe()->mutable_start_message_id() = earliest_id();
  client->send(reader);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m0");
}

TEST_F(consumer_test, SeekToEarliestAsUpstreamSendsItRewindsToTheFirstMessage) {
  auto client = connected_client();
  publish(*client, "c15", 3);
  client->send(subscribe_command("c15", "s", 1, 20));
  client->expect(proto::BaseCommand::SUCCESS);
  auto seek = command_of(proto::BaseCommand::SEEK);
  seek.mutable_seek()->set_consumer_id(1);
  seek.mutable_seek()->set_request_id(52);
  *seek.mutable_seek()->mutable_message_id() = earliest_id();
  client->send(seek);
  client->expect(proto::BaseCommand::CLOSE_CONSUMER);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(subscribe_command("c15", "s", 1, 21));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m0");
}

TEST_F(consumer_test, ConsumerThatLeavesRightAfterFlowHarmsNoOne) {
  {
    auto producer = connected_client();
    publish(*producer, "c16", 5);
  }
  // The read a FLOW starts may begin after its consumer is gone.
  for (int round = 0; round < 50; ++round) {
    raw_client quitter(server->broker_port());
    quitter.connect();
    // Failover, so a newcomer is not refused while the last quitter's leave is on its way.
    quitter.send(subscribe_command("c16", "s", 1, 20, proto::CommandSubscribe::Failover, "q" + std::to_string(round)));
    auto reply = quitter.next();
    while (reply && reply->command.type() == proto::BaseCommand::ACTIVE_CONSUMER_CHANGE) reply = quitter.next();
    ASSERT_TRUE(reply && reply->command.type() == proto::BaseCommand::SUCCESS);
    quitter.send(flow_command(1, 10));
  }
  auto client = connected_client();
  client->send(subscribe_command("c16", "s", 1, 30, proto::CommandSubscribe::Failover, "z-last"));
  client->send(flow_command(1, 10));
  // Once the quitters are gone it is the active consumer and gets everything unacked.
  for (;;) {
    auto f = client->next();
    ASSERT_TRUE(f) << "no message";
    if (f->command.type() == proto::BaseCommand::MESSAGE) {
      EXPECT_EQ(text(*f), "m0");
      break;
    }
  }
}

}  // namespace
}  // namespace magnetar::broker::testing
