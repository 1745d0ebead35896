#include "perf/workload/telemetry_sender.h"

#include "perf/measure/telemetry_payload.h"

#include <chrono>

namespace magnetar::perf {

namespace {

std::int64_t micros_between(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::microseconds>(to - from).count());
}

std::int64_t epoch_nanos(std::chrono::steady_clock::time_point at) {
  // The payload carries wall-clock time for the applications (other processes); map
  // the steady due time onto it through the current offset between the two clocks.
  const auto offset = std::chrono::system_clock::now().time_since_epoch() -
                      std::chrono::duration_cast<std::chrono::system_clock::duration>(
                          std::chrono::steady_clock::now().time_since_epoch());
  return std::chrono::duration_cast<std::chrono::nanoseconds>(at.time_since_epoch() + offset).count();
}

}  // namespace

telemetry_sender::telemetry_sender(const iot_telemetry_settings& settings, gateway_fleet& fleet, timeline& timeline)
    : _settings(settings),
      _fleet(fleet),
      _timeline(timeline),
      _payload(static_cast<std::size_t>(settings.payload_size)),
      _producer_sequence(static_cast<std::size_t>(settings.gateways.count) * settings.topics.count, -1),
      _next_sequence(static_cast<std::size_t>(settings.devices), 0),
      _in_flight(static_cast<std::size_t>(settings.devices), 0),
      _sent_column(timeline.column("sent")),
      _send_errors_column(timeline.column("sendErrors")),
      _in_flight_column(timeline.column("inFlight")) {}

std::int64_t telemetry_sender::next_producer_sequence(int gateway, int topic, const producer& p) {
  auto& sequence = _producer_sequence[static_cast<std::size_t>(gateway) * _settings.topics.count + topic];
  // Continue after what the broker last stored for this producer name, so that
  // deduplication takes nothing of this run for a resend of an earlier one.
  if (sequence < 0) sequence = p.last_sequence_id() + 1;
  return sequence++;
}

result<void> telemetry_sender::send(std::uint64_t count, bool warmup, const pacer& schedule,
                                    std::chrono::steady_clock::time_point deadline) {
  const auto devices = static_cast<std::uint64_t>(_settings.devices);
  const auto gateways = static_cast<std::uint64_t>(_settings.gateways.count);
  const auto max_outstanding = static_cast<std::uint64_t>(_settings.gateways.producer.max_outstanding);
  for (std::uint64_t i = 0; i < count; ++i, ++_message_index) {
    const std::uint64_t device = _message_index % devices;
    // The gateway rotates with each pass over the devices, so a device's consecutive
    // messages travel through different gateways and connections.
    const int gateway = static_cast<int>((_message_index + _message_index / devices) % gateways);
    const int topic = static_cast<int>(device % static_cast<std::uint64_t>(_settings.topics.count));
    std::uint64_t sequence = 0;
    {
      std::unique_lock lock(_mutex);
      if (!_changed.wait_until(lock, deadline, [&] { return !_in_flight[device] && _outstanding < max_outstanding; })) {
        return fail(base::errc::timed_out, "timed out waiting for sends to complete");
      }
      _in_flight[device] = 1;
      ++_outstanding;
      sequence = _next_sequence[device];
    }
    const auto due = schedule.wait(i);
    if (std::chrono::steady_clock::now() >= deadline) return fail(base::errc::timed_out, "timed out sending");
    auto p = _fleet.producer_for(gateway, topic);
    if (!p) return p.error();
    encode_payload({.device = device, .sequence = sequence, .intended_send_nanos = epoch_nanos(due), .warmup = warmup},
                   _payload);
    message_builder builder;
    builder.payload(std::span<const std::byte>(_payload)).key(device_key(device));
    builder.sequence_id(static_cast<std::uint64_t>(next_producer_sequence(gateway, topic, *p.value())));
    in_flight_message m{device, warmup, due, std::chrono::steady_clock::now()};
    p.value()->send_async(builder.build(), [this, m](result<message_id> id) { completed(m, id.has_value()); });
  }
  return success();
}

void telemetry_sender::completed(const in_flight_message& m, bool ok) {
  const auto now = std::chrono::steady_clock::now();
  {
    std::lock_guard lock(_mutex);
    _in_flight[m.device] = 0;
    --_outstanding;
    _timeline.set(_in_flight_column, static_cast<std::int64_t>(_outstanding));
    if (ok) {
      ++_next_sequence[m.device];
      if (m.warmup) {
        ++_totals.warmup_receipted;
      } else {
        ++_totals.measured_receipted;
        _publish_latency.record(micros_between(m.sent, now));
        _intended_latency.record(micros_between(m.due, now));
      }
    } else {
      ++_totals.send_errors;
    }
  }
  _changed.notify_all();
  if (ok) {
    _timeline.add(_sent_column, 1);
    _timeline.record_latency_micros(micros_between(m.sent, now));
  } else {
    _timeline.add(_send_errors_column, 1);
  }
}

result<void> telemetry_sender::drain(std::chrono::steady_clock::time_point deadline) {
  std::unique_lock lock(_mutex);
  if (!_changed.wait_until(lock, deadline, [&] { return _outstanding == 0; })) {
    return fail(base::errc::timed_out, "timed out waiting for the last receipts");
  }
  return success();
}

telemetry_sender::totals telemetry_sender::counts() const {
  std::lock_guard lock(_mutex);
  return _totals;
}

std::vector<std::uint64_t> telemetry_sender::device_state() const {
  std::lock_guard lock(_mutex);
  return _next_sequence;
}

base::histogram telemetry_sender::publish_latency() const {
  std::lock_guard lock(_mutex);
  return _publish_latency;
}

base::histogram telemetry_sender::intended_latency() const {
  std::lock_guard lock(_mutex);
  return _intended_latency;
}

}  // namespace magnetar::perf
