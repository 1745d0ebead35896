#include "perf/workload/application.h"

#include "perf/measure/device_state.h"
#include "perf/measure/hgrm.h"
#include "perf/measure/latency_summary.h"
#include "perf/measure/telemetry_payload.h"
#include "perf/workload/workload_files.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>

namespace magnetar::perf {

struct application::pod {
  int index = 0;
  std::optional<client> pulsar;
  consumer subscription;
  std::atomic<bool> restart_requested{false};
  base::histogram latency{max_latency_micros, 3};  // microseconds; this pod's thread only
  std::jthread thread;
};

application::application(const iot_telemetry_settings& settings, int index, const workload_options& options,
                         const coordination& markers, std::shared_ptr<client_resources> io)
    : _settings(settings),
      _options(options),
      _markers(markers),
      _io(std::move(io)),
      _subscription(settings.subscription(index)),
      _join_seconds(settings.applications.join_seconds_of(index)),
      _output(options.output / _subscription),
      _tracker(static_cast<std::uint64_t>(settings.devices)),
      _timeline(application_timeline_columns(), true),
      _catch_up(settings.topics.count, settings.applications.caught_up_latency_millis) {
  for (int t = 0; t < settings.topics.count; ++t) _topics.push_back(settings.topic(t));
}

application::~application() { stop(); }

result<consumer> application::subscribe(client& c, int pod_index) const {
  consumer_config config;
  config.type = subscription_type::key_shared;
  config.position = initial_position::earliest;
  config.consumer_name =
      pod_index < 0 ? fmt::format("{}-creator", _subscription) : fmt::format("{}-pod-{}", _subscription, pod_index);
  return c.subscribe(_topics, _subscription, config);
}

result<client> application::create_client() const {
  client_config config;
  config.shared_resources = _io;
  return client::create(_options.service_url, config);
}

result<void> application::start(std::chrono::steady_clock::time_point deadline) {
  std::error_code ec;
  std::filesystem::create_directories(_output, ec);
  MAGNETAR_TRY(writer, timeline_writer::start(_timeline, _output / "application-timeline.csv"));
  _timeline_writer = std::move(writer);
  if (!late()) return open_pods();
  MAGNETAR_TRY(create_subscription());
  mark_warmup_received(_settings.warmup.rounds);
  _joiner = std::jthread([this, deadline] { join_when_due(deadline); });
  return success();
}

result<void> application::open_pods() {
  std::lock_guard lock(_pods_mutex);
  for (int i = 0; i < _settings.applications.pods_per_application && !_stopping.load(); ++i) {
    auto p = std::make_unique<pod>();
    p->index = i;
    auto c = create_client();
    if (!c) return fail(c.error().code(), fmt::format("{} pod {}: {}", _subscription, i, c.error()));
    p->pulsar.emplace(std::move(c).value());
    auto s = subscribe(*p->pulsar, i);
    if (!s) return fail(s.error().code(), fmt::format("{} pod {}: {}", _subscription, i, s.error()));
    p->subscription = std::move(s).value();
    _pods.push_back(std::move(p));
  }
  for (auto& p : _pods) p->thread = std::jthread([this, raw = p.get()] { receive_loop(*raw); });
  return success();
}

result<void> application::create_subscription() const {
  // The subscription outlives the consumer that created it: durable, at the earliest
  // position, so every message the gateways publish waits in its backlog.
  auto c = create_client();
  if (!c) return fail(c.error().code(), fmt::format("{}: {}", _subscription, c.error()));
  auto s = subscribe(c.value(), -1);
  if (!s) return fail(s.error().code(), fmt::format("{}: creating the subscription: {}", _subscription, s.error()));
  (void)s.value().close();
  (void)c.value().close();
  return success();
}

void application::mark_warmup_received(int rounds) {
  std::lock_guard lock(_warmup_mutex);
  for (; _warmup_rounds_marked < rounds; ++_warmup_rounds_marked) {
    if (auto written = _markers.write(_markers.warmup_received(_warmup_rounds_marked + 1, _subscription), "done");
        !written) {
      fmt::print(stderr, "iot-consume: {}\n", written.error());
    }
  }
}

void application::join_when_due(std::chrono::steady_clock::time_point deadline) {
  const auto marker = _markers.measurement_start();
  if (auto started = _markers.wait_for({marker}, deadline, &_stopping); !started) {
    if (!_stopping.load()) {
      // The run's timeout reports it; the application just never joins.
      fmt::print(stderr, "iot-consume: {} never joined: the measurement did not start before the timeout\n",
                 _subscription);
    }
    return;
  }
  std::int64_t start_millis = 0;
  const auto text = _markers.read(marker).value_or("");
  if (std::from_chars(text.data(), text.data() + text.size(), start_millis).ec != std::errc{}) {
    fmt::print(stderr, "iot-consume: {} never joined: the measurement start marker holds '{}', not a time\n",
               _subscription, text);
    _join_failed = true;
    return;
  }
  const auto join_at = start_millis + std::int64_t{_join_seconds} * 1000;
  while (!_stopping.load() && epoch_millis_now() < join_at) {
    if (std::chrono::steady_clock::now() >= deadline) return;  // the run's timeout reports it
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::clamp<std::int64_t>(join_at - epoch_millis_now(), 1, 20)));
  }
  if (_stopping.load()) return;
  // Joining starts now: opening the pods is part of what a late consumer waits for.
  _catch_up.joined(epoch_millis_now());
  append_event(_options.events_file, _options.applications_source(),
               _options.remote_prefix() + fmt::format("application-joined-{}", _subscription));
  if (auto opened = open_pods(); !opened) {
    fmt::print(stderr, "iot-consume: {} could not join: {}\n", _subscription, opened.error());
    _join_failed = true;
  }
}

