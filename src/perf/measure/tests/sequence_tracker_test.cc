#include "perf/measure/sequence_tracker.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace magnetar::perf {
namespace {

TEST(sequence_tracker, in_order_sequences_are_first_deliveries) {
  sequence_tracker tracker(10);
  for (std::uint64_t s = 0; s < 5; ++s) EXPECT_EQ(tracker.record(3, s, 0, 0), delivery::first);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, 5u);
  EXPECT_EQ(c.duplicates, 0u);
  EXPECT_EQ(c.violations, 0u);
  EXPECT_EQ(tracker.next_expected()[3], 5u);
}

TEST(sequence_tracker, devices_are_tracked_independently) {
  sequence_tracker tracker(200);
  // 1 and 65 share a stripe, 2 does not.
  tracker.record(1, 0, 0, 0);
  tracker.record(65, 0, 0, 0);
  tracker.record(65, 1, 0, 0);
  tracker.record(2, 0, 0, 0);
  const auto next = tracker.next_expected();
  ASSERT_EQ(next.size(), 200u);
  EXPECT_EQ(next[1], 1u);
  EXPECT_EQ(next[65], 2u);
  EXPECT_EQ(next[2], 1u);
  EXPECT_EQ(next[0], 0u);
  EXPECT_EQ(next[199], 0u);
}

TEST(sequence_tracker, a_sequence_below_the_next_expected_is_a_duplicate) {
  sequence_tracker tracker(1);
  tracker.record(0, 0, 0, 0);
  tracker.record(0, 1, 0, 0);
  EXPECT_EQ(tracker.record(0, 0, 1, 0), delivery::duplicate);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, 2u);
  EXPECT_EQ(c.duplicates, 1u);
  EXPECT_EQ(tracker.next_expected()[0], 2u);
}

TEST(sequence_tracker, a_sequence_above_the_next_expected_is_a_sampled_violation) {
  sequence_tracker tracker(20);
  tracker.record(17, 0, 0, 0);
  EXPECT_EQ(tracker.record(17, 2, 4, 9), delivery::violation);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, 2u);
  EXPECT_EQ(c.violations, 1u);
  EXPECT_EQ(tracker.next_expected()[17], 1u);  // the gap-free prefix is still 0..0
  const auto samples = tracker.violation_samples();
  ASSERT_EQ(samples.size(), 1u);
  EXPECT_EQ(to_string(samples[0]), "device=17 expected=1 got=2 pod=4 topic=9 redeliveries=0 receivedAt=0");
}

TEST(sequence_tracker, a_violation_sample_carries_the_redelivery_count_and_receipt_time) {
  sequence_tracker tracker(10);
  tracker.record(1, 2, 0, 0, {.message_id = 5, .redelivery_count = 3, .received_millis = 1700000000123});
  EXPECT_EQ(to_string(tracker.violation_samples().at(0)),
            "device=1 expected=0 got=2 pod=0 topic=0 redeliveries=3 receivedAt=1700000000123");
}

TEST(sequence_tracker, a_latest_message_again_with_its_id_is_a_redelivery) {
  sequence_tracker tracker(10);
  tracker.record(4, 0, 0, 0, {.message_id = 100});
  EXPECT_EQ(tracker.record(4, 0, 1, 0, {.message_id = 100}), delivery::duplicate);
  EXPECT_EQ(tracker.counts().redelivered, 1u);
  EXPECT_EQ(tracker.counts().persisted_twice, 0u);
}

TEST(sequence_tracker, a_latest_message_again_with_another_id_was_persisted_twice) {
  sequence_tracker tracker(10);
  tracker.record(4, 0, 0, 0, {.message_id = 100});
  tracker.record(4, 0, 0, 0, {.message_id = 101});
  EXPECT_EQ(tracker.counts().persisted_twice, 1u);
  EXPECT_EQ(tracker.counts().duplicates, 1u);
}

