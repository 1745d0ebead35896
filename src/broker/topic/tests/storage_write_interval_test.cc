#include "broker/topic/storage_write_interval.h"

#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

void add(mledger::storage_write_stats& totals, std::int64_t latency_us, std::int64_t size) {
  totals.add_latency_us.record(latency_us);
  totals.ledger_add_latency_us.record(latency_us);
  totals.entry_size.record(size);
}

void ticks(storage_write_interval& interval, const mledger::storage_write_stats& totals, int n) {
  for (int i = 0; i < n; ++i) interval.tick(totals);
}

TEST(storage_write_interval, nothing_is_reported_before_the_first_interval_ends) {
  storage_write_interval interval;
  mledger::storage_write_stats totals;
  add(totals, 100, 10);
  ticks(interval, totals, storage_write_interval::ticks_per_interval);
  EXPECT_FALSE(interval.last().has_value());
  interval.tick(totals);
  ASSERT_TRUE(interval.last().has_value());
}

TEST(storage_write_interval, an_interval_reports_only_the_adds_made_during_it) {
  storage_write_interval interval;
  mledger::storage_write_stats totals;
  add(totals, 100, 10);  // before the first interval starts
  interval.tick(totals);
  add(totals, 700, 200);
  add(totals, 800, 300);
  ticks(interval, totals, storage_write_interval::ticks_per_interval);
  ASSERT_TRUE(interval.last().has_value());
  EXPECT_EQ(interval.last()->add_latency_us.count(), 2u);
  EXPECT_EQ(interval.last()->add_latency_us.counts()[1], 2u);  // at most 1 ms
  EXPECT_EQ(interval.last()->entry_size.sum(), 500);
  // The next interval, with no adds, reports none, once it ends.
  ticks(interval, totals, storage_write_interval::ticks_per_interval - 1);
  EXPECT_EQ(interval.last()->add_latency_us.count(), 2u);
  interval.tick(totals);
  EXPECT_EQ(interval.last()->add_latency_us.count(), 0u);
}

}  // namespace
}  // namespace magnetar::broker
