#include "bookie/bookie.h"

#include "bookie/errc.h"
#include "io/block_on.h"
#include "io/faulty_file_system.h"
#include "io/run_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <future>

#include <algorithm>
#include <string>

namespace magnetar::bookie {
namespace {

wire::shared_bytes bytes_of(const std::string& text) {
  return wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
}

std::string text_of(const wire::shared_bytes& bytes) { return std::string(bytes.as_chars()); }

class bookie_test : public ::testing::Test {
 protected:
  bookie_options options(int journals = 1) {
    bookie_options o;
    for (int i = 0; i < journals; ++i) o.journal_directories.push_back(dir / ("journal-" + std::to_string(i)));
    o.ledger_directory = dir / "ledgers";
    o.fs = &fs;
    o.journal.preallocate_bytes = 64 << 10;
    return o;
  }

  std::unique_ptr<bookie> open(const bookie_options& o) {
    auto b = bookie::open(o, shards.set(), pool, clock);
    EXPECT_TRUE(b) << b.error();
    b.value()->start();
    return std::move(b).value();
  }
  std::unique_ptr<bookie> open() { return open(options()); }

  void stop(std::unique_ptr<bookie>& b) {
    io::block_on(shards[1], b->stop());
    b.reset();
  }

  result<void> add(bookie& b, std::int64_t ledger, std::int64_t entry, const std::string& payload) {
    return io::block_on(shards[0],
                        b.add_entry(ledger_id(ledger), entry_id(entry), entry_id(entry - 1), bytes_of(payload)));
  }
  result<wire::shared_bytes> read(bookie& b, std::int64_t ledger, std::int64_t entry) {
    return io::block_on(shards[0], b.read_entry(ledger_id(ledger), entry_id(entry)));
  }

  io::temp_directory dir{"bookie-test"};
  io::faulty_file_system fs;
  io::running_shards shards{2};
  io::blocking_pool pool{2};
  base::manual_clock clock;
};

TEST_F(bookie_test, an_added_entry_reads_back) {
  auto b = open();
  auto added = add(*b, 1, 0, "hello");
  ASSERT_TRUE(added) << added.error();
  EXPECT_EQ(text_of(read(*b, 1, 0).value()), "hello");
  stop(b);
}

TEST_F(bookie_test, a_range_reads_back_in_order_up_to_the_first_missing_entry) {
  auto b = open();
  for (int e = 0; e < 3; ++e) ASSERT_TRUE(add(*b, 1, e, "e" + std::to_string(e)));
  auto range = io::block_on(shards[0], b->read_range(ledger_id(1), entry_id(1), entry_id(5)));
  ASSERT_TRUE(range) << range.error();
  ASSERT_EQ(range.value().size(), 2u);
  EXPECT_EQ(text_of(range.value()[0]), "e1");
  EXPECT_EQ(text_of(range.value()[1]), "e2");
  stop(b);
}

TEST_F(bookie_test, a_range_that_starts_at_a_missing_entry_fails_with_its_error) {
  auto b = open();
  ASSERT_TRUE(add(*b, 1, 0, "e0"));
  auto range = io::block_on(shards[0], b->read_range(ledger_id(1), entry_id(1), entry_id(3)));
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error(), errc::entry_not_found);
  stop(b);
}

TEST_F(bookie_test, acknowledged_entries_survive_a_crash_before_any_checkpoint) {
  auto b = open();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(add(*b, 7, i, "entry-" + std::to_string(i)));
  fs.crash();
  b.reset();  // the process died: no stop(), no final flush

  auto reopened = open();
  for (int i = 0; i < 20; ++i) {
    auto entry = read(*reopened, 7, i);
    ASSERT_TRUE(entry) << "entry " << i << ": " << entry.error();
    EXPECT_EQ(text_of(entry.value()), "entry-" + std::to_string(i));
  }
  EXPECT_GE(reopened->stats().replayed_records, 20u);
  stop(reopened);
}

TEST_F(bookie_test, entries_survive_a_checkpoint_and_a_crash) {
  auto b = open();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(add(*b, 3, i, "before"));
  ASSERT_TRUE(io::block_on(shards[0], b->checkpoint()));
  for (int i = 10; i < 20; ++i) ASSERT_TRUE(add(*b, 3, i, "after"));
  fs.crash();
  b.reset();

  auto reopened = open();
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(read(*reopened, 3, i)) << "entry " << i;
  stop(reopened);
}

// start_add: the callback flavour the embedded bookie's writers use.
result<void> start_add(io::shard& caller, bookie& b, std::int64_t ledger, std::int64_t entry,
                       const std::string& payload) {
  std::promise<std::pair<result<void>, bool>> answered;
  auto returned = std::make_shared<bool>(false);
  asio::post(caller.executor(), [&] {
    b.start_add(ledger_id(ledger), entry_id(entry), entry_id(entry - 1), bytes_of(payload), add_mode::normal,
                caller.executor(), [&, returned](result<void> added) {
                  answered.set_value({std::move(added), *returned && caller.is_current()});
                });
    *returned = true;
  });
  auto [added, after_return_on_caller] = answered.get_future().get();
  EXPECT_TRUE(after_return_on_caller) << "the callback ran before start_add returned, or on another thread";
  return added;
}

TEST_F(bookie_test, start_add_answers_on_the_callers_shard_once_durable) {
  auto b = open();
  ASSERT_TRUE(add(*b, 3, 0, "owner is shard 0"));
  // Shard 1 calls: the add hops to the owner, the answer comes back to shard 1.
  auto added = start_add(shards[1], *b, 3, 1, "from shard 1");
  ASSERT_TRUE(added) << added.error();
  b.reset();  // a crash: what was answered is in the journal
  auto reopened = open();
  EXPECT_EQ(text_of(read(*reopened, 3, 1).value()), "from shard 1");
  stop(reopened);
}

TEST_F(bookie_test, start_add_to_a_fenced_ledger_answers_ledger_fenced) {
  auto b = open();
  ASSERT_TRUE(add(*b, 5, 0, "a"));
  ASSERT_TRUE(io::block_on(shards[1], b->fence(ledger_id(5))));
  auto refused = start_add(shards[0], *b, 5, 1, "b");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::ledger_fenced);
  stop(b);
}

