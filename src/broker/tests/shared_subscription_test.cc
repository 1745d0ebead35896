// Raw-frame tests of the subscriptions where several consumers receive at once: Shared
// (round robin, priority levels, unacked limits, redelivery) and Key_Shared (one owner
// per key, STICKY ranges, order kept while consumers join), and batch-index acks.
#include "broker/tests/broker_fixture.h"
#include "broker/topic/sticky_key.h"
#include "http/client.h"

#include <gmock/gmock.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>
#include <thread>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;
constexpr auto shared = proto::CommandSubscribe::Shared;
constexpr auto key_shared = proto::CommandSubscribe::Key_Shared;

std::string text(const wire::frame& f) { return std::string(f.payload.as_chars()); }

class shared_subscription_test : public broker_test {
 protected:
  // Publishes messages with the given keys (payload "m<i>", key as partition key).
  void publish_keyed(raw_client& client, const std::string& topic, const std::vector<std::string>& keys,
                     int first = 0) {
    if (first == 0) {
      client.send(producer_command(topic, 1, 1000, "p"));
      client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const int n = first + static_cast<int>(i);
      auto md = metadata("p", static_cast<std::uint64_t>(n));
      md.set_partition_key(keys[i]);
      client.send_payload(send_command(1, static_cast<std::uint64_t>(n)), md, "m" + std::to_string(n));
    }
    for (std::size_t i = 0; i < keys.size(); ++i) client.expect(proto::BaseCommand::SEND_RECEIPT);
  }

  void subscribe(raw_client& client, const std::string& topic, proto::CommandSubscribe::SubType type,
                 const std::string& name, int priority = 0) {
    auto command = subscribe_command(topic, "s", 1, 20, type, name);
    command.mutable_subscribe()->set_priority_level(priority);
    client.send(command);
    client.expect(proto::BaseCommand::SUCCESS);
  }

  // The subscription's consumer stats by name, from the admin API.
  std::map<std::string, json> consumer_stats(const std::string& topic) {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, "GET",
                                  "/admin/v2/persistent/public/default/" + topic + "/stats");
    EXPECT_TRUE(r) << r.error();
    std::map<std::string, json> out;
    if (!r) return out;
    EXPECT_EQ(r.value().status, 200) << r.value().body;
    if (r.value().status != 200) return out;
    const auto stats = json::parse(r.value().body);
    for (const auto& c : stats["subscriptions"]["s"]["consumers"]) out[c["consumerName"].get<std::string>()] = c;
    return out;
  }

  // Waits until the broker has taken a consumer's FLOW (its permits show in the stats).
  void wait_for_permits(const std::string& topic, const std::string& name, std::int64_t permits) {
    for (int i = 0; i < 3000; ++i) {
      auto stats = consumer_stats(topic);
      if (stats.contains(name) && stats[name]["availablePermits"].get<std::int64_t>() == permits) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    auto stats = consumer_stats(topic);
    FAIL() << name << " never had " << permits << " permits: " << (stats.contains(name) ? stats[name].dump() : "gone")
           << " of " << stats.size();
  }

  // The consumer whose keyHashRanges (admin stats) cover the key.
  std::string owner_of(const std::string& topic, const std::string& key) {
    const int hash = sticky_key_hash(key);
    for (const auto& [name, stats] : consumer_stats(topic)) {
      for (const auto& range : stats["keyHashRangeArrays"]) {
        if (range[0].get<int>() <= hash && hash <= range[1].get<int>()) return name;
      }
    }
    return "";
  }

  // Nothing more arrives for the client: a PING's PONG comes next.
  void expect_nothing_more(raw_client& client) { sync(client); }
};

