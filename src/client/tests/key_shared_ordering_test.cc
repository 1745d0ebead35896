// Key_Shared end to end: many keys, consumers that join (1 to 8), leave and stall while
// a producer publishes, and a check that every key's messages arrive in order, each at
// least once, none lost. The churn is driven by how many messages have arrived, not by
// time, so the test behaves the same on a loaded machine.
#include "client/tests/client_test_fixture.h"

#include <atomic>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

constexpr int keys = 100;
constexpr int per_key = 60;
constexpr int total = keys * per_key;

// What the application saw, across all its consumers: per key, the last message taken in
// order. A message after a gap is an ordering violation; one at or before the last is a
// redelivery (at-least-once), allowed.
class order_checker {
 public:
  void record(const std::string& payload) {
    const auto colon = payload.find(':');
    const int key = std::stoi(payload.substr(1, colon - 1));
    const int seq = std::stoi(payload.substr(colon + 1));
    std::lock_guard lock(_mutex);
    int& last = _last.try_emplace(key, -1).first->second;
    if (seq == last + 1) {
      last = seq;
      ++_in_order;
    } else if (seq <= last) {
      ++_duplicates;
    } else if (_violations.size() < 20) {
      _violations.push_back(fmt::format("k{}: got {} after {}", key, seq, last));
    }
  }
  int in_order() const {
    std::lock_guard lock(_mutex);
    return _in_order;
  }
  std::vector<std::string> violations() const {
    std::lock_guard lock(_mutex);
    return _violations;
  }
  int duplicates() const {
    std::lock_guard lock(_mutex);
    return _duplicates;
  }
  bool every_key_complete() const {
    std::lock_guard lock(_mutex);
    for (int k = 0; k < keys; ++k) {
      auto it = _last.find(k);
      if (it == _last.end() || it->second != per_key - 1) return false;
    }
    return true;
  }

 private:
  mutable std::mutex _mutex;
  std::map<int, int> _last{};
  int _in_order = 0;
  int _duplicates = 0;
  std::vector<std::string> _violations;
};

// One application consumer on its own thread: takes, records, acknowledges; can stall
// (stops taking) and be closed.
class churn_consumer {
 public:
  churn_consumer(consumer c, order_checker& checker) : _consumer(std::move(c)), _checker(checker) {
    _thread = std::thread([this] { run(); });
  }
  ~churn_consumer() { stop(); }
  void stall(bool on) { _stalled = on; }
  void stop() {
    _stop = true;
    if (_thread.joinable()) _thread.join();
    (void)_consumer.close();
  }

 private:
  void run() {
    while (!_stop) {
      if (_stalled) {
        std::this_thread::sleep_for(5ms);
        continue;
      }
      auto m = _consumer.receive(50ms);
      if (!m) continue;
      _checker.record(std::string(m.value().payload()));
      // Some work per message, so consumers hold messages queued when keys move.
      std::this_thread::sleep_for(200us);
      (void)_consumer.acknowledge(m.value());
    }
  }

  consumer _consumer;
  order_checker& _checker;
  std::atomic<bool> _stalled{false};
  std::atomic<bool> _stop{false};
  std::thread _thread;
};

class key_shared_ordering : public client_test {};

TEST_F(key_shared_ordering, every_key_stays_in_order_while_consumers_join_leave_and_stall) {
  consumer_config cc;
  cc.type = subscription_type::key_shared;
  cc.position = initial_position::earliest;
  cc.receiver_queue_size = 50;  // small, so a stalled consumer runs out of permits
  order_checker checker;
  std::vector<std::unique_ptr<churn_consumer>> consumers;
  auto join = [&] {
    cc.consumer_name = "c" + std::to_string(consumers.size());
    auto c = sdk->subscribe(topic(), "sub", cc);
    ASSERT_TRUE(c) << c.error();
    consumers.push_back(std::make_unique<churn_consumer>(std::move(c).value(), checker));
  };
  join();

  producer_config pc;
  pc.batching = batching_type::key_based;
  pc.batching_max_delay = 1ms;
  pc.block_if_queue_full = true;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::atomic<int> failed_sends{0};
  std::jthread producer([&] {
    for (int seq = 0; seq < per_key; ++seq) {
      for (int k = 0; k < keys; ++k) {
        auto m = message_builder().key("k" + std::to_string(k)).payload(fmt::format("k{}:{}", k, seq)).build();
        p.value().send_async(std::move(m), [&](result<message_id> r) {
          if (!r) ++failed_sends;
        });
      }
      // A producer that keeps publishing through the churn rather than all at once
      // (pacing only: no result depends on this sleep).
      (void)p.value().flush();
      std::this_thread::sleep_for(10ms);
    }
    (void)p.value().flush();
  });

  // A key out of order stops its progress: the violations say why.
  auto wait_for = [&](int in_order) {
    const bool reached = eventually([&] { return checker.in_order() >= in_order; });
    if (!reached) ADD_FAILURE() << ::testing::PrintToString(checker.violations());
    return reached;
  };
  // Joins: one more consumer every 400 messages, up to 8.
  for (int n = 2; n <= 8; ++n) {
    ASSERT_TRUE(wait_for(400 * (n - 1))) << "stuck at " << checker.in_order();
    join();
  }
  // Leaves: two consumers go with whatever they hold.
  ASSERT_TRUE(wait_for(3400));
  consumers[1]->stop();
  consumers[4]->stop();
  // A stall: one consumer stops taking; the others go on; then it leaves while stalled.
  ASSERT_TRUE(wait_for(3700));
  consumers[2]->stall(true);
  ASSERT_TRUE(wait_for(4300));
  consumers[2]->stop();
  // Another consumer stalls for a while and comes back.
  consumers[5]->stall(true);
  ASSERT_TRUE(wait_for(4800));
  consumers[5]->stall(false);

  producer.join();
  EXPECT_EQ(failed_sends.load(), 0);
  EXPECT_TRUE(eventually([&] { return checker.every_key_complete(); }))
      << "only " << checker.in_order() << " of " << total << " arrived in order";
  EXPECT_TRUE(checker.violations().empty()) << ::testing::PrintToString(checker.violations());
  EXPECT_EQ(checker.in_order(), total);
  consumers.clear();
}

}  // namespace
}  // namespace magnetar::client_testing
