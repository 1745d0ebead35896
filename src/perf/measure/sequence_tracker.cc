#include "perf/measure/sequence_tracker.h"

#include <fmt/format.h>

namespace magnetar::perf {

std::string to_string(const violation_sample& s) {
  return fmt::format("device={} expected={} got={} pod={} topic={} redeliveries={} receivedAt={}", s.device, s.expected,
                     s.got, s.pod, s.topic, s.redelivery_count, s.received_millis);
}

sequence_tracker::sequence_tracker(std::uint64_t devices)
    : _devices(devices), _stripes(std::make_unique<std::array<stripe, stripe_count>>()) {
  for (std::size_t s = 0; s < stripe_count; ++s) {
    // Devices s, s + stripe_count, ... below `devices`.
    const std::uint64_t mine = devices > s ? (devices - s + stripe_count - 1) / stripe_count : 0;
    (*_stripes)[s].next.assign(mine, 0);
    (*_stripes)[s].latest_id.assign(mine, 0);
  }
}

delivery sequence_tracker::record(std::uint64_t device, std::uint64_t sequence, int pod, int topic,
                                  const delivery_details& details) {
  stripe& st = (*_stripes)[device % stripe_count];
  if (device >= _devices) {
    const std::lock_guard lock(st.mutex);
    ++st.invalid;
    return delivery::invalid;
  }
  std::uint64_t expected = 0;
  {
    const std::lock_guard lock(st.mutex);
    std::uint64_t& next = st.next[device / stripe_count];
    std::uint64_t& latest_id = st.latest_id[device / stripe_count];
    if (sequence < next) {
      ++st.duplicates;
      if (sequence + 1 == next && latest_id != 0 && details.message_id != 0) {
        ++(details.message_id == latest_id ? st.redelivered : st.persisted_twice);
      }
      return delivery::duplicate;
    }
    if (sequence == next) {
      ++next;
      ++st.unique;
      latest_id = details.message_id;
      // Almost always empty: only a violation creates a pending entry.
      if (!st.pending.empty()) {
        if (auto it = st.pending.find(device); it != st.pending.end()) {
          std::set<std::uint64_t>& held = it->second;
          while (!held.empty() && *held.begin() == next) {
            held.erase(held.begin());
            ++next;
            latest_id = 0;  // the held messages' ids are not kept
          }
          if (held.empty()) st.pending.erase(it);
        }
      }
      return delivery::first;
    }
    if (!st.pending[device].insert(sequence).second) {
      ++st.duplicates;
      return delivery::duplicate;
    }
    ++st.unique;
    ++st.violations;
    expected = next;
  }
  // Outside the stripe: samples have their own lock, and violations are rare.
  sample_violation({device, expected, sequence, pod, topic, details.redelivery_count, details.received_millis});
  return delivery::violation;
}

void sequence_tracker::sample_violation(const violation_sample& sample) {
  const std::lock_guard lock(_samples_mutex);
  if (_samples.size() < max_violation_samples) _samples.push_back(sample);
}

sequence_counts sequence_tracker::counts() const {
  sequence_counts total;
  for (stripe& st : *_stripes) {
    const std::lock_guard lock(st.mutex);
    total.unique += st.unique;
    total.duplicates += st.duplicates;
    total.redelivered += st.redelivered;
    total.persisted_twice += st.persisted_twice;
    total.violations += st.violations;
    total.invalid += st.invalid;
  }
  return total;
}

std::vector<violation_sample> sequence_tracker::violation_samples() const {
  const std::lock_guard lock(_samples_mutex);
  return _samples;
}

std::vector<std::uint64_t> sequence_tracker::next_expected() const {
  std::vector<std::uint64_t> out(_devices, 0);
  for (std::size_t s = 0; s < stripe_count; ++s) {
    stripe& st = (*_stripes)[s];
    const std::lock_guard lock(st.mutex);
    for (std::size_t i = 0; i < st.next.size(); ++i) out[s + i * stripe_count] = st.next[i];
  }
  return out;
}

}  // namespace magnetar::perf