TEST_F(bookie_test, a_fenced_ledger_refuses_adds_and_reports_its_last_entry) {
  auto b = open();
  ASSERT_TRUE(add(*b, 5, 0, "a"));
  ASSERT_TRUE(add(*b, 5, 1, "b"));
  auto fenced = io::block_on(shards[1], b->fence(ledger_id(5)));
  ASSERT_TRUE(fenced) << fenced.error();
  EXPECT_EQ(fenced.value().last_entry, entry_id(1));
  auto refused = add(*b, 5, 2, "c");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::ledger_fenced);
  stop(b);
}

TEST_F(bookie_test, a_fence_survives_a_crash) {
  auto b = open();
  ASSERT_TRUE(add(*b, 5, 0, "a"));
  ASSERT_TRUE(io::block_on(shards[1], b->fence(ledger_id(5))));
  fs.crash();
  b.reset();

  auto reopened = open();
  auto refused = add(*reopened, 5, 1, "b");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::ledger_fenced);
  stop(reopened);
}

TEST_F(bookie_test, fencing_a_ledger_never_written_here_reports_no_entries) {
  auto b = open();
  auto fenced = io::block_on(shards[0], b->fence(ledger_id(99)));
  ASSERT_TRUE(fenced) << fenced.error();
  EXPECT_EQ(fenced.value().last_entry, entry_id(-1));
  stop(b);
}

TEST_F(bookie_test, a_deleted_ledger_is_not_served) {
  auto b = open();
  ASSERT_TRUE(add(*b, 9, 0, "x"));
  ASSERT_TRUE(io::block_on(shards[0], b->delete_ledger(ledger_id(9))));
  EXPECT_FALSE(read(*b, 9, 0));
  stop(b);
}

TEST_F(bookie_test, a_ledger_fenced_then_deleted_does_not_stop_the_next_start) {
  auto b = open();
  ASSERT_TRUE(add(*b, 4, 0, "x"));
  ASSERT_TRUE(io::block_on(shards[0], b->fence(ledger_id(4))));
  ASSERT_TRUE(io::block_on(shards[0], b->delete_ledger(ledger_id(4))));
  stop(b);
  auto reopened = bookie::open(options(), shards.set(), pool, clock);
  ASSERT_TRUE(reopened) << reopened.error();
  EXPECT_FALSE(read(*reopened.value(), 4, 0));
}

