// Message TTL: the periodic expiry acknowledges, on every subscription, what was
// published more than the TTL ago (the namespace's messageTTL, else the broker's
// ttlDurationDefaultInSeconds).
#include "broker/tests/policies_fixture.h"

#include <chrono>

namespace magnetar::broker::testing {
namespace {

class message_ttl_test : public policies_test {
 protected:
  // Seconds here; messageExpiryCheckIntervalInMinutes in a broker.conf.
  message_ttl_test() { config.message_expiry_check_interval = std::chrono::milliseconds(200); }

  // Publishes "old<i>" (the fixture's publish times are in 2023) then "new<i>" (now).
  void publish_old_and_new(const std::string& topic, int old_count, int new_count) {
    auto client = connected_client();
    create_producer(*client, topic, 1, "p");
    std::uint64_t sequence = 0;
    for (int i = 0; i < old_count; ++i, ++sequence) {
      client->send_payload(send_command(1, sequence), metadata("p", sequence), "old" + std::to_string(i));
      client->expect(proto::BaseCommand::SEND_RECEIPT);
    }
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
    for (int i = 0; i < new_count; ++i, ++sequence) {
      auto m = metadata("p", sequence);
      m.set_publish_time(static_cast<std::uint64_t>(now_ms));
      client->send_payload(send_command(1, sequence), m, "new" + std::to_string(i));
      client->expect(proto::BaseCommand::SEND_RECEIPT);
    }
  }
};

TEST_F(message_ttl_test, MessagesOlderThanTheNamespaceTtlExpireOnEverySubscription) {
  publish_old_and_new("ttl1", 5, 0);
  ASSERT_EQ(call("PUT", topic_path("ttl1") + "/subscription/a", "earliest").status, 204);
  ASSERT_EQ(call("PUT", topic_path("ttl1") + "/subscription/b", "earliest").status, 204);
  ASSERT_EQ(backlog("ttl1", "a"), 5);
  ASSERT_EQ(call("POST", std::string(ns) + "/messageTTL", "60").status, 204);
  EXPECT_TRUE(eventually([&] { return backlog("ttl1", "a") == 0 && backlog("ttl1", "b") == 0; }));
}

TEST_F(message_ttl_test, MessagesWithinTheTtlAreKeptAndDelivered) {
  publish_old_and_new("ttl2", 3, 2);
  ASSERT_EQ(call("PUT", topic_path("ttl2") + "/subscription/s", "earliest").status, 204);
  ASSERT_EQ(call("POST", std::string(ns) + "/messageTTL", "3600").status, 204);
  EXPECT_TRUE(eventually([&] { return backlog("ttl2", "s") == 2; }));
  EXPECT_EQ(receive("ttl2", "s", 2), (std::vector<std::string>{"new0", "new1"}));
}

TEST_F(message_ttl_test, ASubscriptionWithAConsumerExpiresToo) {
  publish_old_and_new("ttl3", 4, 0);
  auto consumer = connected_client();
  consumer->send(subscribe_command("ttl3", "s", 1, 20));  // no FLOW: nothing is delivered
  consumer->expect(proto::BaseCommand::SUCCESS);
  ASSERT_EQ(call("POST", std::string(ns) + "/messageTTL", "60").status, 204);
  EXPECT_TRUE(eventually([&] { return backlog("ttl3", "s") == 0; }));
}

TEST_F(message_ttl_test, TheNamespaceTtlIsSetReadAndRemoved) {
  EXPECT_EQ(call("GET", std::string(ns) + "/messageTTL").status, 204);
  EXPECT_EQ(call("POST", std::string(ns) + "/messageTTL", "120").status, 204);
  EXPECT_EQ(call("GET", std::string(ns) + "/messageTTL").body, "120");
  EXPECT_EQ(call("POST", std::string(ns) + "/messageTTL", "-5").status, 400);
  EXPECT_EQ(call("DELETE", std::string(ns) + "/messageTTL").status, 204);
  EXPECT_EQ(call("GET", std::string(ns) + "/messageTTL").status, 204);
}

class default_ttl_test : public message_ttl_test {
 protected:
  default_ttl_test() { config.ttl_duration_default_in_seconds = 60; }
};

TEST_F(default_ttl_test, TheBrokerDefaultTtlAppliesWithoutANamespacePolicy) {
  publish_old_and_new("ttl4", 3, 0);
  ASSERT_EQ(call("PUT", topic_path("ttl4") + "/subscription/s", "earliest").status, 204);
  EXPECT_TRUE(eventually([&] { return backlog("ttl4", "s") == 0; }));
}

}  // namespace
}  // namespace magnetar::broker::testing
