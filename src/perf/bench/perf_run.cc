#include "perf/bench/perf_run.h"

#include "base/errc.h"
#include "magnetar/client.h"
#include "magnetar/consumer.h"
#include "magnetar/producer.h"
#include "perf/workload/pacer.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

namespace magnetar::perf {

result<compression_type> compression_of(std::string_view name) {
  if (name == "none") return compression_type::none;
  if (name == "lz4") return compression_type::lz4;
  if (name == "zstd") return compression_type::zstd;
  return fail(base::errc::invalid_argument, fmt::format("compression '{}': use none, lz4 or zstd", name));
}

result<subscription_type> subscription_type_of(std::string_view name) {
  if (name == "Exclusive") return subscription_type::exclusive;
  if (name == "Shared") return subscription_type::shared;
  if (name == "Failover") return subscription_type::failover;
  if (name == "Key_Shared") return subscription_type::key_shared;
  return fail(base::errc::invalid_argument,
              fmt::format("subscription type '{}': use Exclusive, Shared, Failover or Key_Shared", name));
}

namespace {

using steady = std::chrono::steady_clock;

std::int64_t wall_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

double seconds_since(steady::time_point start) { return std::chrono::duration<double>(steady::now() - start).count(); }

// The producer side, shared with its callbacks. They all run on the client's one io
// thread, and the main thread reads the histogram only after flush() and close() have
// completed every callback, so it needs no lock.
struct produce_state {
  base::histogram latency_us{60'000'000, 3};
  std::vector<double> max_ms_by_window;
  std::atomic<std::uint64_t> acked{0};
  std::atomic<std::uint64_t> errors{0};
};

result<void> produce(client& c, const perf_options& options, perf_results& out) {
  MAGNETAR_TRY(compression, compression_of(options.compression));
  producer_config config;
  config.batching_enabled = options.batching;
  config.batching_max_messages = options.batch_max_messages;
  config.batching_max_bytes = std::max<std::size_t>(128 * 1024, options.message_size * 2);
  config.batching_max_delay = options.batch_max_delay;
  config.max_pending_messages = options.max_pending;
  config.block_if_queue_full = true;
  config.compression = compression;
  if (options.keys > 0) config.batching = batching_type::key_based;
  MAGNETAR_TRY(p, c.create_producer(options.topic, config));
  std::vector<std::string> keys;
  for (unsigned k = 0; k < options.keys; ++k) keys.push_back("key-" + std::to_string(k));

  auto state = std::make_shared<produce_state>();
  state->max_ms_by_window.resize(static_cast<std::size_t>(options.duration / perf_results::publish_window) + 1);
  std::string payload(std::max<std::size_t>(options.message_size, sizeof(std::int64_t)), 'x');
  const auto start = steady::now();
  // The wall clock at each send, from the steady one: one clock read per message, not two
  // (the clocks drift apart by far less than a latency bucket over a run).
  const auto start_wall_ns = wall_ns();
  const auto end = start + options.duration;
  const bool paced = options.rate > 0;
  const pacer schedule(options.rate, start);
  std::uint64_t sent = 0;
  for (;;) {
    // An unpaced send has no intended time before the send itself.
    const auto intended = paced ? schedule.due(sent) : steady::now();
    if (intended >= end) break;
    if (paced) schedule.wait(sent);
    const std::int64_t now_ns =
        start_wall_ns + std::chrono::duration_cast<std::chrono::nanoseconds>(intended - start).count();
    std::memcpy(payload.data(), &now_ns, sizeof now_ns);
    message_builder builder;
    builder.payload(std::string_view(payload));
    if (!keys.empty()) builder.key(keys[sent % keys.size()]);
    const auto window = static_cast<std::size_t>((intended - start) / perf_results::publish_window);
    p.send_async(builder.build(), [state, intended, window](result<message_id> id) {
      if (!id) {
        state->errors.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      const auto us = std::chrono::duration_cast<std::chrono::microseconds>(steady::now() - intended).count();
      state->latency_us.record(us);
      auto& slowest = state->max_ms_by_window[std::min(window, state->max_ms_by_window.size() - 1)];
      slowest = std::max(slowest, static_cast<double>(us) / 1e3);
      state->acked.fetch_add(1, std::memory_order_relaxed);
    });
    ++sent;
  }
  // A failed flush is already counted: every failed send's callback counts itself.
  (void)p.flush();
  out.produce_seconds = seconds_since(start);
  (void)p.close();
  out.sent = state->acked.load();
  out.send_errors = state->errors.load();
  out.bytes_sent = out.sent * payload.size();
  MAGNETAR_TRY(out.publish_latency_us.merge(state->latency_us));
  out.publish_max_ms_by_window = std::move(state->max_ms_by_window);
  return success();
}

// What one consumer received: written by its listener, read once the consumers closed.
struct consume_state {
  std::mutex mutex;
  std::uint64_t received = 0;
  base::histogram latency_us{60'000'000, 3};
};

// The subscription's consumers. Each hands its messages to a listener that measures and
// acknowledges them, on the client's listener thread, as upstream's perf consumer does:
// a receiving thread per consumer cost each a wake-up per batch it waited for.
struct consuming {
  std::deque<consume_state> states;  // one per consumer; the listeners hold their addresses
  std::vector<consumer> consumers;
  std::atomic<std::uint64_t> received_total{0};
};

result<consumer> subscribe(client& c, const perf_options& options, consume_state& state,
                           std::atomic<std::uint64_t>& received_total) {
  MAGNETAR_TRY(type, subscription_type_of(options.subscription_type));
  // Shared and Key_Shared take individual acks only (grouped by the SDK).
  const bool cumulative = type == subscription_type::exclusive || type == subscription_type::failover;
  consumer_config config;
  config.type = type;
  config.receiver_queue_size = options.receiver_queue_size;
  config.position = initial_position::latest;
  config.message_listener = [&state, &received_total, cumulative](consumer& cons, const message& m) {
    const auto payload = m.payload();
    {
      std::lock_guard lock(state.mutex);
      ++state.received;
      if (payload.size() >= sizeof(std::int64_t)) {
        std::int64_t sent_ns = 0;
        std::memcpy(&sent_ns, payload.data(), sizeof sent_ns);
        state.latency_us.record(std::max<std::int64_t>(0, (wall_ns() - sent_ns) / 1000));
      }
    }
    if (!cumulative) {
      (void)cons.acknowledge(m);
    } else if (const auto& id = m.id(); !id.is_batched() || id.batch_index() + 1 >= id.batch_size()) {
      (void)cons.acknowledge_cumulative(m);  // once an entry, at its last message: it covers the rest
    }
    received_total.fetch_add(1, std::memory_order_relaxed);
  };
  return c.subscribe(options.topic, options.subscription, config);
}

result<void> subscribe_all(client& c, const perf_options& options, consuming& into) {
  for (unsigned i = 0; i < std::max(1u, options.consumers); ++i) {
    auto& state = into.states.emplace_back();
    MAGNETAR_TRY(cons, subscribe(c, options, state, into.received_total));
    into.consumers.push_back(std::move(cons));
  }
  return success();
}

// Waits until `producing` is off and the consumers have `expected` messages together (or
// the drain timeout passes), closes them, and gathers what they measured into `out`.
result<void> consume_all(consuming& in, const perf_options& options, perf_results& out,
                         const std::atomic<bool>& producing, const std::atomic<std::uint64_t>& expected) {
  const auto start = steady::now();
  steady::time_point drain_deadline{};
  for (;;) {
    if (!producing.load()) {
      if (drain_deadline == steady::time_point{}) drain_deadline = steady::now() + options.drain_timeout;
      if (in.received_total.load() >= expected.load() || steady::now() > drain_deadline) break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a poll of counters, not a wait for messages
  }
  out.consume_seconds = seconds_since(start);
  for (auto& c : in.consumers) (void)c.close();
  for (auto& state : in.states) {
    std::lock_guard lock(state.mutex);
    out.received += state.received;
    out.received_per_consumer.push_back(state.received);
    MAGNETAR_TRY(out.end_to_end_latency_us.merge(state.latency_us));
  }
  return success();
}

client_config client_config_of(const perf_options& options) {
  client_config config;
  config.auth_plugin = options.auth_plugin;
  config.auth_params = options.auth_params;
  config.tls_trust_certs_file_path = options.trust_cert_file;
  config.tls_allow_insecure_connection = options.tls_allow_insecure;
  return config;
}

}  // namespace

result<perf_results> run_produce(const perf_options& options) {
  MAGNETAR_TRY(c, client::create(options.service_url, client_config_of(options)));
  perf_results out;
  MAGNETAR_TRY(produce(c, options, out));
  return out;
}

result<perf_results> run_consume(const perf_options& options) {
  consuming in;  // outlives the client, whose listener threads use it
  client_config config = client_config_of(options);
  config.message_listener_threads = options.listener_threads;
  MAGNETAR_TRY(c, client::create(options.service_url, config));
  MAGNETAR_TRY(subscribe_all(c, options, in));
  perf_results out;
  std::atomic<bool> producing{true};
  std::atomic<std::uint64_t> expected{0};
  std::thread timer([&] {
    std::this_thread::sleep_for(options.duration);
    producing = false;
  });
  auto done = consume_all(in, options, out, producing, expected);
  timer.join();
  MAGNETAR_TRY(done);
  return out;
}

result<perf_results> run_pubsub(const perf_options& options) {
  consuming in;  // outlives the clients, whose listener threads use it
  client_config config = client_config_of(options);
  config.io_threads = 1;
  MAGNETAR_TRY(producer_client, client::create(options.service_url, config));
  config.message_listener_threads = options.listener_threads;
  MAGNETAR_TRY(consumer_client, client::create(options.service_url, config));
  MAGNETAR_TRY(subscribe_all(consumer_client, options, in));
  perf_results out;
  std::atomic<bool> producing{true};
  std::atomic<std::uint64_t> expected{0};
  result<void> consumed = success();
  std::thread consumer_thread([&] { consumed = consume_all(in, options, out, producing, expected); });
  auto produced = produce(producer_client, options, out);
  expected = out.sent;
  producing = false;
  consumer_thread.join();
  MAGNETAR_TRY(produced);
  MAGNETAR_TRY(consumed);
  return out;
}

}  // namespace magnetar::perf
