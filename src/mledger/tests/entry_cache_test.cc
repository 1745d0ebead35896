#include "mledger/entry_cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <vector>

namespace magnetar::mledger {
namespace {

using namespace std::chrono_literals;
using insert_result = entry_cache::insert_result;

position pos(std::int64_t ledger, std::int64_t entry) { return {ledger_id(ledger), entry_id(entry)}; }

wire::shared_bytes bytes_of(std::size_t size, int fill = 0) {
  std::vector<std::byte> bytes(size, static_cast<std::byte>(fill));
  return wire::shared_bytes::copy_of(bytes);
}

entry_cache_config config_of(std::size_t max_bytes, std::uint32_t max_ttl_extensions = 5) {
  entry_cache_config config;
  config.max_bytes = max_bytes;
  config.time_to_live = 1s;
  config.max_ttl_extensions = max_ttl_extensions;
  return config;
}

class entry_cache_test : public ::testing::Test {
 protected:
  void make_cache(entry_cache_config config) { _cache.emplace(config, _clock); }
  entry_cache& cache() { return *_cache; }
  // The owner's periodic expiry check, after time has moved.
  std::size_t advance_and_expire(base::clock::duration by) {
    _clock.advance(by);
    return cache().evict_expired(_clock.now());
  }

  base::manual_clock _clock;
  std::optional<entry_cache> _cache{std::in_place, config_of(1 << 20), _clock};
};

// Reads and writes.

TEST_F(entry_cache_test, get_returns_the_inserted_bytes_without_copying_them) {
  const auto data = bytes_of(100, 7);
  ASSERT_EQ(cache().insert(pos(1, 0), data, 0), insert_result::inserted);
  const auto got = cache().get(pos(1, 0));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->data(), data.data());
  EXPECT_EQ(got->size(), 100u);
}

TEST_F(entry_cache_test, get_of_a_position_not_cached_is_a_miss) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  EXPECT_EQ(cache().get(pos(1, 1)), std::nullopt);
  EXPECT_EQ(cache().stats().misses, 1u);
}

TEST_F(entry_cache_test, inserting_a_cached_position_keeps_the_first_entry) {
  const auto first = bytes_of(10, 1);
  cache().insert(pos(1, 0), first, 0);
  EXPECT_EQ(cache().insert(pos(1, 0), bytes_of(20, 2), 3), insert_result::already_cached);
  EXPECT_EQ(cache().get(pos(1, 0))->data(), first.data());
  EXPECT_EQ(cache().stats().bytes, 10u);
}

TEST_F(entry_cache_test, get_range_returns_cached_entries_in_position_order) {
  // Inserted out of order, as catch-up reads and new adds interleave.
  cache().insert(pos(1, 2), bytes_of(10), 0);
  cache().insert(pos(1, 0), bytes_of(10), 0);
  cache().insert(pos(1, 1), bytes_of(10), 0);
  const auto got = cache().get_range(pos(1, 0), pos(1, 2));
  ASSERT_EQ(got.size(), 3u);
  for (std::int64_t i = 0; i < 3; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)].pos, pos(1, i));
  EXPECT_EQ(cache().stats().hits, 3u);
}

TEST_F(entry_cache_test, get_range_stops_at_the_first_entry_not_cached) {
  for (int entry : {0, 1, 2, 4}) cache().insert(pos(1, entry), bytes_of(10), 0);
  const auto got = cache().get_range(pos(1, 0), pos(1, 5));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got.back().pos, pos(1, 2));
  EXPECT_EQ(cache().stats().hits, 3u);
  EXPECT_EQ(cache().stats().misses, 3u);
}

TEST_F(entry_cache_test, get_range_starting_at_an_entry_not_cached_returns_nothing) {
  cache().insert(pos(1, 1), bytes_of(10), 0);
  EXPECT_TRUE(cache().get_range(pos(1, 0), pos(1, 1)).empty());
}

TEST_F(entry_cache_test, get_range_does_not_run_into_the_next_ledger) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  cache().insert(pos(2, 0), bytes_of(10), 0);
  EXPECT_EQ(cache().get_range(pos(1, 0), pos(1, 1)).size(), 1u);
}

// Time to live and expected reads.

TEST_F(entry_cache_test, an_entry_stays_until_its_ttl_passes) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  EXPECT_EQ(advance_and_expire(999ms), 0u);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, an_entry_nobody_is_expected_to_read_is_evicted_when_its_ttl_passes) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  EXPECT_EQ(advance_and_expire(1s), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_EQ(cache().stats().evicted_expired, 1u);
}

