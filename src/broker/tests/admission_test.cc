// Raw-frame tests of who may attach to a topic, with upstream's errors so that upstream
// clients fail fast where retrying cannot help: the producer and consumer limits, a
// partition past its topic's count, subscription names that are empty or reserved, and
// a producer's initial subscription (what keeps a dead-letter topic's messages).
#include "broker/tests/broker_fixture.h"

namespace magnetar::broker::testing {
namespace {

class admission_test : public broker_test {
 protected:
  static constexpr const char* ns = "/admin/v2/namespaces/public/default";

  proto::CommandError producer_refused(raw_client& client, const std::string& topic, std::uint64_t producer_id) {
    client.send(producer_command(topic, producer_id, 100 + producer_id, "p" + std::to_string(producer_id)));
    return client.expect(proto::BaseCommand::ERROR).command.error();
  }
};

TEST_F(admission_test, ProducersPastTheNamespaceLimitAreBusy) {
  ASSERT_EQ(call("POST", std::string(ns) + "/maxProducersPerTopic", "2").status, 204);
  auto client = connected_client();
  for (std::uint64_t id = 1; id <= 2; ++id) {
    client->send(producer_command("limited", id, id, "p" + std::to_string(id)));
    client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  }
  const auto error = producer_refused(*client, "limited", 3);
  EXPECT_EQ(error.error(), proto::ProducerBusy);
  EXPECT_EQ(error.message(), "Topic 'persistent://public/default/limited' reached max producers limit");
}

TEST_F(admission_test, ProducersPastTheBrokersDefaultLimitAreBusy) {
  server.reset();
  config.max_producers_per_topic = 1;
  start();
  auto client = connected_client();
  client->send(producer_command("limited2", 1, 1, "p1"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  EXPECT_EQ(producer_refused(*client, "limited2", 2).error(), proto::ProducerBusy);
}

TEST_F(admission_test, ConsumersPastTheLimitAreBusy) {
  ASSERT_EQ(call("POST", std::string(ns) + "/maxConsumersPerTopic", "1").status, 204);
  auto client = connected_client();
  client->send(subscribe_command("limited3", "s1", 1, 10));
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(subscribe_command("limited3", "s2", 2, 11));
  const auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ConsumerBusy);
  EXPECT_EQ(error.message(), "Topic 'persistent://public/default/limited3' reached max consumers limit");
}

TEST_F(admission_test, APartitionPastTheTopicsCountIsRefused) {
  ASSERT_EQ(call("PUT", "/admin/v2/persistent/public/default/parts/partitions", "2").status, 204);
  auto client = connected_client();
  const auto error = producer_refused(*client, "parts-partition-2", 1);
  EXPECT_EQ(error.error(), proto::NotAllowedError);
  EXPECT_EQ(error.message(),
            "Illegal topic partition name persistent://public/default/parts-partition-2 with max allowed 2 partitions");
  client->send(producer_command("parts-partition-1", 2, 20, "ok"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
}

TEST_F(admission_test, ANameEndingInAPartitionIsAPlainTopicWhereNoPartitionedOneOwnsIt) {
  auto client = connected_client();
  client->send(producer_command("loose-partition-7", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
}

TEST_F(admission_test, AnEmptySubscriptionNameIsAConfigurationError) {
  auto client = connected_client();
  client->send(subscribe_command("subs", "", 1, 10));
  const auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  // ProducerBusy is what upstream answers, and what its clients turn into "SubscriptionName
  // cannot be empty" without retrying.
  EXPECT_EQ(error.error(), proto::ProducerBusy);
  EXPECT_EQ(error.message(), "Empty subscription name");
}

TEST_F(admission_test, ReservedSubscriptionNamesAreRefused) {
  auto client = connected_client();
  client->send(subscribe_command("subs", "pulsar.dedup", 1, 10));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::ProducerBusy);
  client->send(subscribe_command("subs", "pulsar.repl.west", 2, 11));
  const auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.error(), proto::ProducerBusy);
  EXPECT_EQ(error.message(), "Subscription with reserved subscription name attempted");
}

TEST_F(admission_test, WithoutAutoSubscriptionCreationAMissingSubscriptionIsNotFound) {
  server.reset();
  config.allow_auto_subscription_creation = false;
  start();
  auto client = connected_client();
  client->send(subscribe_command("subs2", "never-made", 1, 10));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::SubscriptionNotFound);
}

TEST_F(admission_test, AProducersInitialSubscriptionKeepsEveryMessage) {
  auto client = connected_client();
  auto command = producer_command("dlq", 1, 10, "p");
  command.mutable_producer()->set_initial_subscription_name("keeper");
  client->send(command);
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  for (int i = 0; i < 3; ++i) client->send_payload(send_command(1, i), metadata("p", i), "m" + std::to_string(i));
  for (int i = 0; i < 3; ++i) client->expect(proto::BaseCommand::SEND_RECEIPT);
  // A consumer that comes later (at Latest) still finds them all on the subscription.
  auto late = subscribe_command("dlq", "keeper", 1, 20);
  late.mutable_subscribe()->set_initialposition(proto::CommandSubscribe::Latest);
  client->send(late);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(std::string(client->expect(proto::BaseCommand::MESSAGE).payload.as_chars()), "m" + std::to_string(i));
  }
}

TEST_F(admission_test, WithoutAutoSubscriptionCreationAnInitialSubscriptionIsNotAllowed) {
  server.reset();
  config.allow_auto_subscription_creation = false;
  start();
  auto client = connected_client();
  auto command = producer_command("dlq2", 1, 10, "p");
  command.mutable_producer()->set_initial_subscription_name("keeper");
  client->send(command);
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::NotAllowedError);
}

}  // namespace
}  // namespace magnetar::broker::testing
