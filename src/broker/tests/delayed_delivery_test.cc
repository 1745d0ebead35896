// Raw-frame tests of delayed delivery (MessageMetadata.deliver_at_time): Shared and
// Key_Shared hold a message until its time while later ones pass it; Exclusive sends it
// at once; a delayed message is not a redelivery; restarts and the setting.
//
// "Not before its time" is checked against the wall clock the broker reads (the same
// system clock, in this process) when the message arrives, so a slow machine makes a
// test slower, never wrong. "Not yet" is checked only right after publishing, by a
// PING answered before anything else arrives.
#include "broker/tests/broker_fixture.h"
#include "http/client.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <optional>
#include <thread>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
constexpr auto shared = proto::CommandSubscribe::Shared;
constexpr auto key_shared = proto::CommandSubscribe::Key_Shared;
constexpr auto exclusive = proto::CommandSubscribe::Exclusive;

std::string text(const wire::frame& f) { return std::string(f.payload.as_chars()); }

std::int64_t wall_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct outgoing {
  std::string payload;
  std::optional<std::int64_t> deliver_at_ms;
  std::string key;
  int batch_size = 0;  // > 0: the entry is a batch of that many messages
};

class delayed_delivery_test : public broker_test {
 protected:
  // Ticks short enough that a few hundred milliseconds of delay are seen as such.
  delayed_delivery_test() { config.delayed_delivery_tick = 20ms; }

  // Creates producer 1 and publishes the messages, each receipted.
  void publish_messages(raw_client& client, const std::string& topic, const std::vector<outgoing>& messages) {
    client.send(producer_command(topic, 1, 1000, "p"));
    client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
    for (std::size_t i = 0; i < messages.size(); ++i) {
      auto md = metadata("p", i);
      if (messages[i].deliver_at_ms) md.set_deliver_at_time(*messages[i].deliver_at_ms);
      if (!messages[i].key.empty()) md.set_partition_key(messages[i].key);
      auto send = send_command(1, i);
      if (messages[i].batch_size > 0) {
        // The broker reads only the metadata of a batch; the payload stays opaque to it.
        md.set_num_messages_in_batch(messages[i].batch_size);
        send.mutable_send()->set_num_messages(messages[i].batch_size);
      }
      client.send_payload(send, md, messages[i].payload);
    }
    for (std::size_t i = 0; i < messages.size(); ++i) client.expect(proto::BaseCommand::SEND_RECEIPT);
  }

  void subscribe(raw_client& client, const std::string& topic, proto::CommandSubscribe::SubType type,
                 std::uint32_t permits = 10) {
    client.send(subscribe_command(topic, "s", 1, 20, type, "c"));
    client.expect(proto::BaseCommand::SUCCESS);
    client.send(flow_command(1, permits));
  }

  // Nothing more arrives for the client: a PING's PONG comes next.
  static void expect_nothing_more(raw_client& client) {
    proto::BaseCommand ping;
    ping.set_type(proto::BaseCommand::PING);
    ping.mutable_ping();
    client.send(ping);
    client.expect(proto::BaseCommand::PONG);
  }

  // The subscription's stats from the admin API (null when it is not there).
  json subscription_stats(const std::string& topic) {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, "GET",
                                  "/admin/v2/persistent/public/default/" + topic + "/stats");
    EXPECT_TRUE(r) << r.error();
    if (!r || r.value().status != 200) return nullptr;
    return json::parse(r.value().body)["subscriptions"]["s"];
  }

  // Waits until the subscription holds `count` delayed entries.
  void wait_for_delayed(const std::string& topic, std::uint64_t count) {
    for (int i = 0; i < 2000; ++i) {
      auto s = subscription_stats(topic);
      if (s.is_object() && s["msgDelayed"].get<std::uint64_t>() == count) return;
      std::this_thread::sleep_for(10ms);
    }
    FAIL() << "msgDelayed never became " << count << ": " << subscription_stats(topic).dump();
  }

  // The next MESSAGE, which must be `payload`, arriving no earlier than `not_before_ms`
  // by the wall clock, and not counted as a redelivery.
  void expect_message(raw_client& client, const std::string& payload, std::int64_t not_before_ms = 0) {
    auto m = client.expect(proto::BaseCommand::MESSAGE);
    const auto arrived = wall_now_ms();
    EXPECT_EQ(text(m), payload);
    EXPECT_EQ(m.command.message().redelivery_count(), 0u) << payload;
    EXPECT_GE(arrived, not_before_ms) << payload << " came " << not_before_ms - arrived << " ms early";
  }
};