TEST_F(bookie_test, an_entry_the_journal_refuses_is_not_stored) {
  auto o = options();
  o.journal.max_record_bytes = 8;
  auto b = open(o);
  auto refused = add(*b, 2, 0, "more than eight bytes");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::too_large);
  EXPECT_FALSE(read(*b, 2, 0)) << "a failed add must not become readable";
  stop(b);
}

TEST_F(bookie_test, a_failing_journal_fails_adds_and_reads_go_on) {
  auto b = open();
  ASSERT_TRUE(add(*b, 1, 0, "stored"));
  fs.fail_syncs(true);
  auto failed = add(*b, 1, 1, "not durable");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), errc::journal_failed);
  EXPECT_EQ(text_of(read(*b, 1, 0).value()), "stored");
  fs.fail_syncs(false);
  b.reset();
}

TEST_F(bookie_test, concurrent_adds_from_every_shard_to_many_ledgers_all_complete) {
  auto b = open(options(2));
  constexpr int ledgers = 8, per_ledger = 50;
  std::atomic<int> acked{0}, failed{0};
  for (int l = 0; l < ledgers; ++l) {
    io::spawn(shards[l % 2].executor(), [&, l]() -> awaitable<void> {
      for (int e = 0; e < per_ledger; ++e) {
        auto r =
            co_await b->add_entry(ledger_id(l), entry_id(e), entry_id(e - 1), bytes_of(fmt::format("{}:{}", l, e)));
        (r ? acked : failed).fetch_add(1);
      }
    });
  }
  while (acked.load() + failed.load() < ledgers * per_ledger) std::this_thread::yield();
  EXPECT_EQ(failed.load(), 0);
  for (int l = 0; l < ledgers; ++l) {
    for (int e = 0; e < per_ledger; ++e) EXPECT_EQ(text_of(read(*b, l, e).value()), fmt::format("{}:{}", l, e));
  }
  stop(b);
}

