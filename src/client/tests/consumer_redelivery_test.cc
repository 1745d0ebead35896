// The SDK against an in-process broker: negative acks, the ack timeout, dead letter and
// retry topics, and batch-index acks, mostly on Exclusive subscriptions (there a
// redelivery request brings back everything unacknowledged); messages reconsumed later
// come back after their delay on Shared ones (only Shared and Key_Shared delay).
#include "client/tests/client_test_fixture.h"

#include <future>
#include <set>
#include <utility>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class consumer_redelivery : public client_test {
 protected:
  static consumer_config from_earliest() {
    consumer_config c;
    c.position = initial_position::earliest;
    return c;
  }
  static producer_config unbatched() {
    producer_config c;
    c.batching_enabled = false;
    return c;
  }
  // Sends `payloads` as one batch.
  void send_batch(producer& p, const std::vector<std::string>& payloads) {
    std::vector<std::future<result<message_id>>> sent;
    for (const auto& s : payloads) sent.push_back(p.send_future(text(s)));
    ASSERT_TRUE(p.flush());
    for (auto& f : sent) ASSERT_TRUE(f.get());
  }
  producer batching_producer(const std::string& t) {
    producer_config pc;
    pc.batching_max_delay = 1h;  // only flush() ends a batch
    auto p = sdk->create_producer(t, pc);
    EXPECT_TRUE(p) << p.error();
    return p ? std::move(p).value() : producer();
  }
  // Wall-clock milliseconds, as deliver times are written (truncated alike).
  static std::int64_t epoch_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  // The next message the app gets whose payload is `payload` (others are acked).
  static result<message> next_with_payload(consumer& c, const std::string& payload) {
    while (true) {
      auto m = c.receive(10s);
      if (!m || m.value().payload() == payload) return m;
      (void)c.acknowledge(m.value());
    }
  }
};

TEST_F(consumer_redelivery, a_nacked_message_comes_again_after_the_delay) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("a")));
  auto cc = from_earliest();
  cc.negative_ack_redelivery_delay = 100ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto first = c.value().receive(10s);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first.value().redelivery_count(), 0u);
  ASSERT_TRUE(c.value().negative_acknowledge(first.value()));
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "a");
  EXPECT_EQ(again.value().id(), first.value().id());
  EXPECT_EQ(again.value().redelivery_count(), 1u);
}

TEST_F(consumer_redelivery, acks_waiting_in_the_group_go_before_a_nack_redelivery) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (const char* s : {"0", "1"}) ASSERT_TRUE(p.value().send(text(s)));
  auto cc = from_earliest();
  cc.ack_group_time = 1h;  // only the redelivery flushes the group
  cc.negative_ack_redelivery_delay = 100ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto zero = c.value().receive(10s);
  auto one = c.value().receive(10s);
  ASSERT_TRUE(zero && one);
  ASSERT_TRUE(c.value().acknowledge(zero.value()));
  ASSERT_TRUE(c.value().negative_acknowledge(one.value()));
  // The broker sends back what is unacknowledged: "1", not "0".
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "1");
}

TEST_F(consumer_redelivery, a_nacked_message_of_a_batch_brings_the_batch_back) {
  auto p = batching_producer(topic());
  send_batch(p, {"0", "1"});
  auto cc = from_earliest();
  cc.negative_ack_redelivery_delay = 100ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto zero = c.value().receive(10s);
  auto one = c.value().receive(10s);
  ASSERT_TRUE(zero && one);
  ASSERT_TRUE(c.value().negative_acknowledge(one.value()));
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "0");
  EXPECT_EQ(again.value().redelivery_count(), 1u);
}

TEST_F(consumer_redelivery, a_nack_on_a_closed_consumer_fails) {
  auto c = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(c.value().close());
  auto r = c.value().negative_acknowledge(message_id(1, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::already_closed);
}

TEST_F(consumer_redelivery, a_message_not_acked_within_the_ack_timeout_comes_again) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("a")));
  auto cc = from_earliest();
  cc.ack_timeout = 1s;
  cc.ack_timeout_tick = 100ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto first = c.value().receive(10s);
  ASSERT_TRUE(first) << first.error();
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "a");
  EXPECT_EQ(again.value().redelivery_count(), 1u);
}

