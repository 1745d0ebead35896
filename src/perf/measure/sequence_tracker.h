// sequence_tracker: an application's view of which per-device sequences it has
// received, shared by the application's pods, to count unique deliveries, duplicates
// and ordering violations and to give the device state that is compared with the
// gateways' at the end of a run (src/perf/README.md, "Device state files").
//
// Per device it keeps the next expected sequence: every sequence below it has been
// received, so it is the length of the device's gap-free prefix. A sequence above it
// arrived before an earlier one of the same device: an ordering violation. It is counted
// and sampled, and kept in a sparse per-device pending set (made only when such a gap
// appears) so that the prefix advances over it once the gap fills. The tracker is strict:
// with Key_Shared a device is served by one consumer at a time, so an application must
// record each message from its listener in receive order; recording from a pool of
// threads that may reorder a consumer's messages would show up as violations.
//
// Thread-safe: record() is called by every pod's listener threads at tens of thousands
// of messages per second, so devices are spread over striped mutexes (device % stripes)
// and each stripe keeps its own devices and counters; readers lock the stripes in turn,
// so counts() read while records go on are each exact but not one instant's snapshot.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace magnetar::perf {

enum class delivery {
  first,      // the device's next expected sequence (or one of its pending gaps' ends)
  duplicate,  // received before
  violation,  // a first delivery above the next expected sequence: out of order
  invalid,    // a device id outside 0..devices-1
};

struct sequence_counts {
  std::uint64_t unique = 0;  // distinct (device, sequence) pairs: firsts and violations
  std::uint64_t duplicates = 0;
  // Of the duplicates of a device's latest message, those with the same message id (the
  // broker delivered the one entry again: a redelivery) and those with another (the
  // message was persisted twice: a producer's resend the broker did not deduplicate).
  // Duplicates of older messages are in neither: only the latest id is kept.
  std::uint64_t redelivered = 0;
  std::uint64_t persisted_twice = 0;
  std::uint64_t violations = 0;
  std::uint64_t invalid = 0;
};

// What the receiver knows of a delivery beyond its device and sequence.
struct delivery_details {
  std::uint64_t message_id = 0;  // a hash of the message id; 0: unknown
  std::uint32_t redelivery_count = 0;
  std::int64_t received_millis = 0;  // since the epoch
};

struct violation_sample {
  std::uint64_t device = 0;
  std::uint64_t expected = 0;
  std::uint64_t got = 0;
  int pod = 0;
  int topic = 0;
  std::uint32_t redelivery_count = 0;
  std::int64_t received_millis = 0;
};

// One line of ordering-violations.txt: `device=<d> expected=<s> got=<s> pod=<p> topic=<t>
// redeliveries=<n> receivedAt=<epoch millis>`.
std::string to_string(const violation_sample& sample);

class sequence_tracker {
 public:
  static constexpr std::size_t max_violation_samples = 100;

  explicit sequence_tracker(std::uint64_t devices);

  sequence_tracker(const sequence_tracker&) = delete;
  sequence_tracker& operator=(const sequence_tracker&) = delete;

  delivery record(std::uint64_t device, std::uint64_t sequence, int pod, int topic,
                  const delivery_details& details = {});

  std::uint64_t devices() const noexcept { return _devices; }
  sequence_counts counts() const;
  // The first violations, in the order they were recorded (at most 100).
  std::vector<violation_sample> violation_samples() const;
  // Per device, the next expected sequence: the state vector of application-state.bin.
  std::vector<std::uint64_t> next_expected() const;

 private:
  // A power of two well above the listener threads of all pods, so that two threads
  // rarely want the same stripe; aligned so that stripes never share a cache line.
  static constexpr std::size_t stripe_count = 64;

  struct alignas(64) stripe {
    std::mutex mutex;
    // Indexed by device / stripe_count: the devices with device % stripe_count == this one.
    std::vector<std::uint64_t> next;
    // Alike: the message id (hash) of sequence next - 1, 0 when unknown.
    std::vector<std::uint64_t> latest_id;
    // Sequences above `next` already received; only devices with a gap have an entry.
    std::map<std::uint64_t, std::set<std::uint64_t>> pending;
    std::uint64_t unique = 0;
    std::uint64_t duplicates = 0;
    std::uint64_t redelivered = 0;
    std::uint64_t persisted_twice = 0;
    std::uint64_t violations = 0;
    std::uint64_t invalid = 0;
  };

  void sample_violation(const violation_sample& sample);

  std::uint64_t _devices;
  std::unique_ptr<std::array<stripe, stripe_count>> _stripes;

  mutable std::mutex _samples_mutex;
  std::vector<violation_sample> _samples;
};

}  // namespace magnetar::perf
