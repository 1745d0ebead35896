#include "bookie_node/disk_monitor.h"

#include "io/temp_directory.h"

#include <gtest/gtest.h>

namespace magnetar::bookie_node {
namespace {

std::vector<directory_usage> used(double ratio) {
  return {{.path = "/j", .free_bytes = 90, .total_bytes = 100},
          {.path = "/l", .free_bytes = static_cast<std::uint64_t>(1000 * (1 - ratio)), .total_bytes = 1000}};
}

constexpr disk_thresholds thresholds{.full = 0.95, .low_water = 0.90};

TEST(disk_monitor, a_directory_past_the_threshold_turns_the_bookie_read_only) {
  EXPECT_FALSE(next_read_only(false, used(0.94), false, thresholds));
  EXPECT_TRUE(next_read_only(false, used(0.95), false, thresholds));
}

TEST(disk_monitor, a_read_only_bookie_turns_writable_only_below_the_low_water_mark) {
  EXPECT_TRUE(next_read_only(true, used(0.92), false, thresholds));
  EXPECT_FALSE(next_read_only(true, used(0.89), false, thresholds));
}

TEST(disk_monitor, a_failed_write_keeps_the_bookie_read_only_whatever_the_usage) {
  EXPECT_TRUE(next_read_only(false, used(0.10), true, thresholds));
  EXPECT_TRUE(next_read_only(true, used(0.10), true, thresholds));
}

TEST(disk_monitor, measuring_a_directory_gives_its_file_systems_size) {
  io::temp_directory dir("disk-monitor");
  auto measured = measure_directory(dir.path());
  ASSERT_TRUE(measured) << measured.error();
  EXPECT_GT(measured.value().total_bytes, 0u);
  EXPECT_LE(measured.value().free_bytes, measured.value().total_bytes);
  EXPECT_FALSE(measure_directory("/no/such/directory"));
}

}  // namespace
}  // namespace magnetar::bookie_node
