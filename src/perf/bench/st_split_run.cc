#include "perf/bench/st_split_run.h"

#include "base/errc.h"
#include "http/client.h"
#include "magnetar/st/client.h"
#include "perf/bench/key_sequences.h"
#include "perf/bench/windowed_max.h"
#include "perf/workload/pacer.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::perf {

namespace {

using clock_type = std::chrono::steady_clock;

// Payload: [send time ns][key index][key sequence], then padding.
struct payload_header {
  std::int64_t sent_ns;
  std::uint32_t key;
  std::uint64_t sequence;
};

std::string make_payload(std::size_t size, std::uint32_t key, std::uint64_t sequence) {
  std::string bytes(std::max(size, sizeof(payload_header)), '\0');
  payload_header h{clock_type::now().time_since_epoch().count(), key, sequence};
  std::memcpy(bytes.data(), &h, sizeof h);
  return bytes;
}

double ms(clock_type::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

result<void> admin(const http::url& endpoint, std::string_view method, const std::string& target) {
  MAGNETAR_TRY(reply, http::call(endpoint, method, target, {}, {.timeout = std::chrono::seconds(30)}));
  if (reply.status / 100 != 2) {
    return fail(base::errc::io_error, fmt::format("{} {}: HTTP {} {}", method, target, reply.status, reply.body));
  }
  return success();
}

}  // namespace

result<void> validate(const st_split_options& options) {
  if (options.rate <= 0 || options.keys == 0) return fail(base::errc::invalid_argument, "rate and keys must be > 0");
  if (!(options.split_at < options.merge_at && options.merge_at < options.duration)) {
    return fail(base::errc::invalid_argument, "expected split-at < merge-at < duration");
  }
  return success();
}

std::string st_split_topic(const st_split_options& options, std::chrono::system_clock::time_point now) {
  if (!options.topic.empty()) return options.topic;
  return fmt::format("topic://public/default/st-split-{}",
                     std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
}

result<st_split_results> run_st_split(const st_split_options& options) {
  MAGNETAR_TRY(validate(options));
  st_split_results out;
  out.topic = st_split_topic(options, std::chrono::system_clock::now());
  const auto local = out.topic.substr(out.topic.rfind('/') + 1);
  const auto admin_path = fmt::format("/admin/v2/scalable/public/default/{}", local);
  MAGNETAR_TRY(endpoint, http::url::parse(options.admin_url, 80, "admin URL"));
  MAGNETAR_TRY(admin(endpoint, "PUT", admin_path + "?numInitialSegments=1"));

  MAGNETAR_TRY(client, st::client::create(options.service_url));
  st::stream_consumer_config consumer_config;
  consumer_config.position = initial_position::earliest;
  consumer_config.receive_queue_capacity = 10'000;
  consumer_config.receiver_queue_size = 5'000;
  MAGNETAR_TRY(consumer, client.subscribe_stream(out.topic, "st-split", consumer_config));
  st::producer_config producer_config;
  producer_config.max_pending_messages = 200'000;  // a stall is measured, not throttled away
  producer_config.batching_max_delay = std::chrono::milliseconds(1);
  MAGNETAR_TRY(producer, client.create_producer(out.topic, producer_config));

  const auto span = options.duration + options.drain_timeout + std::chrono::seconds(5);
  windowed_max publish_max(span);
  windowed_max gap_max(span);
  std::mutex histogram_mutex;
  std::atomic<std::uint64_t> receipted{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<bool> producing{true};
  const auto start = clock_type::now();

  key_sequences sequences(options.keys);  // the consumer thread's until it is joined
  std::thread consumer_thread([&] {
    auto last_delivery = clock_type::now();
    auto last_ack = last_delivery;
    std::optional<st::message> unacked;
    while (true) {
      auto m = consumer.receive(std::chrono::milliseconds(50));
      const auto now = clock_type::now();
      if (!m) {
        // Acknowledging as it goes is what lets a split's children be assigned.
        if (unacked) {
          (void)consumer.acknowledge_cumulative(*unacked);
          unacked.reset();
          last_ack = now;
        }
        if (!producing && sequences.unique() >= receipted.load()) break;
        if (!producing && now - start > options.duration + options.drain_timeout) break;
        continue;
      }
      gap_max.record(now - start, ms(now - last_delivery));
      last_delivery = now;
      ++out.received;
      payload_header h{};
      if (m.value().size() >= sizeof h) std::memcpy(&h, m.value().payload().data(), sizeof h);
      sequences.record(h.key, h.sequence);
      unacked = std::move(m).value();
      if (now - last_ack > std::chrono::milliseconds(20)) {
        (void)consumer.acknowledge_cumulative(*unacked);
        unacked.reset();
        last_ack = now;
      }
    }
    if (unacked) (void)consumer.acknowledge_cumulative(*unacked);
  });

  std::thread changes([&] {
    std::this_thread::sleep_until(start + options.split_at);
    auto t0 = clock_type::now();
    auto split = admin(endpoint, "POST", admin_path + "/split/0");
    out.split.at_seconds = std::chrono::duration<double>(t0 - start).count();
    out.split.admin_call_ms = ms(clock_type::now() - t0);
    if (!split) fmt::print(stderr, "split: {}\n", split.error());
    std::this_thread::sleep_until(start + options.merge_at);
    t0 = clock_type::now();
    auto merge = admin(endpoint, "POST", admin_path + "/merge/1/2");
    out.merge.at_seconds = std::chrono::duration<double>(t0 - start).count();
    out.merge.admin_call_ms = ms(clock_type::now() - t0);
    if (!merge) fmt::print(stderr, "merge: {}\n", merge.error());
  });

  std::vector<std::uint64_t> next_sequence(options.keys, 0);
  const pacer schedule(options.rate, start);
  for (std::uint64_t i = 0;; ++i) {
    const auto intended = schedule.due(i);
    if (intended - start >= options.duration) break;
    schedule.wait(i);
    const auto key = static_cast<std::uint32_t>(i % options.keys);
    auto m = message_builder()
                 .key(fmt::format("key-{}", key))
                 .payload(make_payload(options.message_size, key, next_sequence[key]++))
                 .build();
    producer.send_async(std::move(m), [&, intended](result<st::message_id> id) {
      const auto now = clock_type::now();
      if (!id) {
        errors.fetch_add(1);
        return;
      }
      receipted.fetch_add(1);
      const auto latency = now - intended;
      publish_max.record(intended - start, ms(latency));
      std::lock_guard lock(histogram_mutex);
      out.publish_latency_us.record(std::chrono::duration_cast<std::chrono::microseconds>(latency).count());
    });
  }
  (void)producer.flush();
  out.produce_seconds = std::chrono::duration<double>(clock_type::now() - start).count();
  producing = false;
  changes.join();
  consumer_thread.join();
  (void)producer.close();
  (void)consumer.close();
  (void)client.close();

  out.unique = sequences.unique();
  out.duplicates = sequences.duplicates();
  out.out_of_order = sequences.out_of_order();
  out.sent = receipted.load();
  out.send_errors = errors.load();
  out.missing = out.sent > out.unique ? out.sent - out.unique : 0;
  const auto split_at =
      std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(out.split.at_seconds));
  const auto merge_at =
      std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(out.merge.at_seconds));
  out.steady_max_publish_latency_ms = publish_max.max_between(std::chrono::seconds(1), split_at);
  out.steady_max_delivery_gap_ms = gap_max.max_between(std::chrono::seconds(1), split_at);
  out.split.max_publish_latency_ms = publish_max.max_between(split_at, split_at + layout_change_effect_window);
  out.split.max_delivery_gap_ms = gap_max.max_between(split_at, split_at + layout_change_effect_window);
  out.merge.max_publish_latency_ms = publish_max.max_between(merge_at, merge_at + layout_change_effect_window);
  out.merge.max_delivery_gap_ms = gap_max.max_between(merge_at, merge_at + layout_change_effect_window);
  return out;
}

}  // namespace magnetar::perf
