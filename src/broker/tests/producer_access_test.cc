// Raw-frame tests of producer access modes with the topic epoch, as upstream's broker
// rules them: exclusive producers that find others are fenced (not busy, which clients
// would retry for their whole timeout), ExclusiveWithFencing moves the epoch on and a
// producer that comes back with an older one is fenced, and the epoch is carried in
// PRODUCER_SUCCESS and kept across a restart.
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class producer_access_test : public broker_test {
 protected:
  // PRODUCER in `mode`, optionally asking for the topic epoch the client had.
  static proto::BaseCommand producer(const std::string& topic, std::uint64_t request_id, const std::string& name,
                                     proto::ProducerAccessMode mode, std::optional<std::uint64_t> epoch = {}) {
    auto command = with_mode(producer_command(topic, 1, request_id, name), mode);
    if (epoch) command.mutable_producer()->set_topic_epoch(*epoch);
    return command;
  }
};

TEST_F(producer_access_test, ASecondExclusiveProducerIsFenced) {
  auto first = connected_client();
  first->send(producer("a1", 10, "one", proto::Exclusive));
  first->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto second = connected_client();
  second->send(producer("a1", 11, "two", proto::Exclusive));
  const auto error = second->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ProducerFenced);
  EXPECT_EQ(error.message(), "Topic has an existing exclusive producer: one");
}

TEST_F(producer_access_test, AnExclusiveProducerIsFencedBySharedOnes) {
  auto shared = connected_client();
  shared->send(producer("a2", 10, "shared", proto::Shared));
  shared->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto exclusive = connected_client();
  exclusive->send(producer("a2", 11, "exclusive", proto::Exclusive));
  const auto error = exclusive->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ProducerFenced);
  EXPECT_EQ(error.message(), "Topic has existing shared producers");
}

TEST_F(producer_access_test, ASharedProducerIsBusyBesideAnExclusiveOne) {
  auto exclusive = connected_client();
  exclusive->send(producer("a3", 10, "exclusive", proto::Exclusive));
  exclusive->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto shared = connected_client();
  shared->send(producer("a3", 11, "shared", proto::Shared));
  EXPECT_EQ(shared->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
}

TEST_F(producer_access_test, EachExclusiveProducerMovesTheEpochOn) {
  auto client = connected_client();
  client->send(producer("a4", 10, "first", proto::Exclusive));
  const auto first = client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  ASSERT_TRUE(first.has_topic_epoch());
  EXPECT_EQ(first.topic_epoch(), 0u);
  client->send(close_producer_command(1, 11));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer("a4", 12, "second", proto::Exclusive));
  EXPECT_EQ(client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch(), 1u);
}

TEST_F(producer_access_test, FencingClosesTheHolderAndItsReconnectIsFenced) {
  auto holder = connected_client();
  holder->send(producer("a5", 10, "holder", proto::Exclusive));
  const auto held = holder->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  auto fencer = connected_client();
  fencer->send(producer("a5", 20, "fencer", proto::ExclusiveWithFencing));
  const auto fenced = fencer->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  EXPECT_GT(fenced.topic_epoch(), held.topic_epoch());
  holder->expect(proto::BaseCommand::CLOSE_PRODUCER);
  // The holder's client comes back with the epoch it had, as upstream clients do.
  holder->send(producer("a5", 11, "holder", proto::Exclusive, held.topic_epoch()));
  const auto error = holder->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ProducerFenced);
}

TEST_F(producer_access_test, AProducerWithAnOlderEpochIsFencedOnAFreeTopic) {
  auto client = connected_client();
  client->send(producer("a6", 10, "old", proto::Exclusive));
  const auto old = client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch();
  client->send(close_producer_command(1, 11));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer("a6", 12, "new", proto::Exclusive));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send(close_producer_command(1, 13));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer("a6", 14, "old", proto::Exclusive, old));
  const auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ProducerFenced);
  EXPECT_EQ(error.message(), "Topic epoch has already moved. Current epoch: 1, Producer epoch: 0");
}

TEST_F(producer_access_test, AReconnectWithTheCurrentEpochKeepsIt) {
  auto client = connected_client();
  client->send(producer("a7", 10, "p", proto::Exclusive));
  const auto epoch = client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch();
  client->send(close_producer_command(1, 11));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer("a7", 12, "p", proto::Exclusive, epoch));
  EXPECT_EQ(client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch(), epoch);
}

TEST_F(producer_access_test, TheEpochSurvivesARestart) {
  std::uint64_t before = 0;
  {
    auto client = connected_client();
    client->send(producer("a8", 10, "p", proto::Exclusive));
    client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
    client->send(close_producer_command(1, 11));
    client->expect(proto::BaseCommand::SUCCESS);
    client->send(producer("a8", 12, "p", proto::ExclusiveWithFencing));
    before = client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch();
  }
  restart();
  auto client = connected_client();
  client->send(producer("a8", 10, "stale", proto::Exclusive, before - 1));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerFenced);
  client->send(producer("a8", 11, "next", proto::Exclusive));
  EXPECT_EQ(client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch(), before + 1);
}

TEST_F(producer_access_test, ASharedProducerIsToldTheTopicsEpoch) {
  auto client = connected_client();
  client->send(producer("a9", 10, "exclusive", proto::Exclusive));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  client->send(close_producer_command(1, 11));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(producer("a9", 12, "shared", proto::Shared));
  const auto shared = client->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  ASSERT_TRUE(shared.has_topic_epoch());
  EXPECT_EQ(shared.topic_epoch(), 0u);
}

TEST_F(producer_access_test, AWaitingProducerIsToldItsEpochWhenReady) {
  auto owner = connected_client();
  owner->send(producer("a10", 10, "owner", proto::Exclusive));
  const auto owned = owner->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().topic_epoch();
  auto waiter = connected_client();
  waiter->send(producer("a10", 20, "waiter", proto::WaitForExclusive));
  EXPECT_FALSE(waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success().producer_ready());
  owner->send(close_producer_command(1, 11));
  owner->expect(proto::BaseCommand::SUCCESS);
  const auto ready = waiter->expect(proto::BaseCommand::PRODUCER_SUCCESS).command.producer_success();
  EXPECT_TRUE(ready.producer_ready());
  EXPECT_EQ(ready.topic_epoch(), owned + 1);
}

}  // namespace
}  // namespace magnetar::broker::testing
