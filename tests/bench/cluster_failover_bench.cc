// Benchmark: how long publishing pauses when a topic's owner goes, in a cluster of two
// `magnetar broker` processes over three bookies at E/W/A 3/3/2 with 6 s ZooKeeper
// sessions (cluster_fixture.h). A producer sends keyed, numbered messages at a steady
// rate through both brokers' service URL; each round finds the owner and
//   kill_9:  kills it with SIGKILL (then starts it again for the next round),
//   sigterm: stops it with SIGTERM (then starts it again),
//   unload:  unloads the topic's bundle through the admin API of the other broker.
// The publish pause of a round is the longest time without any receipt around the
// action: what an application sees. At the end the topic is read back: every receipted
// message must be there exactly once (deduplication is on) and each key in order.
//
//   tests/cluster_failover_bench [--gtest_filter='*kill_9*']
//   MAGNETAR_FAILOVER_ROUNDS=10 MAGNETAR_FAILOVER_RATE=30000 (messages a second)
//
// A gtest program for the cluster fixture's processes; its timings are printed, never
// asserted (they are measurements), and it is not part of the test suite.
#include "tests/e2e/cluster_fixture.h"

#include "magnetar/client.h"
#include "magnetar/consumer.h"
#include "magnetar/producer.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

namespace magnetar::e2e {
namespace {

using steady = std::chrono::steady_clock;

int setting(const char* name, int otherwise) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::atoi(value) : otherwise;
}

constexpr int keys = 100;

// Sends "<n>" with key "device-<n % keys>" at `rate` a second until stopped, and keeps
// each receipt's time.
class paced_producer {
 public:
  paced_producer(const std::string& service_url, const std::string& topic, int rate) {
    auto c = client::create(service_url);
    EXPECT_TRUE(c) << c.error();
    _client.emplace(std::move(c).value());
    producer_config config;
    config.send_timeout = std::chrono::milliseconds(0);
    config.block_if_queue_full = true;
    config.max_pending_messages = 100'000;
    config.batching_enabled = false;  // one entry a message, as the IoT workload's
    auto p = _client->create_producer(topic, config);
    EXPECT_TRUE(p) << p.error();
    _producer.emplace(std::move(p).value());
    _thread = std::thread([this, rate] { run(rate); });
  }
  ~paced_producer() { stop(); }

  void stop() {
    if (!_thread.joinable()) return;
    _stop = true;
    _thread.join();
    EXPECT_TRUE(_producer->flush());
  }
  // The longest time without a receipt between `from` and the last receipt.
  std::chrono::milliseconds pause_since(steady::time_point from) {
    std::lock_guard lock(_mutex);
    auto it = std::lower_bound(_receipt_times.begin(), _receipt_times.end(), from);
    steady::time_point last = from;
    steady::duration longest{};
    for (; it != _receipt_times.end(); ++it) {
      longest = std::max(longest, *it - last);
      last = *it;
    }
    return std::chrono::duration_cast<std::chrono::milliseconds>(longest);
  }
  // Whether a receipt came after `t`.
  bool receipted_after(steady::time_point t) {
    std::lock_guard lock(_mutex);
    return !_receipt_times.empty() && _receipt_times.back() > t;
  }
  std::map<int, std::vector<int>> receipted_by_key() {
    std::lock_guard lock(_mutex);
    std::map<int, std::vector<int>> out;
    for (int n : _receipted) out[n % keys].push_back(n);
    return out;
  }
  std::size_t receipted() {
    std::lock_guard lock(_mutex);
    return _receipted.size();
  }
  int failed() const { return _failed; }

 private:
  void run(int rate) {
    const auto start = steady::now();
    for (int n = 0; !_stop; ++n) {
      // Paced by the clock, in steps of a millisecond.
      const auto due = start + std::chrono::microseconds(static_cast<std::int64_t>(n) * 1'000'000 / rate);
      if (due > steady::now()) std::this_thread::sleep_until(due);
      _producer->send_async(
          message_builder().key(fmt::format("device-{}", n % keys)).payload(std::to_string(n)).build(),
          [this, n](result<message_id> id) {
            if (!id) {
              ++_failed;
              return;
            }
            std::lock_guard lock(_mutex);
            _receipt_times.push_back(steady::now());
            _receipted.push_back(n);
          });
    }
  }

  std::optional<client> _client;
  std::optional<producer> _producer;
  std::thread _thread;
  std::atomic<bool> _stop{false};
  std::atomic<int> _failed{0};
  std::mutex _mutex;
  std::vector<steady::time_point> _receipt_times;  // in order: callbacks run in order
  std::vector<int> _receipted;
};

class failover_bench : public cluster {
 protected:
  enum class action { kill_9, sigterm, unload };