TEST_F(shared_subscription_test, SharedSpreadsMessagesOverConsumersWithinTheirPermits) {
  auto a = connected_client();
  auto b = connected_client();
  subscribe(*a, "sh1", shared, "a");
  subscribe(*b, "sh1", shared, "b");
  a->send(flow_command(1, 10));
  b->send(flow_command(1, 10));
  auto producer = connected_client();
  publish(*producer, "sh1", 20);
  std::set<std::string> seen;
  for (int i = 0; i < 10; ++i) seen.insert(text(a->expect(proto::BaseCommand::MESSAGE)));
  for (int i = 0; i < 10; ++i) seen.insert(text(b->expect(proto::BaseCommand::MESSAGE)));
  EXPECT_EQ(seen.size(), 20u);
  expect_nothing_more(*a);
  expect_nothing_more(*b);
}

TEST_F(shared_subscription_test, SharedGivesAClosedConsumersUnackedMessagesToAnotherWithACount) {
  auto producer = connected_client();
  publish(*producer, "sh2", 3);
  auto a = connected_client();
  subscribe(*a, "sh2", shared, "a");
  a->send(flow_command(1, 10));
  for (int i = 0; i < 3; ++i) a->expect(proto::BaseCommand::MESSAGE);
  auto b = connected_client();
  subscribe(*b, "sh2", shared, "b");
  b->send(flow_command(1, 10));
  a->send(close_consumer_command(1, 30));
  a->expect(proto::BaseCommand::SUCCESS);
  for (int i = 0; i < 3; ++i) {
    auto m = b->expect(proto::BaseCommand::MESSAGE);
    EXPECT_EQ(text(m), "m" + std::to_string(i));
    EXPECT_EQ(m.command.message().redelivery_count(), 1u);
  }
}

