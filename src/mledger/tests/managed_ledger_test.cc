#include "mledger/managed_ledger.h"

#include "io/oneshot_signal.h"
#include "io/run_on.h"

#include "meta/errc.h"
#include "mledger/errc.h"
#include "mledger/managed_cursor.h"
#include "mledger_test_cluster.h"

#include <gtest/gtest.h>

#include <atomic>
#include <optional>

namespace magnetar::mledger {
namespace {

using namespace testing;

TEST(managed_ledger, adds_are_read_back_in_order) {
  test_cluster c;
  auto ml = c.open("t");
  auto positions = add_entries(c, *ml, 5);
  for (std::size_t i = 1; i < positions.size(); ++i) EXPECT_LT(positions[i - 1], positions[i]);
  auto read = c.run(ml->read_entries(position::earliest(), 100)).value();
  EXPECT_EQ(texts(read), names("e", 0, 5));
  EXPECT_EQ(read.back().pos, ml->last_confirmed());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, positions_move_to_the_next_ledger_at_rollover) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(3));
  auto positions = add_entries(c, *ml, 7);
  ASSERT_EQ(positions.size(), 7u);
  EXPECT_EQ(positions[2].entry(), entry_id(2));
  EXPECT_EQ(positions[3].entry(), entry_id(0));
  EXPECT_LT(positions[2].ledger(), positions[3].ledger());
  EXPECT_EQ(ml->next_valid_position(positions[2]), positions[3]);
  EXPECT_EQ(ml->next_valid_position(positions[5]), positions[6]);
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 3u);
  EXPECT_EQ(texts(c.run(ml->read_entries(positions[1], 100)).value()), names("e", 1, 6));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_ledger_younger_than_the_minimum_rollover_time_takes_more_entries) {
  test_cluster c;
  auto config = small_ledgers(2);
  config.minimum_rollover_time = std::chrono::minutes(1);
  auto ml = c.open("t", config);
  auto positions = add_entries(c, *ml, 5);
  EXPECT_EQ(positions.front().ledger(), positions.back().ledger());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, many_pipelined_adds_complete_in_order) {
  test_cluster c;
  auto ml = c.open("t");
  auto completed = add_pipelined(c, *ml, 300);
  ASSERT_EQ(completed.size(), 300u);
  for (std::size_t i = 0; i < completed.size(); ++i) {
    ASSERT_TRUE(completed[i]) << completed[i].error();
    EXPECT_EQ(completed[i].value().entry(), entry_id(static_cast<std::int64_t>(i)));
  }
  EXPECT_EQ(texts(c.run(ml->read_entries(position::earliest(), 1000)).value()), names("p", 0, 300));
  EXPECT_EQ(ml->write_stats().add_latency_us.count(), 300u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, start_add_entry_answers_after_returning_in_call_order) {
  test_cluster c;
  auto ml = c.open("t");
  std::vector<result<position>> answered;
  bool answered_early = false;
  c.run([&]() -> awaitable<void> {
    io::oneshot_signal all_done(co_await asio::this_coro::executor);
    for (int i = 0; i < 50; ++i) {
      ml->start_add_entry(bytes_of("s" + std::to_string(i)), [&](result<position> at) {
        answered.push_back(std::move(at));
        if (answered.size() == 50) all_done.fire();
      });
      answered_early = answered_early || !answered.empty();
    }
    co_await all_done.wait();
  }());
  EXPECT_FALSE(answered_early);
  ASSERT_EQ(answered.size(), 50u);
  for (std::size_t i = 0; i < answered.size(); ++i) {
    ASSERT_TRUE(answered[i]) << answered[i].error();
    EXPECT_EQ(answered[i].value().entry(), entry_id(static_cast<std::int64_t>(i)));
  }
  EXPECT_EQ(texts(c.run(ml->read_entries(position::earliest(), 100)).value()), names("s", 0, 50));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, start_add_entry_on_a_closed_managed_ledger_answers_closed) {
  test_cluster c;
  auto ml = c.open("t");
  ASSERT_TRUE(c.run(ml->close()));
  std::optional<result<position>> answered;
  c.run([&]() -> awaitable<void> {
    io::oneshot_signal done(co_await asio::this_coro::executor);
    ml->start_add_entry(bytes_of("late"), [&](result<position> at) {
      answered = std::move(at);
      done.fire();
    });
    EXPECT_FALSE(answered.has_value());
    co_await done.wait();
  }());
  ASSERT_TRUE(answered.has_value());
  ASSERT_FALSE(*answered);
  EXPECT_EQ(answered->error(), errc::closed);
}

TEST(managed_ledger, each_successful_add_counts_in_the_storage_write_figures) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 4);
  const auto& stats = ml->write_stats();
  EXPECT_EQ(stats.add_latency_us.count(), 4u);
  EXPECT_EQ(stats.ledger_add_latency_us.count(), 4u);
  EXPECT_EQ(stats.entry_size.count(), 4u);
  // The entries are a few bytes each: all in the first size bucket. (The cluster's clock
  // is a manual one: every latency here is 0, in the first latency bucket.)
  EXPECT_EQ(stats.entry_size.counts()[0], 4u);
  EXPECT_EQ(stats.add_latency_us.counts()[0], 4u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, adds_arriving_during_rollover_keep_their_order) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(10));
  auto completed = add_pipelined(c, *ml, 95);
  ASSERT_EQ(completed.size(), 95u);
  for (std::size_t i = 1; i < completed.size(); ++i) {
    ASSERT_TRUE(completed[i]) << completed[i].error();
    EXPECT_LT(completed[i - 1].value(), completed[i].value());
  }
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 10u);
  EXPECT_EQ(texts(c.run(ml->read_entries(position::earliest(), 1000)).value()), names("p", 0, 95));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, reopening_after_close_writes_to_a_new_ledger_and_reads_every_old_entry) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(4));
  auto before = add_entries(c, *ml, 6);
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t", small_ledgers(4));
  auto after = add_entries(c, *reopened, 1, "e", 6);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_GT(after[0].ledger(), before.back().ledger());
  EXPECT_EQ(after[0].entry(), entry_id(0));
  EXPECT_EQ(texts(c.run(reopened->read_entries(position::earliest(), 100)).value()), names("e", 0, 7));
  EXPECT_EQ(reopened->stats().entries, 7u);
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger, reopening_after_a_bookie_crash_keeps_every_acknowledged_entry) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(4));
  add_entries(c, *ml, 10);
  c.run(ml->abandon());  // the broker dies with the bookies: nothing is closed
  ml.reset();
  c.crash_and_restart_bookies();

  auto reopened = c.open("t", small_ledgers(4));
  EXPECT_EQ(texts(c.run(reopened->read_entries(position::earliest(), 100)).value()), names("e", 0, 10));
  auto next = c.run(reopened->add_entry(bytes_of("after")));
  ASSERT_TRUE(next) << next.error();
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger, an_empty_last_ledger_is_dropped_on_reopen) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 2);
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();
  auto second = c.open("t");  // its new ledger gets no entry
  ASSERT_TRUE(c.run(second->close()));
  second.reset();
  auto third = c.open("t");
  // The ledger with the two entries and the new current one.
  EXPECT_EQ(call(c, [&] { return third->ledgers().size(); }), 2u);
  EXPECT_EQ(texts(c.run(third->read_entries(position::earliest(), 10)).value()), names("e", 0, 2));
  ASSERT_TRUE(c.run(third->close()));
}

