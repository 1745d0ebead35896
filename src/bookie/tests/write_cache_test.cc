#include "bookie/write_cache.h"

#include "bookie/tests/ledger_storage_test_util.h"

#include <gtest/gtest.h>

namespace magnetar::bookie {
namespace {

using testing::bytes_of;
using testing::text_of;

TEST(write_cache_test, get_returns_the_entry_put) {
  write_cache cache(1024);
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("zero")));
  const auto got = cache.get(ledger_id(1), entry_id(0));
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(text_of(*got), "zero");
}

TEST(write_cache_test, get_of_an_entry_never_put_is_empty) {
  write_cache cache(1024);
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("zero")));
  EXPECT_FALSE(cache.get(ledger_id(1), entry_id(1)).has_value());
  EXPECT_FALSE(cache.get(ledger_id(2), entry_id(0)).has_value());
}

TEST(write_cache_test, put_with_the_same_ids_replaces_the_entry_and_its_bytes) {
  write_cache cache(1024);
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("first")));
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("second!")));
  EXPECT_EQ(text_of(*cache.get(ledger_id(1), entry_id(0))), "second!");
  EXPECT_EQ(cache.count(), 1u);
  EXPECT_EQ(cache.bytes(), 7u);
}

TEST(write_cache_test, put_past_the_bound_is_refused_and_stores_nothing) {
  write_cache cache(10);
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("123456")));
  EXPECT_FALSE(cache.put(ledger_id(2), entry_id(0), bytes_of("12345")));
  EXPECT_FALSE(cache.get(ledger_id(2), entry_id(0)).has_value());
  EXPECT_EQ(cache.bytes(), 6u);
  EXPECT_EQ(cache.count(), 1u);
  EXPECT_TRUE(cache.put(ledger_id(2), entry_id(0), bytes_of("1234")));
}

TEST(write_cache_test, sorted_entries_are_in_ledger_then_entry_order) {
  write_cache cache(1024);
  for (const auto& [l, e] : std::vector<std::pair<int, int>>{{3, 1}, {1, 2}, {3, 0}, {1, 0}, {2, 5}, {1, 1}}) {
    ASSERT_TRUE(cache.put(ledger_id(l), entry_id(e), bytes_of(testing::payload_for(ledger_id(l), entry_id(e)))));
  }
  std::vector<std::pair<std::int64_t, std::int64_t>> order;
  for (const auto& e : cache.sorted_entries()) {
    EXPECT_EQ(text_of(e.payload), testing::payload_for(e.ledger, e.entry));
    order.emplace_back(e.ledger.value(), e.entry.value());
  }
  const std::vector<std::pair<std::int64_t, std::int64_t>> sorted{{1, 0}, {1, 1}, {1, 2}, {2, 5}, {3, 0}, {3, 1}};
  EXPECT_EQ(order, sorted);
}

TEST(write_cache_test, remove_ledger_forgets_its_entries_and_their_bytes) {
  write_cache cache(1024);
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(0), bytes_of("aaaa")));
  ASSERT_TRUE(cache.put(ledger_id(1), entry_id(1), bytes_of("bbbb")));
  ASSERT_TRUE(cache.put(ledger_id(2), entry_id(0), bytes_of("cc")));
  cache.remove_ledger(ledger_id(1));
  EXPECT_FALSE(cache.get(ledger_id(1), entry_id(0)).has_value());
  EXPECT_EQ(cache.count(), 1u);
  EXPECT_EQ(cache.bytes(), 2u);
}

}  // namespace
}  // namespace magnetar::bookie