TEST_F(shared_subscription_test, SharedRedeliversOnlyTheMessagesNamed) {
  auto producer = connected_client();
  publish(*producer, "sh3", 4);
  auto a = connected_client();
  subscribe(*a, "sh3", shared, "a");
  a->send(flow_command(1, 10));
  std::vector<proto::MessageIdData> ids;
  for (int i = 0; i < 4; ++i) ids.push_back(a->expect(proto::BaseCommand::MESSAGE).command.message().message_id());
  proto::BaseCommand redeliver;
  redeliver.set_type(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(1);
  *redeliver.mutable_redeliverunacknowledgedmessages()->add_message_ids() = ids[1];
  *redeliver.mutable_redeliverunacknowledgedmessages()->add_message_ids() = ids[3];
  a->send(redeliver);
  for (const char* expected : {"m1", "m3"}) {
    auto m = a->expect(proto::BaseCommand::MESSAGE);
    EXPECT_EQ(text(m), expected);
    EXPECT_EQ(m.command.message().redelivery_count(), 1u);
  }
  expect_nothing_more(*a);
}

TEST_F(shared_subscription_test, SharedRefusesCumulativeAcks) {
  auto producer = connected_client();
  publish(*producer, "sh4", 1);
  auto a = connected_client();
  subscribe(*a, "sh4", shared, "a");
  a->send(flow_command(1, 10));
  auto id = a->expect(proto::BaseCommand::MESSAGE).command.message().message_id();
  auto ack = ack_command(1, id, proto::CommandAck::Cumulative);
  ack.mutable_ack()->set_request_id(40);
  a->send(ack);
  auto response = a->expect(proto::BaseCommand::ACK_RESPONSE);
  EXPECT_EQ(response.command.ackresponse().error(), proto::NotAllowedError);
  EXPECT_THAT(response.command.ackresponse().message(), ::testing::HasSubstr("cumulative"));
}

TEST_F(shared_subscription_test, SharedServesTheHigherPriorityLevelFirst) {
  auto high = connected_client();
  auto low = connected_client();
  subscribe(*high, "sh5", shared, "high", 0);
  subscribe(*low, "sh5", shared, "low", 1);
  low->send(flow_command(1, 100));
  high->send(flow_command(1, 5));
  wait_for_permits("sh5", "low", 100);
  wait_for_permits("sh5", "high", 5);
  auto producer = connected_client();
  publish(*producer, "sh5", 8);
  // The high level takes what its permits allow; the rest spills to the low level.
  for (int i = 0; i < 5; ++i) EXPECT_EQ(text(high->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
  for (int i = 5; i < 8; ++i) EXPECT_EQ(text(low->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
}

class shared_unacked_limit_test : public shared_subscription_test {
 protected:
  shared_unacked_limit_test() { config.max_unacked_messages_per_consumer = 3; }
};

TEST_F(shared_unacked_limit_test, AConsumerAtItsUnackedLimitGetsMoreOnlyAfterAcking) {
  auto producer = connected_client();
  publish(*producer, "sh6", 5);
  auto a = connected_client();
  subscribe(*a, "sh6", shared, "a");
  a->send(flow_command(1, 100));
  std::vector<proto::MessageIdData> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(a->expect(proto::BaseCommand::MESSAGE).command.message().message_id());
  expect_nothing_more(*a);
  EXPECT_TRUE(consumer_stats("sh6")["a"]["blockedConsumerOnUnackedMsgs"].get<bool>());
  a->send(ack_command(1, ids[0]));
  EXPECT_EQ(text(a->expect(proto::BaseCommand::MESSAGE)), "m3");
}

TEST_F(shared_subscription_test, KeySharedSendsEachKeyToOneConsumer) {
  auto a = connected_client();
  auto b = connected_client();
  subscribe(*a, "ks1", key_shared, "a");
  subscribe(*b, "ks1", key_shared, "b");
  a->send(flow_command(1, 1000));
  b->send(flow_command(1, 1000));
  wait_for_permits("ks1", "a", 1000);
  wait_for_permits("ks1", "b", 1000);
  std::vector<std::string> keys;
  for (int i = 0; i < 200; ++i) keys.push_back("key-" + std::to_string(i % 20));
  auto producer = connected_client();
  publish_keyed(*producer, "ks1", keys);
  std::map<std::string, int> expected;
  for (const auto& key : keys) ++expected[owner_of("ks1", key)];
  ASSERT_EQ(expected.size(), 2u) << "20 keys all belong to one consumer";
  for (auto* client : {a.get(), b.get()}) {
    const std::string who = client == a.get() ? "a" : "b";
    std::map<std::string, int> last;  // per key, the last message number
    for (int i = 0; i < expected[who]; ++i) {
      const int n = std::stoi(text(client->expect(proto::BaseCommand::MESSAGE)).substr(1));
      const auto& key = keys[static_cast<std::size_t>(n)];
      EXPECT_EQ(owner_of("ks1", key), who) << key;
      EXPECT_GT(n, last.contains(key) ? last[key] : -1) << key << " out of order";
      last[key] = n;
    }
    expect_nothing_more(*client);
  }
}

TEST_F(shared_subscription_test, KeySharedStickyConsumersGetTheirRangesAndOverlapsAreRefused) {
  auto key_in = [](int from, int to) {
    for (int i = 0;; ++i) {
      auto key = "k" + std::to_string(i);
      const int h = sticky_key_hash(key);
      if (h >= from && h <= to) return key;
    }
  };
  auto sticky = [](proto::BaseCommand c, int from, int to) {
    auto& meta = *c.mutable_subscribe()->mutable_keysharedmeta();
    meta.set_keysharedmode(proto::STICKY);
    auto& r = *meta.add_hashranges();
    r.set_start(from);
    r.set_end(to);
    return c;
  };
  auto a = connected_client();
  a->send(sticky(subscribe_command("ks2", "s", 1, 20, key_shared, "a"), 0, 32767));
  a->expect(proto::BaseCommand::SUCCESS);
  auto clash = connected_client();
  clash->send(sticky(subscribe_command("ks2", "s", 1, 21, key_shared, "clash"), 30000, 40000));
  auto refused = clash->expect(proto::BaseCommand::ERROR);
  EXPECT_EQ(refused.command.error().error(), proto::ConsumerAssignError);
  auto b = connected_client();
  b->send(sticky(subscribe_command("ks2", "s", 1, 22, key_shared, "b"), 32768, 65535));
  b->expect(proto::BaseCommand::SUCCESS);
  a->send(flow_command(1, 10));
  b->send(flow_command(1, 10));
  auto producer = connected_client();
  publish_keyed(*producer, "ks2", {key_in(0, 32767), key_in(32768, 65535)});
  EXPECT_EQ(text(a->expect(proto::BaseCommand::MESSAGE)), "m0");
  EXPECT_EQ(text(b->expect(proto::BaseCommand::MESSAGE)), "m1");
}

TEST_F(shared_subscription_test, KeySharedNewcomerWaitsUntilTheKeysPreviousOwnerAcked) {
  // a receives every key and acknowledges nothing; b joins and takes some keys over.
  // b must get nothing of those keys until a has acknowledged what it holds of them.
  std::vector<std::string> keys;
  for (int i = 0; i < 40; ++i) keys.push_back("key-" + std::to_string(i));
  auto producer = connected_client();
  publish_keyed(*producer, "ks3", keys);
  auto a = connected_client();
  subscribe(*a, "ks3", key_shared, "a");
  a->send(flow_command(1, 1000));
  std::vector<proto::MessageIdData> held;
  for (int i = 0; i < 40; ++i) held.push_back(a->expect(proto::BaseCommand::MESSAGE).command.message().message_id());
  auto b = connected_client();
  subscribe(*b, "ks3", key_shared, "b");
  b->send(flow_command(1, 1000));
  wait_for_permits("ks3", "b", 1000);
  publish_keyed(*producer, "ks3", keys, 40);
  // a's own keys flow on; b's keys wait.
  int a_second = 0;
  for (const auto& key : keys) a_second += owner_of("ks3", key) == "a" ? 1 : 0;
  ASSERT_LT(a_second, 40) << "b took no key over";
  for (int i = 0; i < a_second; ++i) {
    const int n = std::stoi(text(a->expect(proto::BaseCommand::MESSAGE)).substr(1));
    EXPECT_EQ(owner_of("ks3", keys[static_cast<std::size_t>(n - 40)]), "a");
  }
  expect_nothing_more(*b);
  for (const auto& id : held) a->send(ack_command(1, id));
  for (int i = 0; i < 40 - a_second; ++i) {
    const int n = std::stoi(text(b->expect(proto::BaseCommand::MESSAGE)).substr(1));
    EXPECT_GE(n, 40);
    EXPECT_EQ(owner_of("ks3", keys[static_cast<std::size_t>(n - 40)]), "b");
  }
}

TEST_F(shared_subscription_test, BatchIndexAcksLeaveTheRestOfTheBatchToRedeliver) {
  auto producer = connected_client();
  producer->send(producer_command("bi1", 1, 1000, "p"));
  producer->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  auto md = metadata("p", 0);
  md.set_num_messages_in_batch(3);
  auto send = send_command(1, 0);
  send.mutable_send()->set_num_messages(3);
  producer->send_payload(send, md, "batch-bytes");
  producer->expect(proto::BaseCommand::SEND_RECEIPT);
  auto a = connected_client();
  subscribe(*a, "bi1", shared, "a");
  a->send(flow_command(1, 10));
  auto id = a->expect(proto::BaseCommand::MESSAGE).command.message().message_id();
  // Messages 0 and 1 acknowledged: only bit 2 (message 2) is left.
  auto partial = id;
  partial.add_ack_set(0b100);
  a->send(ack_command(1, partial));
  proto::BaseCommand redeliver;
  redeliver.set_type(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(1);
  a->send(redeliver);
  auto again = a->expect(proto::BaseCommand::MESSAGE);
  ASSERT_EQ(again.command.message().ack_set_size(), 1);
  EXPECT_EQ(again.command.message().ack_set(0), 0b100);
  partial.set_ack_set(0, 0);
  a->send(ack_command(1, partial));
  for (int i = 0; i < 3000; ++i) {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, "GET",
                                  "/admin/v2/persistent/public/default/bi1/stats");
    if (r && json::parse(r.value().body)["subscriptions"]["s"]["msgBacklog"].get<int>() == 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  FAIL() << "the batch was never acknowledged whole";
}

}  // namespace
}  // namespace magnetar::broker::testing