TEST(managed_ledger, reads_of_new_entries_hit_the_cache_and_old_ones_go_to_storage) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 4);
  ASSERT_EQ(c.run(ml->read_entries(position::earliest(), 10)).value().size(), 4u);
  EXPECT_EQ(ml->stats().cache.hits, 4u);
  EXPECT_EQ(ml->stats().entries_read_from_storage, 0u);
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t");
  ASSERT_EQ(c.run(reopened->read_entries(position::earliest(), 10)).value().size(), 4u);
  EXPECT_EQ(reopened->stats().entries_read_from_storage, 4u);
  ASSERT_EQ(c.run(reopened->read_entries(position::earliest(), 10)).value().size(), 4u);
  EXPECT_EQ(reopened->stats().entries_read_from_storage, 4u);
  EXPECT_EQ(reopened->stats().cache.hits, 4u);
  ASSERT_TRUE(c.run(reopened->close()));
}

// Twenty entries in storage only (the managed ledger reopened: an empty cache).
std::shared_ptr<managed_ledger> twenty_stored_entries(test_cluster& c, managed_ledger_config config = {}) {
  auto ml = c.open("t");
  add_entries(c, *ml, 20);
  EXPECT_TRUE(c.run(ml->close()));
  ml.reset();
  return c.open("t", config);
}