TEST_F(bookie_test, a_long_poll_of_the_lac_answers_once_an_add_carries_it_further) {
  auto b = open();
  ASSERT_TRUE(io::block_on(shards[1], b->add_entry(ledger_id(2), entry_id(0), entry_id(-1), bytes_of("a"))));
  // The poll waits on the owner shard (1); the add that wakes it comes from shard 0.
  auto poll = std::async(std::launch::async, [&] {
    return io::block_on(shards[0], b->wait_last_add_confirmed(ledger_id(2), entry_id(-1), std::chrono::hours(1)));
  });
  ASSERT_TRUE(add(*b, 2, 1, "b"));  // carries LAC 0
  ASSERT_EQ(poll.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  auto lac = poll.get();
  ASSERT_TRUE(lac) << lac.error();
  EXPECT_EQ(lac.value(), entry_id(0));
  stop(b);
}

TEST_F(bookie_test, a_long_poll_of_the_lac_answers_the_lac_as_it_is_after_its_timeout) {
  auto b = open();
  ASSERT_TRUE(add(*b, 2, 0, "a"));
  ASSERT_TRUE(add(*b, 2, 1, "b"));  // LAC 0
  auto lac =
      io::block_on(shards[0], b->wait_last_add_confirmed(ledger_id(2), entry_id(0), std::chrono::milliseconds(1)));
  ASSERT_TRUE(lac) << lac.error();
  EXPECT_EQ(lac.value(), entry_id(0));
  stop(b);
}

TEST_F(bookie_test, stopping_the_bookie_ends_its_long_polls) {
  auto b = open();
  ASSERT_TRUE(add(*b, 2, 0, "a"));
  auto poll = std::async(std::launch::async, [&] {
    return io::block_on(shards[0], b->wait_last_add_confirmed(ledger_id(2), entry_id(5), std::chrono::hours(1)));
  });
  // Stop waits for the poll, which it ends at once rather than after an hour
  // (or refuses it, when the poll comes after the stop).
  io::block_on(shards[1], b->stop());
  EXPECT_EQ(poll.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  poll.wait();
  b.reset();
}

TEST_F(bookie_test, a_ledgers_first_add_makes_the_calling_shard_its_owner) {
  auto b = open();
  // Ledger 2's id maps to shard 0; its writer is on shard 1.
  ASSERT_EQ(&shards.set().for_key(2), &shards[0]);
  ASSERT_TRUE(io::block_on(shards[1], b->add_entry(ledger_id(2), entry_id(0), entry_id(-1), bytes_of("a"))));
  EXPECT_EQ(&b->owner_of(ledger_id(2)), &shards[1]);
  // A call from another shard hops to the owner, which stays.
  ASSERT_TRUE(add(*b, 2, 1, "b"));
  EXPECT_EQ(&b->owner_of(ledger_id(2)), &shards[1]);
  EXPECT_EQ(text_of(read(*b, 2, 1).value()), "b");
  stop(b);
}

TEST_F(bookie_test, a_fence_from_another_shard_than_the_writers_stops_its_adds) {
  auto b = open();
  auto add_on_1 = [&](std::int64_t entry) {
    return io::block_on(shards[1], b->add_entry(ledger_id(2), entry_id(entry), entry_id(entry - 1), bytes_of("x")));
  };
  ASSERT_TRUE(add_on_1(0));
  ASSERT_TRUE(add_on_1(1));
  auto fenced = io::block_on(shards[0], b->fence(ledger_id(2)));
  ASSERT_TRUE(fenced);
  EXPECT_EQ(fenced.value().last_entry, entry_id(1));
  auto refused = add_on_1(2);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::ledger_fenced);
  stop(b);
}

TEST_F(bookie_test, a_ledger_first_used_from_off_the_shards_is_owned_by_the_shard_its_id_maps_to) {
  auto b = open();
  EXPECT_EQ(&b->owner_of(ledger_id(3)), &shards.set().for_key(3));
  stop(b);
}

TEST_F(bookie_test, a_deleted_ledger_loses_its_owner) {
  auto b = open();
  ASSERT_TRUE(io::block_on(shards[1], b->add_entry(ledger_id(2), entry_id(0), entry_id(-1), bytes_of("a"))));
  ASSERT_TRUE(io::block_on(shards[0], b->delete_ledger(ledger_id(2))));
  EXPECT_EQ(&b->owner_of(ledger_id(2)), &shards.set().for_key(2));
  stop(b);
}

TEST_F(bookie_test, a_half_full_write_cache_starts_a_checkpoint_without_the_clock) {
  auto o = options();
  o.storage.write_cache_bytes = 64 << 10;
  auto b = open(o);
  const std::string payload(4096, 'w');
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(add(*b, 1, i, payload));  // 32 KiB: half the cache
  while (b->stats().checkpoints == 0) std::this_thread::yield();
  stop(b);
}

// Checkpoints skip reclaiming a journal whose file has not changed since the last one;
// once it rolls, the next checkpoint must still retire the files before it.
TEST_F(bookie_test, a_journal_file_rolled_after_a_checkpoint_is_reclaimed_by_the_next_one) {
  auto o = options();
  o.journal.max_file_bytes = 64 << 10;
  o.journal.max_spare_files = 0;
  auto b = open(o);
  const auto oldest_journal_file = [&] {
    std::uint64_t oldest = UINT64_MAX;
    const auto names = fs.list(o.journal_directories[0]);
    if (!names) return oldest;
    for (const auto& name : names.value()) {
      if (auto sequence = parse_journal_file_name(name)) oldest = std::min(oldest, *sequence);
    }
    return oldest;
  };
  ASSERT_TRUE(add(*b, 1, 0, "first"));
  ASSERT_TRUE(io::block_on(shards[0], b->checkpoint()));
  ASSERT_TRUE(io::block_on(shards[0], b->checkpoint()));  // nothing new
  const auto before_roll = oldest_journal_file();
  const std::string payload(16 << 10, 'r');
  for (int i = 1; i <= 8; ++i) ASSERT_TRUE(add(*b, 1, i, payload));  // 128 KiB: the journal rolls
  ASSERT_EQ(oldest_journal_file(), before_roll);
  ASSERT_TRUE(io::block_on(shards[0], b->checkpoint()));
  EXPECT_GT(oldest_journal_file(), before_roll);
  stop(b);
  auto reopened = open(o);
  for (int i = 1; i <= 8; ++i) EXPECT_EQ(text_of(read(*reopened, 1, i).value()), payload);
  stop(reopened);
}

TEST_F(bookie_test, the_checkpoint_loop_runs_when_the_clock_moves) {
  auto b = open();
  ASSERT_TRUE(add(*b, 1, 0, "x"));
  clock.advance(std::chrono::seconds(1));
  while (b->stats().checkpoints == 0) std::this_thread::yield();
  stop(b);
}

}  // namespace
}  // namespace magnetar::bookie