TEST_F(consumer_redelivery, an_acked_message_does_not_time_out) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (const char* s : {"0", "1"}) ASSERT_TRUE(p.value().send(text(s)));
  auto cc = from_earliest();
  cc.ack_timeout = 1s;
  cc.ack_timeout_tick = 100ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto zero = c.value().receive(10s);
  ASSERT_TRUE(zero) << zero.error();
  ASSERT_TRUE(c.value().acknowledge(zero.value()));
  ASSERT_TRUE(c.value().receive(10s));  // "1", left unacked
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "1");
}

TEST_F(consumer_redelivery, an_ack_timeout_below_one_second_is_refused) {
  consumer_config cc;
  cc.ack_timeout = 500ms;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), client_errc::invalid_argument);
}

TEST_F(consumer_redelivery, a_message_delivered_past_the_limit_goes_to_the_dead_letter_topic) {
  auto dlq = sdk->subscribe(topic("-sub-DLQ"), "dlq-reader", from_earliest());
  ASSERT_TRUE(dlq) << dlq.error();
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  auto sent = p.value().send(message_builder().payload("poison").key("k").property("p", "v").build());
  ASSERT_TRUE(sent) << sent.error();
  auto cc = from_earliest();
  cc.negative_ack_redelivery_delay = 100ms;
  cc.dead_letter_policy.max_redeliver_count = 2;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  // As upstream: delivered with redelivery counts 0, 1 and 2; the next one is dead.
  for (std::uint32_t round = 0; round <= 2; ++round) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error() << " in round " << round;
    EXPECT_EQ(m.value().redelivery_count(), round);
    ASSERT_TRUE(c.value().negative_acknowledge(m.value()));
  }
  auto dead = dlq.value().receive(10s);
  ASSERT_TRUE(dead) << dead.error();
  EXPECT_EQ(dead.value().payload(), "poison");
  EXPECT_EQ(dead.value().key(), "k");
  EXPECT_EQ(dead.value().properties().at("p"), "v");
  EXPECT_EQ(dead.value().properties().at("REAL_TOPIC"), topic());
  EXPECT_EQ(dead.value().properties().at("ORIGIN_MESSAGE_ID"), sent.value().to_string());
  // The original is acknowledged: what comes next is newer.
  ASSERT_TRUE(p.value().send(text("after")));
  auto next = c.value().receive(10s);
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next.value().payload(), "after");
}

TEST_F(consumer_redelivery, each_message_of_a_dead_batch_goes_to_the_named_dead_letter_topic) {
  auto dlq = sdk->subscribe(topic("-dead"), "dlq-reader", from_earliest());
  ASSERT_TRUE(dlq) << dlq.error();
  auto p = batching_producer(topic());
  send_batch(p, {"0", "1"});
  auto cc = from_earliest();
  cc.negative_ack_redelivery_delay = 100ms;
  cc.dead_letter_policy.max_redeliver_count = 1;
  cc.dead_letter_policy.dead_letter_topic = topic("-dead");
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  for (std::uint32_t round = 0; round <= 1; ++round) {
    // Both are taken before either is nacked, so the redelivery can't cut a round short.
    std::vector<message> batch;
    for (int i = 0; i < 2; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      EXPECT_EQ(m.value().redelivery_count(), round);
      batch.push_back(m.value());
    }
    for (const auto& m : batch) ASSERT_TRUE(c.value().negative_acknowledge(m));
  }
  for (const char* expected : {"0", "1"}) {
    auto dead = dlq.value().receive(10s);
    ASSERT_TRUE(dead) << dead.error();
    EXPECT_EQ(dead.value().payload(), expected);
  }
  send_batch(p, {"after"});
  auto next = c.value().receive(10s);
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next.value().payload(), "after");
}

