#include "mledger/entry_cache_budget.h"

#include "mledger/entry_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <vector>

namespace magnetar::mledger {
namespace {

using namespace std::chrono_literals;

position pos(std::int64_t entry) { return {ledger_id(1), entry_id(entry)}; }

wire::shared_bytes bytes_of(std::size_t size) {
  std::vector<std::byte> bytes(size);
  return wire::shared_bytes::copy_of(bytes);
}

class entry_cache_budget_test : public ::testing::Test {
 protected:
  entry_cache_config config() {
    entry_cache_config c;
    c.max_bytes = 1000;  // each cache alone may take the whole budget
    c.time_to_live = 1h;
    c.budget = budget_ptr;
    return c;
  }
  // Fills `cache` with `count` entries of 10 bytes that readers still await (so that only
  // the budget, not expiry, makes them go).
  static void fill(entry_cache& cache, int count) {
    for (int i = 0; i < count; ++i) cache.insert(pos(i), bytes_of(10), 1);
  }

  base::manual_clock clock;
  std::shared_ptr<entry_cache_budget> budget_ptr = std::make_shared<entry_cache_budget>(1000);
  entry_cache_budget& budget = *budget_ptr;
};

TEST_F(entry_cache_budget_test, caches_count_from_construction_to_destruction) {
  entry_cache a(config(), clock);
  fill(a, 30);
  {
    entry_cache b(config(), clock);
    fill(b, 20);
    EXPECT_EQ(budget.held_bytes(), 500u);
  }
  EXPECT_EQ(budget.held_bytes(), 300u);
}

TEST_F(entry_cache_budget_test, under_the_budget_nothing_is_evicted) {
  entry_cache a(config(), clock);
  entry_cache b(config(), clock);
  fill(a, 50);
  fill(b, 50);
  EXPECT_EQ(budget.enforce(clock.now()), 0u);
  EXPECT_EQ(budget.held_bytes(), 1000u);
}

TEST_F(entry_cache_budget_test, over_the_budget_each_cache_gives_back_its_share_down_to_the_watermark) {
  entry_cache large(config(), clock);
  entry_cache small(config(), clock);
  fill(large, 80);
  fill(small, 40);  // 1200 bytes held, 1000 allowed: 300 go, two thirds from the large one
  EXPECT_EQ(budget.enforce(clock.now()), 300u);
  EXPECT_EQ(budget.held_bytes(), 900u) << "90% of the budget";
  EXPECT_EQ(large.stats().bytes, 600u);
  EXPECT_EQ(small.stats().bytes, 300u);
}

TEST_F(entry_cache_budget_test, the_budget_is_checked_at_most_once_an_interval) {
  entry_cache a(config(), clock);
  EXPECT_EQ(budget.enforce(clock.now()), 0u);
  fill(a, 100);
  entry_cache b(config(), clock);
  fill(b, 50);  // 1500 held
  EXPECT_EQ(budget.enforce(clock.now()), 0u) << "checked a moment ago";
  clock.advance(100ms);
  EXPECT_EQ(budget.enforce(clock.now()), 600u);
  EXPECT_EQ(budget.held_bytes(), 900u);
}

}  // namespace
}  // namespace magnetar::mledger