TEST(managed_ledger, a_cursors_read_from_storage_reads_ahead_into_the_cache_for_its_next_reads) {
  test_cluster c;
  auto ml = twenty_stored_entries(c);
  auto* cursor = c.run(ml->open_cursor("sub", initial_position::earliest)).value();
  auto first = c.run(cursor->read_entries(5));
  EXPECT_TRUE(first && texts(first.value()) == names("e", 0, 5)) << "only what was asked for";
  EXPECT_EQ(ml->stats().entries_read_from_storage, 20u) << "read ahead to the last entry, no further";
  auto second = c.run(cursor->read_entries(15));
  EXPECT_TRUE(second && texts(second.value()) == names("e", 5, 15));
  EXPECT_EQ(ml->stats().entries_read_from_storage, 20u) << "served from the cache";
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_read_by_no_cursor_reads_only_what_was_asked_for) {
  test_cluster c;
  auto ml = twenty_stored_entries(c);
  EXPECT_TRUE(c.run(ml->read_entries(position::earliest(), 5)));
  EXPECT_EQ(ml->stats().entries_read_from_storage, 5u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, read_ahead_off_reads_only_what_the_cursor_asked_for) {
  test_cluster c;
  managed_ledger_config config;
  config.read_ahead_bytes = 0;
  auto ml = twenty_stored_entries(c, config);
  auto* cursor = c.run(ml->open_cursor("sub", initial_position::earliest)).value();
  EXPECT_TRUE(c.run(cursor->read_entries(5)));
  EXPECT_EQ(ml->stats().entries_read_from_storage, 5u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_read_of_entries_another_read_is_fetching_from_storage_waits_for_it) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 4);
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t");  // an empty cache: the entries are in storage only
  std::optional<result<std::vector<entry>>> first;
  std::optional<result<std::vector<entry>>> second;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal both(executor);
    int left = 2;
    io::spawn(executor, [&]() -> awaitable<void> {
      first = co_await reopened->read_entries(position::earliest(), 10);
      if (--left == 0) both.fire();
    });
    io::spawn(executor, [&]() -> awaitable<void> {
      second = co_await reopened->read_entries(position::earliest(), 10);
      if (--left == 0) both.fire();
    });
    co_await both.wait();
  }());
  ASSERT_TRUE(first && first->has_value());
  ASSERT_TRUE(second && second->has_value());
  EXPECT_EQ(texts(first->value()), names("e", 0, 4));
  EXPECT_EQ(texts(second->value()), names("e", 0, 4));
  EXPECT_EQ(reopened->stats().entries_read_from_storage, 4u);
  EXPECT_EQ(reopened->stats().reads_joined, 1u);
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger, a_read_stops_at_the_byte_budget_but_returns_at_least_one_entry) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 5, "0123456789-");  // 12 bytes each
  EXPECT_EQ(c.run(ml->read_entries(position::earliest(), 10, 30)).value().size(), 2u);
  EXPECT_EQ(c.run(ml->read_entries(position::earliest(), 10, 1)).value().size(), 1u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_waiter_for_new_entries_wakes_when_one_is_added) {
  test_cluster c;
  auto ml = c.open("t");
  auto first = add_entries(c, *ml, 1);
  bool woke = false;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::spawn(executor,
              [&]() -> awaitable<void> { woke = static_cast<bool>(co_await ml->wait_for_entries_after(first[0])); });
    EXPECT_FALSE(woke);
    auto added = co_await ml->add_entry(bytes_of("x"));
    EXPECT_TRUE(added);
  }());
  EXPECT_TRUE(eventually(c, [&] { return woke; }));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_waiter_fails_when_the_managed_ledger_closes) {
  test_cluster c;
  auto ml = c.open("t");
  std::optional<result<void>> outcome;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::spawn(executor,
              [&]() -> awaitable<void> { outcome = co_await ml->wait_for_entries_after(ml->last_confirmed()); });
    co_return;
  }());
  ASSERT_TRUE(c.run(ml->close()));
  ASSERT_TRUE(eventually(c, [&] { return outcome.has_value(); }));
  EXPECT_EQ(outcome->error(), errc::closed);
}