TEST(sequence_tracker, duplicates_of_older_messages_are_not_told_apart) {
  sequence_tracker tracker(10);
  tracker.record(4, 0, 0, 0, {.message_id = 100});
  tracker.record(4, 1, 0, 0, {.message_id = 101});
  tracker.record(4, 0, 0, 0, {.message_id = 100});
  const auto c = tracker.counts();
  EXPECT_EQ(c.duplicates, 1u);
  EXPECT_EQ(c.redelivered + c.persisted_twice, 0u);
}

TEST(sequence_tracker, a_filled_gap_advances_the_prefix_over_pending_sequences) {
  sequence_tracker tracker(1);
  tracker.record(0, 0, 0, 0);
  EXPECT_EQ(tracker.record(0, 2, 0, 0), delivery::violation);
  EXPECT_EQ(tracker.record(0, 3, 0, 0), delivery::violation);
  EXPECT_EQ(tracker.record(0, 5, 0, 0), delivery::violation);
  EXPECT_EQ(tracker.record(0, 1, 0, 0), delivery::first);
  EXPECT_EQ(tracker.next_expected()[0], 4u);  // 0..3; 5 waits for 4
  EXPECT_EQ(tracker.record(0, 4, 0, 0), delivery::first);
  EXPECT_EQ(tracker.next_expected()[0], 6u);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, 6u);
  EXPECT_EQ(c.violations, 3u);
  EXPECT_EQ(c.duplicates, 0u);
}

TEST(sequence_tracker, a_repeated_pending_sequence_is_a_duplicate) {
  sequence_tracker tracker(1);
  EXPECT_EQ(tracker.record(0, 3, 0, 0), delivery::violation);
  EXPECT_EQ(tracker.record(0, 3, 1, 0), delivery::duplicate);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, 1u);
  EXPECT_EQ(c.violations, 1u);
  EXPECT_EQ(c.duplicates, 1u);
}

TEST(sequence_tracker, a_device_outside_the_range_is_invalid) {
  sequence_tracker tracker(10);
  EXPECT_EQ(tracker.record(10, 0, 0, 0), delivery::invalid);
  EXPECT_EQ(tracker.record(UINT64_MAX, 0, 0, 0), delivery::invalid);
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.invalid, 2u);
  EXPECT_EQ(c.unique, 0u);
  EXPECT_EQ(tracker.next_expected().size(), 10u);
}

TEST(sequence_tracker, keeps_at_most_a_hundred_violation_samples) {
  sequence_tracker tracker(1);
  for (std::uint64_t s = 1; s <= 150; ++s) tracker.record(0, s, 0, 0);
  EXPECT_EQ(tracker.counts().violations, 150u);
  const auto samples = tracker.violation_samples();
  ASSERT_EQ(samples.size(), sequence_tracker::max_violation_samples);
  EXPECT_EQ(samples.front().got, 1u);
  EXPECT_EQ(samples.back().got, 100u);
}

TEST(sequence_tracker, concurrent_pods_on_different_devices_count_every_message) {
  constexpr std::uint64_t devices = 1000;
  constexpr std::uint64_t per_device = 200;
  constexpr int pods = 4;
  sequence_tracker tracker(devices);
  std::vector<std::thread> threads;
  for (int pod = 0; pod < pods; ++pod) {
    // Key_Shared: each device belongs to one pod; each pod delivers its devices interleaved.
    threads.emplace_back([&tracker, pod] {
      for (std::uint64_t s = 0; s < per_device; ++s) {
        for (std::uint64_t d = static_cast<std::uint64_t>(pod); d < devices; d += pods) {
          EXPECT_EQ(tracker.record(d, s, pod, 0), delivery::first);
          if (s % 50 == 0) {
            EXPECT_EQ(tracker.record(d, s, pod, 0), delivery::duplicate);  // a redelivery
          }
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  const sequence_counts c = tracker.counts();
  EXPECT_EQ(c.unique, devices * per_device);
  EXPECT_EQ(c.duplicates, devices * 4);
  EXPECT_EQ(c.violations, 0u);
  for (std::uint64_t next : tracker.next_expected()) EXPECT_EQ(next, per_device);
}

}  // namespace
}  // namespace magnetar::perf