  void measure(action what, const char* name) {
    const int rounds = setting("MAGNETAR_FAILOVER_ROUNDS", 10);
    const int rate = setting("MAGNETAR_FAILOVER_RATE", 1000);
    const std::string local = fmt::format("failover-{}", name);
    const std::string topic = "persistent://public/default/" + local;
    // Read back through a subscription made before the first message: without one,
    // ledgers closed by a move would be trimmed, as upstream trims them.
    auto reader_client = client::create(both());
    ASSERT_TRUE(reader_client) << reader_client.error();
    consumer_config reader_config;
    reader_config.position = initial_position::earliest;
    auto reader = reader_client.value().subscribe(topic, "check", reader_config);
    ASSERT_TRUE(reader) << reader.error();
    ASSERT_TRUE(reader.value().close());

    paced_producer producer(both(), topic, rate);
    std::vector<std::chrono::milliseconds> pauses;
    for (int round = 0; round < rounds; ++round) {
      const int owner = owner_of(local);
      ASSERT_GE(owner, 0);
      // A second of steady publishing first.
      const auto before = steady::now();
      wait_until([&] { return producer.receipted_after(before + std::chrono::seconds(1)); });
      const auto t0 = steady::now();
      switch (what) {
        case action::kill_9: brokers[owner]->kill_now(); break;
        case action::sigterm: brokers[owner]->stop(); break;
        case action::unload: {
          auto r = http::call(http::url::parse(brokers[1 - owner]->web_url()).value(), "PUT",
                              "/admin/v2/persistent/public/default/" + local + "/unload", {}, {.max_redirects = 3});
          ASSERT_TRUE(r && r.value().status == 204) << (r ? r.value().body : r.error().detail());
          break;
        }
      }
      // Publishing has resumed once receipts come for two seconds after the action.
      wait_until([&] {
        return producer.receipted_after(t0 + std::chrono::seconds(2)) &&
               producer.pause_since(t0) < steady::now() - t0 - std::chrono::seconds(2);
      });
      pauses.push_back(producer.pause_since(t0));
      fmt::print("{} round {}: owner broker-{}, publish pause {} ms\n", name, round, owner, pauses.back().count());
      if (what != action::unload) brokers[owner]->start();
    }
    producer.stop();

    std::sort(pauses.begin(), pauses.end());
    fmt::print("{}: {} rounds at {} msg/s: publish pause p50 {} ms, max {} ms; {} receipted, {} failed\n", name, rounds,
               rate, pauses[pauses.size() / 2].count(), pauses.back().count(), producer.receipted(), producer.failed());
    EXPECT_EQ(producer.failed(), 0);

    // Every receipted message once, each key in order.
    auto c = client::create(both());
    ASSERT_TRUE(c) << c.error();
    auto check = c.value().subscribe(topic, "check", reader_config);
    ASSERT_TRUE(check) << check.error();
    std::map<int, std::vector<int>> got;
    std::size_t count = 0;
    while (count < producer.receipted()) {
      auto m = check.value().receive(std::chrono::seconds(30));
      if (!m) break;
      const int n = std::stoi(std::string(m.value().payload()));
      got[n % keys].push_back(n);
      ++count;
    }
    const auto sent = producer.receipted_by_key();
    int out_of_order = 0, missing = 0, duplicated = 0;
    for (auto& [key, numbers] : got) {
      out_of_order += !std::is_sorted(numbers.begin(), numbers.end());
      const auto unique = std::set<int>(numbers.begin(), numbers.end());
      duplicated += static_cast<int>(numbers.size() - unique.size());
    }
    for (const auto& [key, numbers] : sent) {
      const auto& have = got[key];
      const std::set<int> have_set(have.begin(), have.end());
      for (int n : numbers) missing += !have_set.count(n);
    }
    fmt::print("{}: read back {}: {} missing, {} duplicated, {} keys out of order\n", name, count, missing, duplicated,
               out_of_order);
    EXPECT_EQ(missing, 0);
    EXPECT_EQ(duplicated, 0);
    EXPECT_EQ(out_of_order, 0);
  }

  template <class F>
  static void wait_until(F done) {
    const auto deadline = steady::now() + std::chrono::seconds(120);
    while (!done()) {
      ASSERT_LT(steady::now(), deadline) << "publishing did not resume";
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
};

TEST_F(failover_bench, kill_9) { measure(action::kill_9, "kill_9"); }
TEST_F(failover_bench, sigterm) { measure(action::sigterm, "sigterm"); }
TEST_F(failover_bench, unload) { measure(action::unload, "unload"); }

}  // namespace
}  // namespace magnetar::e2e