void application::receive_loop(pod& p) {
  while (!_stopping.load()) {
    if (p.restart_requested.exchange(false)) {
      // A restarted pod is a new process as far as the broker knows: its consumer and
      // connection go away, unacknowledged messages go to the other pods, and it comes
      // back under the same consumer name.
      (void)p.subscription.close();
      (void)p.pulsar->close();
      p.pulsar.reset();
      ++_pod_restarts;
      append_event(_options.events_file, _options.applications_source(),
                   _options.remote_prefix() + fmt::format("pod-restart-{}-{}", _subscription, p.index));
      while (!_stopping.load()) {
        auto c = create_client();
        if (c) {
          auto s = subscribe(c.value(), p.index);
          if (s) {
            p.pulsar.emplace(std::move(c).value());
            p.subscription = std::move(s).value();
            break;
          }
        }
        fmt::print(stderr, "iot-consume: {} pod {} could not reopen; trying again\n", _subscription, p.index);
      }
      if (!p.pulsar) return;
    }
    auto m = p.subscription.receive(std::chrono::milliseconds(100));
    if (!m) continue;  // the timeout, or a consumer being closed under a stop
    handle(p, m.value());
    (void)p.subscription.acknowledge(m.value());
  }
}

int application::topic_index(const std::string& topic) const {
  for (std::size_t t = 0; t < _topics.size(); ++t) {
    if (topic == _topics[t] || topic.ends_with(_topics[t])) return static_cast<int>(t);
  }
  return -1;
}

namespace {

// A message id as one number for the sequence tracker (never 0, its "unknown").
std::uint64_t id_hash(const message_id& id, int topic) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const std::int64_t part : {std::int64_t{topic}, id.ledger_id(), id.entry_id(), std::int64_t{id.partition()},
                                  std::int64_t{id.batch_index()}}) {
    h = (h ^ static_cast<std::uint64_t>(part)) * 1099511628211ULL;
  }
  return h == 0 ? 1 : h;
}

}  // namespace

void application::handle(pod& p, const message& m) {
  const auto received_at = std::chrono::system_clock::now();
  ++_received;
  _timeline.add("received", 1);
  const auto header = decode_payload(m.payload_bytes());
  if (!header || !m.has_key() || !key_matches(m.key(), header->device)) {
    ++_invalid;
    return;
  }
  const int topic = topic_index(m.topic());
  if (!header->warmup) {
    // Broker publish time to receipt, as upstream measures end to end; publish time has
    // millisecond resolution.
    const auto received_micros =
        std::chrono::duration_cast<std::chrono::microseconds>(received_at.time_since_epoch()).count();
    const auto latency =
        std::max<std::int64_t>(0, received_micros - static_cast<std::int64_t>(m.publish_time()) * 1000);
    p.latency.record(latency);
    _timeline.record_latency_micros(latency);
    if (late() && _catch_up.received(topic, static_cast<std::int64_t>(m.publish_time()), received_micros / 1000,
                                     [this] { return _tracker.counts().unique; })) {
      append_event(_options.events_file, _options.applications_source(),
                   _options.remote_prefix() + fmt::format("application-caught-up-{}", _subscription));
    }
  }
  const auto outcome = _tracker.record(
      header->device, header->sequence, p.index, topic,
      {.message_id = id_hash(m.id(), topic),
       .redelivery_count = m.redelivery_count(),
       .received_millis =
           std::chrono::duration_cast<std::chrono::milliseconds>(received_at.time_since_epoch()).count()});
  if (outcome == delivery::duplicate) {
    _timeline.add("duplicates", 1);
    return;
  }
  if (outcome == delivery::invalid) {
    ++_invalid;
    return;
  }
  if (outcome == delivery::violation) _timeline.add("violations", 1);
  if (header->warmup) {
    note_warmup_received();
    return;
  }
  ++_measured;
  const auto millis = epoch_millis_now();
  std::int64_t none = 0;
  _first_measured_millis.compare_exchange_strong(none, millis);
  auto last = _last_measured_millis.load();
  while (last < millis && !_last_measured_millis.compare_exchange_weak(last, millis)) {
  }
}