TEST_F(consumer_redelivery, reconsume_later_publishes_to_the_retry_topic_and_acks) {
  auto retry = sdk->subscribe(topic("-sub-RETRY"), "retry-reader", from_earliest());
  ASSERT_TRUE(retry) << retry.error();
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().payload("later").property("p", "v").build()));
  auto cc = from_earliest();
  cc.retry_enable = true;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  ASSERT_TRUE(c.value().reconsume_later(m.value(), 1s));
  auto r = retry.value().receive(10s);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().payload(), "later");
  EXPECT_EQ(r.value().properties().at("p"), "v");
  EXPECT_EQ(r.value().properties().at("RECONSUMETIMES"), "1");
  EXPECT_EQ(r.value().properties().at("DELAY_TIME"), "1000");
  EXPECT_EQ(r.value().properties().at("REAL_TOPIC"), topic());
  EXPECT_EQ(r.value().properties().at("ORIGIN_MESSAGE_ID"), m.value().id().to_string());
  // The consumer reads the retry topic too; on Exclusive the broker does not delay.
  ASSERT_TRUE(p.value().send(text("after")));
  std::set<std::pair<std::string, std::string>> got;
  for (int i = 0; i < 2; ++i) {
    auto next = c.value().receive(10s);
    ASSERT_TRUE(next) << next.error();
    got.emplace(next.value().payload(), next.value().topic());
  }
  EXPECT_EQ(got, (std::set<std::pair<std::string, std::string>>{{"later", topic("-sub-RETRY")}, {"after", topic()}}));
}

TEST_F(consumer_redelivery, a_reconsumed_message_comes_back_after_its_delay_counting_the_retries) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("again")));
  auto cc = from_earliest();
  cc.type = subscription_type::shared;
  cc.retry_enable = true;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_FALSE(m.value().properties().contains("RECONSUMETIMES"));
  for (int times = 1; times <= 2; ++times) {
    const auto asked = epoch_ms();
    ASSERT_TRUE(c.value().reconsume_later(m.value(), 300ms));
    m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    // The broker held it until the deliver time reconsume_later set (now + 300 ms).
    EXPECT_GE(epoch_ms() - asked, 300);
    EXPECT_EQ(m.value().payload(), "again");
    EXPECT_EQ(m.value().topic(), topic("-sub-RETRY"));
    EXPECT_EQ(m.value().properties().at("RECONSUMETIMES"), std::to_string(times));
    EXPECT_EQ(m.value().properties().at("REAL_TOPIC"), topic());
    EXPECT_EQ(m.value().redelivery_count(), 0u);
  }
  ASSERT_TRUE(c.value().acknowledge(m.value()));
}

TEST_F(consumer_redelivery, reconsume_later_past_the_limit_goes_to_the_dead_letter_topic) {
  auto dlq = sdk->subscribe(topic("-sub-DLQ"), "dlq-reader", from_earliest());
  ASSERT_TRUE(dlq) << dlq.error();
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().payload("tired").property("RECONSUMETIMES", "2").build()));
  auto cc = from_earliest();
  cc.retry_enable = true;
  cc.dead_letter_policy.max_redeliver_count = 2;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  ASSERT_TRUE(c.value().reconsume_later(m.value(), 1s));
  auto dead = dlq.value().receive(10s);
  ASSERT_TRUE(dead) << dead.error();
  EXPECT_EQ(dead.value().payload(), "tired");
}

TEST_F(consumer_redelivery, reconsume_later_without_retry_enable_is_refused) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("x")));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  auto r = c.value().reconsume_later(m.value(), 1s);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::invalid_argument);
}

TEST_F(consumer_redelivery, with_batch_index_acks_a_batch_acked_message_by_message_is_done) {
  auto p = batching_producer(topic());
  send_batch(p, {"0", "1", "2"});
  auto cc = from_earliest();
  cc.batch_index_ack_enabled = true;
  {
    auto c = sdk->subscribe(topic(), "sub", cc);
    ASSERT_TRUE(c) << c.error();
    for (int i = 0; i < 3; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      ASSERT_TRUE(c.value().acknowledge(m.value()));
    }
    ASSERT_TRUE(c.value().close());
  }
  send_batch(p, {"after"});
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto next = c.value().receive(10s);
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next.value().payload(), "after");
}

TEST_F(consumer_redelivery, with_batch_index_acks_only_the_unacked_messages_of_a_batch_come_again) {
  auto p = batching_producer(topic());
  send_batch(p, {"0", "1", "2"});
  auto cc = from_earliest();
  cc.batch_index_ack_enabled = true;
  {
    auto c = sdk->subscribe(topic(), "sub", cc);
    ASSERT_TRUE(c) << c.error();
    for (int i = 0; i < 3; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      if (i != 1) {
        ASSERT_TRUE(c.value().acknowledge(m.value()));
      }
    }
    ASSERT_TRUE(c.value().close());
  }
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto next = c.value().receive(10s);
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next.value().payload(), "1");
}

}  // namespace
}  // namespace magnetar::client_testing
