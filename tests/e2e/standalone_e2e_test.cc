// End to end: a `magnetar standalone` process and the SDK, across graceful restarts and
// crashes (SIGKILL).
#include "io/temp_directory.h"
#include "magnetar/client.h"
#include "magnetar/consumer.h"
#include "magnetar/producer.h"
#include "tests/e2e/standalone_process.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <set>

namespace magnetar::e2e {
namespace {

class standalone_e2e : public ::testing::Test {
 protected:
  void SetUp() override { server.start(); }

  client connect() {
    auto c = client::create(server.service_url());
    EXPECT_TRUE(c) << c.error();
    return std::move(c).value();
  }

  // Every message of the topic from the earliest, until `count` arrived (or a receive
  // times out: then what arrived so far).
  std::vector<std::string> consume_all(client& c, const std::string& topic, std::size_t count,
                                       const std::string& subscription = "check") {
    consumer_config config;
    config.position = initial_position::earliest;
    auto cons = c.subscribe(topic, subscription, config);
    EXPECT_TRUE(cons) << cons.error();
    std::vector<std::string> out;
    while (cons && out.size() < count) {
      auto m = cons.value().receive(std::chrono::seconds(20));
      if (!m) break;
      out.emplace_back(m.value().payload());
      (void)cons.value().acknowledge(m.value());
    }
    return out;
  }

  io::temp_directory dir{"standalone-e2e"};
  standalone_process server{MAGNETAR_BINARY, dir.path()};
};

TEST_F(standalone_e2e, MessagesArriveInPublishOrder) {
  auto c = connect();
  producer_config config;
  config.block_if_queue_full = true;
  auto p = c.create_producer("ordered", config);
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 5000; ++i) p.value().send_async(message_builder().payload(std::to_string(i)).build(), nullptr);
  ASSERT_TRUE(p.value().flush());
  auto got = consume_all(c, "ordered", 5000);
  ASSERT_EQ(got.size(), 5000u);
  for (int i = 0; i < 5000; ++i) ASSERT_EQ(got[i], std::to_string(i));
}

TEST_F(standalone_e2e, ReceiptedMessagesSurviveAKill9) {
  std::mutex mutex;
  std::set<std::string> receipted;
  {
    auto c = connect();
    producer_config config;
    config.block_if_queue_full = true;
    config.send_timeout = std::chrono::milliseconds(0);
    auto p = c.create_producer("crash", config);
    ASSERT_TRUE(p) << p.error();
    for (int i = 0; i < 20000; ++i) {
      const auto text = std::to_string(i);
      p.value().send_async(message_builder().payload(text).build(), [&, text](result<message_id> id) {
        if (!id) return;
        std::lock_guard lock(mutex);
        receipted.insert(text);
      });
      if (i == 10000) {
        server.kill_now();  // mid-stream: some receipted, some sent and not, some queued
        server.start();     // same ports: the producer reconnects and sends the rest again
      }
    }
    // The client retries until closed; what it had receipted before the crash counts.
    (void)c.close();
  }
  std::set<std::string> must_have;
  {
    std::lock_guard lock(mutex);
    must_have = receipted;
  }
  ASSERT_FALSE(must_have.empty());
  server.kill_now();  // and once more, with nothing flushed since the receipts
  server.start();
  auto c = connect();
  auto got = consume_all(c, "crash", must_have.size());
  const std::set<std::string> present(got.begin(), got.end());
  for (const auto& m : must_have) ASSERT_TRUE(present.contains(m)) << "receipted message " << m << " lost";
}

TEST_F(standalone_e2e, ProducerAndConsumerCarryOnAcrossABrokerRestart) {
  auto c = connect();
  producer_config pconfig;
  pconfig.block_if_queue_full = true;
  pconfig.send_timeout = std::chrono::milliseconds(0);  // wait for the broker to come back
  auto p = c.create_producer("restart", pconfig);
  ASSERT_TRUE(p) << p.error();
  consumer_config cconfig;
  cconfig.position = initial_position::earliest;
  auto cons = c.subscribe("restart", "s", cconfig);
  ASSERT_TRUE(cons) << cons.error();
  std::set<std::string> got;
  auto receive_until = [&](std::size_t count) {
    while (got.size() < count) {
      auto m = cons.value().receive(std::chrono::seconds(30));
      ASSERT_TRUE(m) << m.error();
      got.insert(std::string(m.value().payload()));
      ASSERT_TRUE(cons.value().acknowledge(m.value()));
    }
  };
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(p.value().send(message_builder().payload(std::to_string(i)).build()));
  receive_until(100);
  server.stop();
  server.start();  // same ports: the client reconnects on its own
  for (int i = 100; i < 200; ++i) ASSERT_TRUE(p.value().send(message_builder().payload(std::to_string(i)).build()));
  receive_until(200);
  EXPECT_EQ(got.size(), 200u);
}

TEST_F(standalone_e2e, FailoverMovesDeliveryToTheStandbyWhenTheActiveCloses) {
  auto c = connect();
  consumer_config config;
  config.type = subscription_type::failover;
  config.position = initial_position::earliest;
  config.consumer_name = "a";
  auto a = c.subscribe("failover", "s", config);
  ASSERT_TRUE(a) << a.error();
  config.consumer_name = "b";
  auto b = c.subscribe("failover", "s", config);
  ASSERT_TRUE(b) << b.error();
  auto p = c.create_producer("failover");
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().payload("first").build()));
  auto first = a.value().receive(std::chrono::seconds(20));
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first.value().payload(), "first");
  ASSERT_TRUE(a.value().close());
  ASSERT_TRUE(p.value().send(message_builder().payload("second").build()));
  // "first" was never acknowledged: the standby gets it again, then "second".
  std::vector<std::string> at_b;
  while (at_b.size() < 2) {
    auto m = b.value().receive(std::chrono::seconds(20));
    ASSERT_TRUE(m) << m.error();
    at_b.emplace_back(m.value().payload());
  }
  EXPECT_EQ(at_b, (std::vector<std::string>{"first", "second"}));
}

TEST_F(standalone_e2e, SeekAndLastMessageIdWorkThroughTheSdk) {
  auto c = connect();
  auto p = c.create_producer("seek");
  ASSERT_TRUE(p) << p.error();
  std::vector<message_id> ids;
  for (int i = 0; i < 10; ++i) {
    auto id = p.value().send(message_builder().payload(std::to_string(i)).build());
    ASSERT_TRUE(id) << id.error();
    ids.push_back(id.value());
  }
  consumer_config config;
  config.position = initial_position::earliest;
  auto cons = c.subscribe("seek", "s", config);
  ASSERT_TRUE(cons) << cons.error();
  auto last = cons.value().get_last_message_id();
  ASSERT_TRUE(last) << last.error();
  EXPECT_EQ(last.value().ledger_id(), ids.back().ledger_id());
  EXPECT_EQ(last.value().entry_id(), ids.back().entry_id());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(cons.value().receive(std::chrono::seconds(20)));
  ASSERT_TRUE(cons.value().seek(ids[7]));
  auto again = cons.value().receive(std::chrono::seconds(20));
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "7");
}

}  // namespace
}  // namespace magnetar::e2e
