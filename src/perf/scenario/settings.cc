#include "perf/scenario/settings.h"

#include <cmath>

namespace magnetar::perf {
namespace {

// Seconds to send `messages` at `rate`, rounded up; 0 without a rate.
std::int64_t seconds_for(std::int64_t messages, double rate) {
  if (rate <= 0) return 0;
  return static_cast<std::int64_t>(std::ceil(static_cast<double>(messages) / rate));
}

}  // namespace

std::int64_t iot_telemetry_settings::warmup_messages_per_round() const {
  if (warmup.messages > 0) return warmup.messages;
  return std::llround(static_cast<double>(warmup.seconds) * rate);
}

std::int64_t iot_telemetry_settings::measured_messages() const {
  if (measurement.messages > 0) return measurement.messages;
  return std::llround(static_cast<double>(measurement.seconds) * rate);
}

std::int64_t iot_telemetry_settings::warmup_round_seconds() const {
  if (warmup.seconds > 0) return warmup.seconds;
  return seconds_for(warmup.messages, rate);
}

std::int64_t iot_telemetry_settings::warmup_total_seconds() const {
  return static_cast<std::int64_t>(warmup.rounds) * (warmup_round_seconds() + warmup.round_delay_seconds);
}

std::int64_t iot_telemetry_settings::measurement_seconds() const {
  if (measurement.messages > 0) return seconds_for(measurement.messages, rate);
  return measurement.seconds;
}

}  // namespace magnetar::perf