TEST(managed_ledger, a_ledger_older_than_the_maximum_rollover_time_rolls_over_on_the_tick) {
  test_cluster c;
  managed_ledger_config config;
  config.minimum_rollover_time = base::clock::duration::zero();
  config.maximum_rollover_time = std::chrono::minutes(1);
  auto ml = c.open("t", config);
  add_entries(c, *ml, 1);
  c.clock.advance(std::chrono::minutes(1));
  EXPECT_TRUE(eventually(c, [&] { return ml->ledgers().size() == 2; }));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, trimming_deletes_consumed_ledgers_but_never_the_current_one) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto* cursor = c.run(ml->open_cursor("sub", initial_position::earliest)).value();
  auto positions = add_entries(c, *ml, 5);  // ledgers of 2, 2, 1 entries
  const auto first_ledger = positions[0].ledger();
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(positions[2]); }));
  ASSERT_TRUE(c.run(ml->trim()));
  auto ledgers = call(c, [&] { return ml->ledgers(); });
  ASSERT_EQ(ledgers.size(), 2u);  // the first is consumed; the second only half
  EXPECT_EQ(ledgers[0].id, positions[2].ledger());
  EXPECT_FALSE(c.run(c.client->metadata(first_ledger)).value().has_value());

  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(positions[4]); }));
  ASSERT_TRUE(c.run(ml->trim()));
  ledgers = call(c, [&] { return ml->ledgers(); });
  ASSERT_EQ(ledgers.size(), 1u);
  EXPECT_EQ(ledgers[0].id, ml->current_ledger());
  EXPECT_EQ(ml->stats().ledgers_trimmed, 2u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, consumed_ledgers_within_the_retention_time_are_kept_until_it_passes) {
  test_cluster c;
  auto config = small_ledgers(2);
  config.retention_time = std::chrono::hours(1);
  config.retention_size_bytes = -1;
  auto ml = c.open("t", config);
  auto* cursor = c.run(ml->open_cursor("sub")).value();
  auto positions = add_entries(c, *ml, 4);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(positions[3]); }));
  ASSERT_TRUE(c.run(ml->trim()));
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 3u);
  c.clock.advance(std::chrono::hours(1));
  ASSERT_TRUE(c.run(ml->trim()));
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 1u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_ledger_ahead_of_the_slowest_durable_cursor_is_kept) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto* slow = c.run(ml->open_cursor("slow", initial_position::earliest)).value();
  auto* fast = c.run(ml->open_cursor("fast", initial_position::earliest)).value();
  auto positions = add_entries(c, *ml, 4);
  ASSERT_TRUE(call(c, [&] { return fast->mark_delete(positions[3]); }));
  ASSERT_TRUE(call(c, [&] { return slow->mark_delete(positions[0]); }));
  ASSERT_TRUE(c.run(ml->trim()));
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 3u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_second_owner_fences_the_first) {
  test_cluster c;
  auto first = c.open("t");
  add_entries(c, *first, 2);
  auto second = c.open("t");  // recovers (fences) the first owner's ledger
  auto refused = c.run(first->add_entry(bytes_of("late")));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::fenced);
  EXPECT_TRUE(first->is_fenced());
  EXPECT_TRUE(c.run(second->add_entry(bytes_of("ok"))));
  c.run(first->abandon());
  ASSERT_TRUE(c.run(second->close()));
}

