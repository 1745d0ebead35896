// Consumers with a message listener (consumer_config::message_listener) against a
// standalone broker in the test's process.
#include "client/tests/client_test_fixture.h"

#include <atomic>
#include <deque>
#include <future>
#include <mutex>
#include <stdexcept>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class message_listener : public client_test {
 protected:
  // Publishes "0" .. "count - 1" to `t`, each in its own entry.
  void publish(const std::string& t, int count) {
    producer_config pc;
    pc.batching_enabled = false;
    auto p = sdk->create_producer(t, pc);
    ASSERT_TRUE(p) << p.error();
    for (int i = 0; i < count; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  }

  // What a listener saw, in order.
  struct seen {
    std::mutex mutex;
    std::vector<std::string> payloads;
    std::size_t size() {
      std::lock_guard lock(mutex);
      return payloads.size();
    }
    std::vector<std::string> all() {
      std::lock_guard lock(mutex);
      return payloads;
    }
  };

  consumer_config recording_into(seen& s) {
    consumer_config cc;
    cc.position = initial_position::earliest;
    cc.message_listener = [&s](consumer& c, const message& m) {
      {
        std::lock_guard lock(s.mutex);
        s.payloads.emplace_back(m.payload());
      }
      (void)c.acknowledge(m);
    };
    return cc;
  }

  // Outlives the consumers, which the client closes at TearDown: a listener may run
  // until then.
  seen& new_seen() { return _seen.emplace_back(); }
  std::atomic<int> calls{0};

  static std::vector<std::string> numbers(int count) {
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) out.push_back(std::to_string(i));
    return out;
  }

 private:
  std::deque<seen> _seen;
};

TEST_F(message_listener, gets_every_message_in_order) {
  seen& s = new_seen();
  auto c = sdk->subscribe(topic(), "sub", recording_into(s));
  ASSERT_TRUE(c) << c.error();
  publish(topic(), 300);
  ASSERT_TRUE(eventually([&] { return s.size() >= 300; })) << s.size();
  EXPECT_EQ(s.all(), numbers(300));
}

TEST_F(message_listener, acknowledged_messages_are_not_delivered_again) {
  {
    seen& s = new_seen();
    auto c = sdk->subscribe(topic(), "sub", recording_into(s));
    ASSERT_TRUE(c) << c.error();
    publish(topic(), 20);
    ASSERT_TRUE(eventually([&] { return s.size() >= 20; }));
    ASSERT_TRUE(c.value().close());  // sends the acks waiting in the group
  }
  publish(topic(), 1);
  seen& again = new_seen();
  auto c = sdk->subscribe(topic(), "sub", recording_into(again));
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(eventually([&] { return again.size() >= 1; }));
  EXPECT_EQ(again.all(), std::vector<std::string>{"0"});  // the one published after the close
}

TEST_F(message_listener, receive_calls_fail_on_a_consumer_with_a_listener) {
  seen& s = new_seen();
  auto c = sdk->subscribe(topic(), "sub", recording_into(s));
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10ms);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error(), client_errc::invalid_argument);
  auto batch = c.value().batch_receive();
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error(), client_errc::invalid_argument);
}

TEST_F(message_listener, a_listener_that_throws_gets_the_next_messages) {
  consumer_config cc;
  cc.position = initial_position::earliest;
  cc.message_listener = [&](consumer&, const message& m) {
    ++calls;
    if (m.payload() == "0") throw std::runtime_error("the application's own failure");
  };
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  publish(topic(), 3);
  EXPECT_TRUE(eventually([&] { return calls.load() == 3; })) << calls.load();
}

TEST_F(message_listener, consumers_sharing_one_listener_thread_each_get_theirs) {
  // One listener thread (the default) for three consumers, more messages than their
  // receive queues hold: each must get its turn.
  std::vector<seen*> seen_by;
  std::vector<consumer> consumers;
  for (int i = 0; i < 3; ++i) {
    seen_by.push_back(&new_seen());
    auto cc = recording_into(*seen_by.back());
    cc.receiver_queue_size = 50;
    auto c = sdk->subscribe(topic(std::to_string(i)), "sub", cc);
    ASSERT_TRUE(c) << c.error();
    consumers.push_back(std::move(c).value());
  }
  for (int i = 0; i < 3; ++i) publish(topic(std::to_string(i)), 400);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(eventually([&] { return seen_by[static_cast<std::size_t>(i)]->size() >= 400; })) << i;
    EXPECT_EQ(seen_by[static_cast<std::size_t>(i)]->all(), numbers(400)) << i;
  }
}

TEST_F(message_listener, no_message_reaches_the_listener_once_its_consumer_closed) {
  std::promise<void> entered, release;
  auto released = release.get_future().share();
  consumer_config cc;
  cc.position = initial_position::earliest;
  cc.message_listener = [&, released](consumer&, const message&) {
    if (++calls == 1) {
      entered.set_value();
      released.wait();  // the others stay queued meanwhile
    }
  };
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  publish(topic(), 10);
  entered.get_future().wait();
  ASSERT_TRUE(c.value().close());
  release.set_value();
  ASSERT_TRUE(sdk->close());  // returns once no listener runs
  EXPECT_EQ(calls.load(), 1);
}

TEST_F(message_listener, a_multi_topic_consumer_hands_every_topics_messages_to_it) {
  seen& s = new_seen();
  auto c = sdk->subscribe(std::vector<std::string>{topic("a"), topic("b")}, "sub", recording_into(s));
  ASSERT_TRUE(c) << c.error();
  publish(topic("a"), 50);
  publish(topic("b"), 50);
  ASSERT_TRUE(eventually([&] { return s.size() >= 100; })) << s.size();
  EXPECT_EQ(s.size(), 100u);
}

}  // namespace
}  // namespace magnetar::client_testing