void application::note_warmup_received() {
  const std::int64_t per_round = _settings.warmup_messages_per_round();
  std::lock_guard lock(_warmup_mutex);
  ++_warmup_unique;
  // Rounds are cumulative: round r is complete once r rounds' messages are all here.
  while (_warmup_rounds_marked < _settings.warmup.rounds &&
         _warmup_unique >= static_cast<std::uint64_t>(per_round) * (_warmup_rounds_marked + 1)) {
    ++_warmup_rounds_marked;
    if (auto written = _markers.write(_markers.warmup_received(_warmup_rounds_marked, _subscription), "done");
        !written) {
      fmt::print(stderr, "iot-consume: {}\n", written.error());
    }
  }
}

void application::restart_pod(int index) {
  // A late application has no pods to restart before it joins.
  std::lock_guard lock(_pods_mutex);
  if (static_cast<std::size_t>(index) < _pods.size()) _pods[static_cast<std::size_t>(index)]->restart_requested = true;
}

std::uint64_t application::unique() const { return _tracker.counts().unique; }

void application::stop() {
  if (_stopping.exchange(true)) return;
  if (_joiner.joinable()) _joiner.join();
  std::lock_guard lock(_pods_mutex);
  for (auto& p : _pods) {
    if (p->thread.joinable()) p->thread.join();
    (void)p->subscription.close();
    if (p->pulsar) (void)p->pulsar->close();
  }
  if (_timeline_writer) (void)_timeline_writer->stop();
}

result<void> application::write_results(bool timed_out) {
  base::histogram latency{max_latency_micros, 3};
  for (auto& p : _pods) (void)latency.merge(p->latency);
  auto state = _tracker.next_expected();
  auto counts = _tracker.counts();
  if (_options.drop_one_message) {
    // The test hook: forget the last message of the first device that has one.
    for (auto& next : state) {
      if (next > 0) {
        --next;
        --counts.unique;
        break;
      }
    }
  }
  MAGNETAR_TRY(write_device_state(_output / "application-state.bin", state));
  MAGNETAR_TRY(write_text_file(_output / "application-latency.hgrm", percentile_distribution(latency)));
  std::string violations;
  for (const auto& sample : _tracker.violation_samples()) violations += to_string(sample) + "\n";
  MAGNETAR_TRY(write_text_file(_output / "ordering-violations.txt", violations));
  const auto first = _first_measured_millis.load();
  const auto last = _last_measured_millis.load();
  const nlohmann::json summary = {
      {"subscription", _subscription},
      {"pods", _settings.applications.pods_per_application},
      {"topics", _settings.topics.count},
      {"received", _received.load()},
      {"unique", counts.unique},
      {"duplicates", counts.duplicates},
      {"redeliveredDuplicates", counts.redelivered},
      {"persistedTwiceDuplicates", counts.persisted_twice},
      {"orderingViolations", counts.violations},
      {"invalid", _invalid.load()},
      {"measuredReceived", _measured.load()},
      {"firstMeasuredReceiptEpochMillis", first},
      {"lastMeasuredReceiptEpochMillis", last},
      {"messagesPerSecond", last > first ? _measured.load() * 1000.0 / static_cast<double>(last - first) : 0.0},
      {"podRestarts", _pod_restarts.load()},
      {"endToEndLatencyMillis", latency_summary_millis(latency)},
      {"joinSeconds", _join_seconds},
      {"joinEpochMillis", _catch_up.join_millis()},
      {"caughtUpLatencyMillis", _catch_up.threshold_millis()},
      {"caughtUpEpochMillis", _catch_up.caught_up_millis()},
      {"messagesWhenCaughtUp", _catch_up.messages_when_caught_up()},
      {"timedOut", timed_out},
  };
  return write_text_file(_output / "application-summary.json", summary.dump(2) + "\n");
}

}  // namespace magnetar::perf