TEST(managed_ledger, adds_after_close_fail_as_closed) {
  test_cluster c;
  auto ml = c.open("t");
  ASSERT_TRUE(c.run(ml->close()));
  auto refused = c.run(ml->add_entry(bytes_of("x")));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::closed);
}

TEST(managed_ledger, remove_deletes_its_ledgers_and_metadata) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  ASSERT_TRUE(c.run(ml->open_cursor("sub")));
  auto positions = add_entries(c, *ml, 3);
  ASSERT_TRUE(c.run(ml->remove()));
  EXPECT_FALSE(c.run(c.store->exists(managed_ledger_path("t"))).value());
  EXPECT_FALSE(c.run(c.client->metadata(positions[0].ledger())).value().has_value());
  EXPECT_FALSE(c.run(c.client->metadata(positions[2].ledger())).value().has_value());
}

TEST(managed_ledger, stats_count_entries_bytes_and_ledgers) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  add_entries(c, *ml, 3, "abc");  // 4 bytes each
  auto s = ml->stats();
  EXPECT_EQ(s.entries, 3u);
  EXPECT_EQ(s.size_bytes, 12u);
  EXPECT_EQ(s.ledger_count, 2u);
  EXPECT_EQ(s.adds_succeeded, 3u);
  EXPECT_EQ(s.rollovers, 1u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger, a_property_set_survives_a_reopen) {
  test_cluster c;
  auto ml = c.open("props");
  ASSERT_TRUE(c.run(ml->set_property("pulsar.topic.epoch", "3")));
  add_entries(c, *ml, 2);  // a rollover's metadata write keeps it too
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();
  auto reopened = c.open("props");
  EXPECT_EQ(reopened->properties().at("pulsar.topic.epoch"), "3");
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger, setting_a_property_after_close_fails_as_closed) {
  test_cluster c;
  auto ml = c.open("props2");
  ASSERT_TRUE(c.run(ml->close()));
  auto refused = c.run(ml->set_property("k", "v"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::closed);
  EXPECT_TRUE(ml->properties().empty());
}

TEST(managed_ledger, ledgers_failing_before_any_entry_are_replaced_later_and_later) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 1);
  c.fs.fail_syncs(true);  // the bookie's journal fails for good: it refuses every add
  std::atomic<bool> finished = false;
  std::optional<result<position>> outcome;
  io::spawn(c.shards[0].executor(), [&]() -> awaitable<void> {
    outcome = co_await ml->add_entry(bytes_of("late"));
    finished = true;
  });
  // The ledger that held an entry and the first barren one are replaced at once; the
  // second barren one waits 100 ms of the (manual) clock, the third 200 ms.
  ASSERT_TRUE(eventually(c, [&] { return ml->stats().delayed_rollovers == 1; }));
  EXPECT_EQ(ml->stats().rollovers, 2u);
  c.clock.advance(std::chrono::milliseconds(100));
  ASSERT_TRUE(eventually(c, [&] { return ml->stats().delayed_rollovers == 2; }));
  EXPECT_EQ(ml->stats().rollovers, 3u);
  c.clock.advance(std::chrono::milliseconds(199));
  EXPECT_EQ(ml->stats().rollovers, 3u);
  // Stopping doesn't wait the delay out: the queued add fails.
  c.run(ml->abandon());
  ASSERT_TRUE(eventually(c, [&] { return finished.load(); }));
  ASSERT_TRUE(outcome.has_value());
  EXPECT_FALSE(*outcome);
  EXPECT_EQ(ml->stats().rollovers, 3u);
  c.fs.fail_syncs(false);
}

}  // namespace
}  // namespace magnetar::mledger