TEST_F(entry_cache_test, an_entry_with_expected_reads_outlives_its_ttl) {
  cache().insert(pos(1, 0), bytes_of(10), 2);
  EXPECT_EQ(advance_and_expire(1s), 0u);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, an_awaited_entry_lives_at_most_1_plus_max_ttl_extensions_ttls) {
  cache().insert(pos(1, 0), bytes_of(10), 3);
  for (int ttl = 1; ttl <= 5; ++ttl) {
    ASSERT_EQ(advance_and_expire(1s), 0u) << "TTL " << ttl;
  }
  EXPECT_EQ(advance_and_expire(1s), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, with_no_extensions_allowed_expected_reads_do_not_extend_the_ttl) {
  make_cache(config_of(1 << 20, 0));
  cache().insert(pos(1, 0), bytes_of(10), 3);
  EXPECT_EQ(advance_and_expire(999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
}

TEST_F(entry_cache_test, a_read_that_leaves_reads_expected_does_not_restart_the_awaited_life) {
  cache().insert(pos(1, 0), bytes_of(10), 2);
  ASSERT_EQ(advance_and_expire(3s), 0u);
  cache().get(pos(1, 0));
  EXPECT_EQ(advance_and_expire(2999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
}

TEST_F(entry_cache_test, each_read_takes_one_expected_read_off) {
  cache().insert(pos(1, 0), bytes_of(10), 2);
  cache().insert(pos(1, 1), bytes_of(10), 2);
  cache().get(pos(1, 0));
  cache().get(pos(1, 0));
  cache().get(pos(1, 1));
  EXPECT_EQ(advance_and_expire(1s), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_TRUE(cache().contains(pos(1, 1)));
}

TEST_F(entry_cache_test, reads_through_get_range_take_expected_reads_off) {
  cache().insert(pos(1, 0), bytes_of(10), 1);
  cache().insert(pos(1, 1), bytes_of(10), 1);
  _clock.advance(500ms);
  cache().get_range(pos(1, 0), pos(1, 1));
  // A TTL from the read, not from the insert.
  EXPECT_EQ(advance_and_expire(999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 2u);
}

TEST_F(entry_cache_test, an_idle_entry_expected_again_lives_the_awaited_span_from_then) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  _clock.advance(500ms);
  ASSERT_TRUE(cache().expect_read(pos(1, 0)));
  EXPECT_TRUE(cache().expect_read(pos(1, 0)));  // already awaited: its deadline stays
  EXPECT_EQ(advance_and_expire(5999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
}

TEST_F(entry_cache_test, an_entry_expected_again_no_longer_counts_as_idle_room) {
  // 100 bytes of room: the entry, once awaited, may not be displaced by an idle one.
  make_cache(config_of(100));
  cache().insert(pos(1, 0), bytes_of(100), 0);
  ASSERT_TRUE(cache().expect_read(pos(1, 0)));
  EXPECT_EQ(cache().insert(pos(1, 1), bytes_of(100), 0), insert_result::no_room);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, deadlines_come_from_the_clock_not_from_an_expiry_checks_now) {
  // A check told a time ahead of the clock evicts what is due by then, but the read
  // after it still counts its TTL from the clock.
  cache().insert(pos(1, 0), bytes_of(10), 1);
  ASSERT_EQ(cache().evict_expired(_clock.now() + 1500ms), 0u);
  cache().get(pos(1, 0));
  EXPECT_EQ(advance_and_expire(999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
}

TEST_F(entry_cache_test, an_expected_read_added_later_keeps_an_entry_past_its_ttl) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  EXPECT_TRUE(cache().expect_read(pos(1, 0)));
  EXPECT_FALSE(cache().expect_read(pos(1, 1)));
  EXPECT_EQ(advance_and_expire(1s), 0u);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, an_entry_goes_a_ttl_after_its_last_expected_read) {
  cache().insert(pos(1, 0), bytes_of(10), 1);
  ASSERT_EQ(advance_and_expire(2500ms), 0u);
  cache().get(pos(1, 0));
  EXPECT_EQ(advance_and_expire(999ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
}

TEST_F(entry_cache_test, expiry_takes_idle_and_awaited_entries_each_at_their_own_deadline) {
  cache().insert(pos(1, 0), bytes_of(10), 2);
  cache().insert(pos(1, 1), bytes_of(10), 0);
  _clock.advance(500ms);
  cache().insert(pos(1, 2), bytes_of(10), 0);
  EXPECT_EQ(advance_and_expire(500ms), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 1)));
  EXPECT_EQ(advance_and_expire(500ms), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 2)));
  EXPECT_EQ(advance_and_expire(4499ms), 0u);
  EXPECT_EQ(advance_and_expire(1ms), 1u);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
}

TEST_F(entry_cache_test, an_expired_entry_still_serves_until_the_expiry_check) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  _clock.advance(5s);
  EXPECT_TRUE(cache().get(pos(1, 0)));
}

// The size bound.

TEST_F(entry_cache_test, inserting_past_the_bound_evicts_the_oldest_idle_entry) {
  make_cache(config_of(300));
  for (int entry = 0; entry < 4; ++entry) cache().insert(pos(1, entry), bytes_of(100), 0);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_TRUE(cache().contains(pos(1, 1)));
  EXPECT_TRUE(cache().contains(pos(1, 3)));
  EXPECT_EQ(cache().stats().bytes, 300u);
  EXPECT_EQ(cache().stats().evicted_for_size, 1u);
}

TEST_F(entry_cache_test, an_expired_entry_goes_before_live_ones_under_size_pressure) {
  make_cache(config_of(300, 0));
  cache().insert(pos(1, 0), bytes_of(100), 1);  // expected reads, but no extension allowed
  _clock.advance(600ms);
  cache().insert(pos(1, 1), bytes_of(100), 0);
  cache().insert(pos(1, 2), bytes_of(100), 0);
  _clock.advance(400ms);
  cache().insert(pos(1, 3), bytes_of(100), 0);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_TRUE(cache().contains(pos(1, 1)));
  EXPECT_EQ(cache().stats().evicted_expired, 1u);
  EXPECT_EQ(cache().stats().evicted_for_size, 0u);
}

TEST_F(entry_cache_test, entries_nobody_is_expected_to_read_go_before_awaited_ones) {
  make_cache(config_of(300));
  cache().insert(pos(1, 0), bytes_of(100), 1);
  cache().insert(pos(1, 1), bytes_of(100), 0);
  cache().insert(pos(1, 2), bytes_of(100), 1);
  cache().insert(pos(1, 3), bytes_of(100), 1);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
  EXPECT_FALSE(cache().contains(pos(1, 1)));
}

TEST_F(entry_cache_test, among_awaited_entries_the_oldest_goes_first) {
  make_cache(config_of(300));
  for (int entry = 0; entry < 4; ++entry) cache().insert(pos(1, entry), bytes_of(100), 1);
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_TRUE(cache().contains(pos(1, 1)));
}

TEST_F(entry_cache_test, idle_entries_go_in_the_order_they_became_idle) {
  make_cache(config_of(300));
  cache().insert(pos(1, 0), bytes_of(100), 1);
  cache().insert(pos(1, 1), bytes_of(100), 0);
  cache().get(pos(1, 0));  // idle now, after 1:1
  cache().insert(pos(1, 2), bytes_of(100), 1);
  cache().insert(pos(1, 3), bytes_of(100), 1);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
  EXPECT_FALSE(cache().contains(pos(1, 1)));
}

TEST_F(entry_cache_test, an_idle_entry_does_not_displace_awaited_ones) {
  make_cache(config_of(300));
  for (int entry = 0; entry < 3; ++entry) cache().insert(pos(1, entry), bytes_of(100), 1);
  EXPECT_EQ(cache().insert(pos(1, 3), bytes_of(100), 0), insert_result::no_room);
  EXPECT_FALSE(cache().contains(pos(1, 3)));
  EXPECT_EQ(cache().stats().entries, 3u);
  EXPECT_EQ(cache().stats().rejected_inserts, 1u);
}

TEST_F(entry_cache_test, a_refused_idle_entry_evicts_nothing) {
  make_cache(config_of(300));
  cache().insert(pos(1, 0), bytes_of(100), 0);
  cache().insert(pos(1, 1), bytes_of(100), 1);
  cache().insert(pos(1, 2), bytes_of(100), 1);
  // Needs 200 bytes; only 100 are idle.
  EXPECT_EQ(cache().insert(pos(1, 3), bytes_of(200), 0), insert_result::no_room);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
  EXPECT_EQ(cache().stats().evicted_for_size, 0u);
}

TEST_F(entry_cache_test, an_entry_larger_than_the_whole_cache_is_not_cached) {
  make_cache(config_of(300));
  cache().insert(pos(1, 0), bytes_of(100), 0);
  EXPECT_EQ(cache().insert(pos(1, 1), bytes_of(301), 5), insert_result::too_large);
  EXPECT_TRUE(cache().contains(pos(1, 0)));
  EXPECT_EQ(cache().stats().rejected_inserts, 1u);
}

TEST_F(entry_cache_test, shrink_to_evicts_in_eviction_order_down_to_the_target) {
  cache().insert(pos(1, 0), bytes_of(100), 1);
  cache().insert(pos(1, 1), bytes_of(100), 0);
  cache().insert(pos(1, 2), bytes_of(100), 1);
  EXPECT_EQ(cache().shrink_to(150), 2u);
  EXPECT_FALSE(cache().contains(pos(1, 1)));
  EXPECT_FALSE(cache().contains(pos(1, 0)));
  EXPECT_TRUE(cache().contains(pos(1, 2)));
}

// Invalidation.

TEST_F(entry_cache_test, invalidate_up_to_drops_entries_at_or_before_the_position) {
  for (int ledger : {1, 2}) {
    for (int entry = 0; entry < 3; ++entry) cache().insert(pos(ledger, entry), bytes_of(10), 1);
  }
  EXPECT_EQ(cache().invalidate_up_to(pos(2, 1)), 5u);
  EXPECT_TRUE(cache().contains(pos(2, 2)));
  EXPECT_EQ(cache().stats().entries, 1u);
  EXPECT_EQ(cache().stats().invalidated, 5u);
}

TEST_F(entry_cache_test, invalidate_ledger_drops_only_that_ledger) {
  for (int ledger : {1, 2, 3}) {
    for (int entry = 0; entry < 3; ++entry) cache().insert(pos(ledger, entry), bytes_of(10), 0);
  }
  EXPECT_EQ(cache().invalidate_ledger(ledger_id(2)), 3u);
  EXPECT_TRUE(cache().contains(pos(1, 2)));
  EXPECT_FALSE(cache().contains(pos(2, 0)));
  EXPECT_TRUE(cache().contains(pos(3, 0)));
}

TEST_F(entry_cache_test, clear_drops_everything) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  cache().insert(pos(1, 1), bytes_of(10), 2);
  cache().clear();
  EXPECT_EQ(cache().stats().entries, 0u);
  EXPECT_EQ(cache().stats().bytes, 0u);
  EXPECT_EQ(advance_and_expire(10s), 0u);
}

TEST_F(entry_cache_test, a_dropped_entry_leaves_its_bytes_with_readers_that_hold_them) {
  cache().insert(pos(1, 0), bytes_of(10, 9), 0);
  const auto held = cache().get(pos(1, 0));
  cache().invalidate_ledger(ledger_id(1));
  ASSERT_TRUE(held);
  EXPECT_EQ(held->span()[9], std::byte{9});
}

// Counters.

TEST_F(entry_cache_test, stats_count_hits_misses_inserts_and_bytes) {
  cache().insert(pos(1, 0), bytes_of(10), 0);
  cache().insert(pos(1, 1), bytes_of(20), 0);
  cache().get(pos(1, 1));
  cache().get(pos(1, 1));
  cache().get(pos(1, 2));
  const auto& stats = cache().stats();
  EXPECT_EQ(stats.inserts, 2u);
  EXPECT_EQ(stats.insert_bytes, 30u);
  EXPECT_EQ(stats.hits, 2u);
  EXPECT_EQ(stats.hit_bytes, 40u);
  EXPECT_EQ(stats.misses, 1u);
  EXPECT_EQ(stats.entries, 2u);
  EXPECT_EQ(stats.bytes, 30u);
}

TEST_F(entry_cache_test, stats_count_removals_by_reason) {
  make_cache(config_of(200));
  cache().insert(pos(1, 0), bytes_of(100), 0);
  cache().insert(pos(1, 1), bytes_of(100), 0);
  cache().insert(pos(1, 2), bytes_of(100), 0);  // evicts 1:0 for size
  cache().invalidate_up_to(pos(1, 1));
  advance_and_expire(1s);
  const auto& stats = cache().stats();
  EXPECT_EQ(stats.evicted_for_size, 1u);
  EXPECT_EQ(stats.invalidated, 1u);
  EXPECT_EQ(stats.evicted_expired, 1u);
  EXPECT_EQ(stats.removed_bytes, 300u);
  EXPECT_EQ(stats.entries, 0u);
  EXPECT_EQ(stats.bytes, 0u);
}

}  // namespace
}  // namespace magnetar::mledger