TEST_F(delayed_delivery_test, SharedHoldsADelayedMessageUntilItsTimeWhileALaterOneGoesAtOnce) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd1", shared);
  auto producer = connected_client();
  const auto due = wall_now_ms() + 400;
  publish_messages(*producer, "dd1", {{"late", due, ""}, {"now", std::nullopt, ""}});
  expect_message(*consumer, "now");
  expect_nothing_more(*consumer);
  expect_message(*consumer, "late", due);
  expect_nothing_more(*consumer);
}

TEST_F(delayed_delivery_test, KeySharedLetsLaterMessagesOfTheKeyPassADelayedOne) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd2", key_shared);
  auto producer = connected_client();
  const auto due = wall_now_ms() + 400;
  publish_messages(*producer, "dd2", {{"late", due, "k"}, {"now", std::nullopt, "k"}});
  expect_message(*consumer, "now");
  expect_nothing_more(*consumer);
  expect_message(*consumer, "late", due);
}

TEST_F(delayed_delivery_test, SharedHoldsABatchByItsMetadatasDeliverTime) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd9", shared);
  auto producer = connected_client();
  const auto due = wall_now_ms() + 400;
  publish_messages(*producer, "dd9", {{"late batch", due, "", 3}, {"now", std::nullopt, ""}});
  expect_message(*consumer, "now");
  expect_nothing_more(*consumer);
  expect_message(*consumer, "late batch", due);
}

TEST_F(delayed_delivery_test, ExclusiveDeliversADelayedMessageAtOnce) {
  auto producer = connected_client();
  // An hour ahead: arriving at all within the test's deadline means it was not held.
  publish_messages(*producer, "dd3", {{"later", wall_now_ms() + 3'600'000, ""}, {"now", std::nullopt, ""}});
  auto consumer = connected_client();
  subscribe(*consumer, "dd3", exclusive);
  expect_message(*consumer, "later");
  expect_message(*consumer, "now");
}

TEST_F(delayed_delivery_test, AHeldMessageCountsAsDelayedInTheStatsAndNotAsBacklogGone) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd4", shared);
  auto producer = connected_client();
  publish_messages(*producer, "dd4", {{"later", wall_now_ms() + 3'600'000, ""}});
  wait_for_delayed("dd4", 1);
  expect_nothing_more(*consumer);
  const auto stats = subscription_stats("dd4");
  EXPECT_EQ(stats["msgBacklog"], 1);
  EXPECT_EQ(stats["unackedMessages"], 0);
  // Tear-down closes the subscription while its timer waits an hour: it must not hang.
}

TEST_F(delayed_delivery_test, AMessageDueAlreadyGoesAtOnce) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd5", shared);
  auto producer = connected_client();
  publish_messages(*producer, "dd5", {{"past", wall_now_ms() - 1'000, ""}});
  expect_message(*consumer, "past");
}

TEST_F(delayed_delivery_test, ADelayedMessageIsHeldAgainAfterARestart) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd6", shared);
  auto producer = connected_client();
  const auto due = wall_now_ms() + 1'500;
  publish_messages(*producer, "dd6", {{"late", due, ""}});
  wait_for_delayed("dd6", 1);
  producer.reset();
  consumer.reset();
  restart();
  // The tracker was in memory: the cursor reads the entry again and holds it anew.
  consumer = connected_client();
  subscribe(*consumer, "dd6", shared);
  expect_message(*consumer, "late", due);
}

TEST_F(delayed_delivery_test, AConsumersRedeliveryRequestLeavesHeldMessagesHeld) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd7", shared);
  auto producer = connected_client();
  publish_messages(*producer, "dd7", {{"later", wall_now_ms() + 3'600'000, ""}, {"now", std::nullopt, ""}});
  auto m = consumer->expect(proto::BaseCommand::MESSAGE);
  EXPECT_EQ(text(m), "now");
  proto::BaseCommand redeliver;
  redeliver.set_type(proto::BaseCommand::REDELIVER_UNACKNOWLEDGED_MESSAGES);
  redeliver.mutable_redeliverunacknowledgedmessages()->set_consumer_id(1);
  consumer->send(redeliver);
  auto again = consumer->expect(proto::BaseCommand::MESSAGE);
  EXPECT_EQ(text(again), "now");
  EXPECT_EQ(again.command.message().redelivery_count(), 1u);
  expect_nothing_more(*consumer);
}

class delayed_delivery_disabled_test : public delayed_delivery_test {
 protected:
  delayed_delivery_disabled_test() { config.delayed_delivery_enabled = false; }
};

TEST_F(delayed_delivery_disabled_test, SharedDeliversADelayedMessageAtOnce) {
  auto consumer = connected_client();
  subscribe(*consumer, "dd8", shared);
  auto producer = connected_client();
  publish_messages(*producer, "dd8", {{"later", wall_now_ms() + 3'600'000, ""}});
  expect_message(*consumer, "later");
}

}  // namespace
}  // namespace magnetar::broker::testing
