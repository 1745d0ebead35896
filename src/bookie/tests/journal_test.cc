#include "bookie/journal.h"

#include "bookie/errc.h"
#include "io/block_on.h"
#include "io/faulty_file_system.h"
#include "io/page_cache.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::bookie {
namespace {

std::span<const std::byte> bytes_of(const std::string& text) { return std::as_bytes(std::span(text)); }

journal_record add(std::int64_t ledger, std::int64_t entry, const std::string& payload) {
  return {journal_record_type::add_entry, ledger_id(ledger), entry_id(entry), entry_id(entry - 1), bytes_of(payload)};
}

class journal_test : public ::testing::Test {
 protected:
  journal_options options() {
    journal_options o;
    o.directory = dir / "journal";
    o.fs = &fs;
    o.preallocate_bytes = 64 << 10;
    o.zero_ahead_bytes = 256 << 10;
    return o;
  }

  std::unique_ptr<journal> open(journal_options o) { return journal::open(o).value(); }
  std::unique_ptr<journal> open() { return open(options()); }

  result<void> append(journal& j, std::vector<journal_record> records) {
    return io::block_on(shards[0], j.append(records));
  }

  // (ledger, entry, payload) of every record the previous run left.
  std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> replayed(journal& j, journal_scan* scan = nullptr) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::string>> seen;
    auto result = j.replay([&](const journal_record& r) -> magnetar::result<void> {
      seen.emplace_back(r.ledger.value(), r.entry.value(),
                        std::string(reinterpret_cast<const char*>(r.payload.data()), r.payload.size()));
      return success();
    });
    EXPECT_TRUE(result) << result.error();
    if (scan && result) *scan = result.value();
    return seen;
  }

  io::temp_directory dir{"journal-test"};
  io::faulty_file_system fs;
  io::running_shards shards{1};
};

using records = std::vector<std::tuple<std::int64_t, std::int64_t, std::string>>;

// Polls `condition` until it holds (false after a generous number of tries).
template <class F>
bool eventually_true(F condition) {
  for (int i = 0; i < 2'000'000; ++i) {
    if (condition()) return true;
    std::this_thread::yield();
  }
  return condition();
}

TEST_F(journal_test, acknowledged_records_replay_after_a_restart) {
  {
    auto j = open();
    ASSERT_TRUE(append(*j, {add(1, 0, "a"), add(1, 1, "b")}));
    ASSERT_TRUE(append(*j, {add(2, 0, "c")}));
  }
  auto j = open();
  EXPECT_EQ(replayed(*j), (records{{1, 0, "a"}, {1, 1, "b"}, {2, 0, "c"}}));
}

TEST_F(journal_test, acknowledged_records_survive_a_crash) {
  auto j = open();
  ASSERT_TRUE(append(*j, {add(1, 0, "durable")}));
  fs.crash();
  j.reset();
  auto reopened = open();
  EXPECT_EQ(replayed(*reopened), (records{{1, 0, "durable"}}));
}

TEST_F(journal_test, one_sync_covers_every_record_that_queued_meanwhile) {
  auto j = open();
  while (j->stats().files_prepared == 0) std::this_thread::yield();  // its syncs are done
  fs.hold_syncs();
  const auto syncs_before = fs.sync_count();
  std::atomic<int> completed{0};
  std::vector<std::string> payloads(100);
  auto count = [&](const error* e) {
    EXPECT_EQ(e, nullptr);
    completed.fetch_add(1);
  };
  payloads[0] = "first";
  const auto first = add(1, 0, payloads[0]);
  j->append(std::span(&first, 1), count);
  while (fs.syncs_waiting() == 0) std::this_thread::yield();  // the writer syncs the first group
  for (int i = 1; i < 100; ++i) {
    payloads[i] = "entry-" + std::to_string(i);
    const auto r = add(1, i, payloads[i]);
    j->append(std::span(&r, 1), count);
  }
  EXPECT_EQ(j->queued_appends(), 99u);
  fs.release_syncs();
  while (completed.load() < 100) std::this_thread::yield();
  EXPECT_EQ(j->stats().groups, 2u) << "the 99 records that waited share one sync";
  EXPECT_EQ(fs.sync_count() - syncs_before, 2u);
  EXPECT_EQ(j->stats().records, 100u);
}

TEST_F(journal_test, a_lone_small_append_completes_when_groups_are_held_back) {
  auto o = options();
  o.max_group_wait = std::chrono::microseconds(500);
  o.max_group_bytes = 1 << 20;
  auto j = open(o);
  EXPECT_TRUE(append(*j, {add(1, 0, "alone")})) << "the writer must wake for the first record of a group";
}

TEST_F(journal_test, a_crash_during_the_sync_keeps_the_acknowledged_and_serves_no_torn_record) {
  auto j = open();
  ASSERT_TRUE(append(*j, {add(1, 0, "acked")}));
  fs.hold_syncs();
  std::promise<bool> outcome;
  // Most of a page, so that the torn write (a random prefix of the record and the zeros
  // padding its group to the page's end) usually cuts the record.
  const std::string never_acknowledged(3900, 'n');  // the record points into it
  const auto pending = add(1, 1, never_acknowledged);
  j->append(std::span(&pending, 1), [&](const error* e) { outcome.set_value(e == nullptr); });
  while (fs.syncs_waiting() == 0) std::this_thread::yield();
  fs.crash(io::crash_mode::torn_last_write);
  fs.release_syncs();
  EXPECT_FALSE(outcome.get_future().get()) << "a record whose sync failed is not acknowledged";
  j.reset();

  auto reopened = open();
  const auto seen = replayed(*reopened);
  // The unacknowledged record may have reached the disk whole; never in part.
  if (seen.size() == 2) {
    EXPECT_EQ(seen, (records{{1, 0, "acked"}, {1, 1, never_acknowledged}}));
  } else {
    EXPECT_EQ(seen, (records{{1, 0, "acked"}}));
  }
}

TEST_F(journal_test, damage_before_a_newer_file_with_records_fails_the_replay) {
  auto o = options();
  o.max_file_bytes = 4096;
  {
    auto j = open(o);
    for (int i = 0; i < 40; ++i) ASSERT_TRUE(append(*j, {add(1, i, std::string(200, 'x'))}));
  }
  // Flip a byte in the oldest file's first record: synced data "lost".
  auto first =
      io::posix_file_system().open(dir / "journal/journal-0000000000000001.log", io::open_mode::read_write).value();
  const std::byte flipped[1] = {std::byte{0x5a}};
  ASSERT_TRUE(first->write_at(journal_header_size + 20, flipped));
  auto j = open(o);
  auto replay = j->replay([](const journal_record&) -> result<void> { return success(); });
  ASSERT_FALSE(replay);
  EXPECT_EQ(replay.error(), errc::corrupt_record);
}

TEST_F(journal_test, a_failed_sync_fails_the_group_and_every_later_append) {
  auto j = open();
  fs.fail_syncs(true);
  auto failed = append(*j, {add(1, 0, "x")});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), errc::journal_failed);
  EXPECT_NE(failed.error().message().find("fdatasync"), std::string::npos) << failed.error();
  fs.fail_syncs(false);
  auto later = append(*j, {add(1, 1, "y")});
  ASSERT_FALSE(later);
  EXPECT_EQ(later.error(), errc::journal_failed);
}

TEST_F(journal_test, a_full_disk_fails_the_append_with_a_clear_error) {
  auto o = options();
  auto j = open(o);
  fs.set_free_space(0);
  const std::string big(128 << 10, 'x');  // past the zeroed region: the file must grow
  auto failed = append(*j, {add(1, 0, big)});
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error(), errc::journal_failed);
  EXPECT_NE(failed.error().message().find("No space left on device"), std::string::npos) << failed.error();
}

TEST_F(journal_test, an_oversized_record_is_refused_and_the_journal_goes_on) {
  auto o = options();
  o.max_record_bytes = 16;
  auto j = open(o);
  auto refused = append(*j, {add(1, 0, std::string(17, 'x'))});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::too_large);
  EXPECT_TRUE(append(*j, {add(1, 0, "small")}));
}

TEST_F(journal_test, files_roll_and_replay_keeps_the_order) {
  auto o = options();
  o.max_file_bytes = 4096;
  records expected;
  {
    auto j = open(o);
    for (int i = 0; i < 50; ++i) {
      const std::string payload(200, static_cast<char>('a' + i % 26));
      ASSERT_TRUE(append(*j, {add(3, i, payload)}));
      expected.emplace_back(3, i, payload);
    }
    EXPECT_GT(j->stats().files_created, 2u);
  }
  auto j = open(o);
  EXPECT_EQ(replayed(*j), expected);
}

TEST_F(journal_test, synced_records_leave_the_page_cache_behind_the_writer) {
  if (io::in_memory_file_system(dir.path())) GTEST_SKIP() << dir.path() << " is in memory: its pages can't be dropped";
  auto o = options();
  o.fs = &io::posix_file_system();
  o.drop_written_pages_every = 64 << 10;
  records expected;
  {
    auto j = open(o);
    for (int i = 0; i < 400; ++i) {
      const std::string payload(3000, static_cast<char>('a' + i % 26));
      ASSERT_TRUE(append(*j, {add(5, i, payload)}));
      expected.emplace_back(5, i, payload);
    }
    std::uint64_t cached = 0;
    const std::vector<std::string> names = io::posix_file_system().list(o.directory).value();
    for (const auto& name : names) {
      if (name.starts_with("journal-")) cached += io::cached_bytes(o.directory + "/" + name).value();
    }
    EXPECT_LT(cached, 256u << 10) << "of 1.2 MB of records";
  }
  auto j = open(o);
  EXPECT_EQ(replayed(*j), expected);
}

TEST_F(journal_test, groups_that_start_and_end_inside_pages_replay_whole) {
  // Each group is padded to a page boundary and the next writes over the padding: sizes
  // that end groups at every kind of page offset.
  records expected;
  {
    auto j = open();
    for (int i = 0; i < 60; ++i) {
      const std::string payload(static_cast<std::size_t>(1 + i * 397 % 9000), static_cast<char>('a' + i % 26));
      ASSERT_TRUE(append(*j, {add(8, i, payload)}));
      expected.emplace_back(8, i, payload);
    }
  }
  auto j = open();
  EXPECT_EQ(replayed(*j), expected);
}

TEST_F(journal_test, reclaim_removes_the_files_before_the_checkpoint) {
  auto o = options();
  o.max_file_bytes = 4096;
  std::uint64_t mark = 0;
  {
    auto j = open(o);
    for (int i = 0; i < 30; ++i) ASSERT_TRUE(append(*j, {add(4, i, std::string(200, 'x'))}));
    mark = j->checkpoint_mark();
    ASSERT_TRUE(append(*j, {add(4, 30, "after the mark")}));
    ASSERT_TRUE(j->reclaim(mark));
    EXPECT_GT(j->stats().files_reclaimed, 0u);
  }
  auto j = open(o);
  auto seen = replayed(*j);
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back(), (std::tuple<std::int64_t, std::int64_t, std::string>{4, 30, "after the mark"}));
  EXPECT_LT(seen.size(), 31u) << "records in reclaimed files are gone";
}

// Whether `seen` is the last seen.size() records of `all`, in order: what replay
// after a reclaim must give (no record of an older use of a reused file).
bool is_suffix(const records& seen, const records& all) {
  return seen.size() <= all.size() && std::equal(seen.begin(), seen.end(), all.end() - std::ssize(seen));
}

TEST_F(journal_test, reclaimed_files_are_reused_and_replay_only_this_uses_records) {
  auto o = options();
  o.max_file_bytes = 4096;
  records all;
  auto write = [&](journal& j, int from, int to) {
    for (int i = from; i < to; ++i) {
      const std::string payload(150 + i % 7, static_cast<char>('a' + i % 26));
      ASSERT_TRUE(append(j, {add(5, i, payload)}));
      all.emplace_back(5, i, payload);
    }
  };
  {
    auto j = open(o);
    write(*j, 0, 60);
    ASSERT_TRUE(j->reclaim(j->checkpoint_mark()));
    write(*j, 60, 130);  // rolls into the spares, which still hold records 0..59
    EXPECT_GE(j->stats().files_reused, 1u);
  }
  auto j = open(o);
  journal_scan scan;
  const auto seen = replayed(*j, &scan);
  EXPECT_TRUE(is_suffix(seen, all)) << seen.size() << " records replayed";
  EXPECT_GE(seen.size(), 70u);
  EXPECT_TRUE(scan.clean_end);
}

TEST_F(journal_test, a_crash_in_a_reused_file_loses_only_what_was_not_synced) {
  auto o = options();
  o.max_file_bytes = 4096;
  records all;
  auto j = open(o);
  for (int i = 0; i < 40; ++i) {
    const std::string payload(180, static_cast<char>('k' + i % 10));
    ASSERT_TRUE(append(*j, {add(6, i, payload)}));
    all.emplace_back(6, i, payload);
  }
  ASSERT_TRUE(j->reclaim(j->checkpoint_mark()));
  for (int i = 40; i < 100; ++i) {
    const std::string payload(180, static_cast<char>('A' + i % 10));
    ASSERT_TRUE(append(*j, {add(6, i, payload)}));
    all.emplace_back(6, i, payload);
  }
  ASSERT_GT(j->stats().files_reused, 0u);
  fs.crash();
  j.reset();
  auto reopened = open(o);
  const auto seen = replayed(*reopened);
  EXPECT_TRUE(is_suffix(seen, all)) << seen.size() << " records replayed";
  EXPECT_GE(seen.size(), 30u);
}

TEST_F(journal_test, only_max_spare_files_are_kept_and_the_rest_removed) {
  auto o = options();
  o.max_file_bytes = 4096;
  o.max_spare_files = 1;
  auto j = open(o);
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(append(*j, {add(7, i, std::string(200, 'z'))}));
  ASSERT_TRUE(j->reclaim(j->checkpoint_mark()));
  auto names = fs.list(o.directory).value();
  EXPECT_EQ(std::count_if(names.begin(), names.end(), [](const std::string& n) { return n.starts_with("spare-"); }), 1);
}

TEST_F(journal_test, a_next_file_that_could_not_be_prepared_ahead_is_made_at_the_roll_once_space_returns) {
  auto o = options();
  o.max_file_bytes = 4096;
  o.preallocate_bytes = 4096;
  auto j = open(o);
  while (j->stats().files_prepared == 0) std::this_thread::yield();  // file 2, made at open
  fs.set_free_space(0);  // preparing file 3 when the writer takes file 2 fails
  int i = 0;
  while (j->stats().files_created < 2) ASSERT_TRUE(append(*j, {add(8, i++, std::string(300, 'f'))}));
  // The failed attempt's remains are gone: no file 3 stands in the writer's way.
  EXPECT_TRUE(eventually_true([&] { return !fs.exists(o.directory + "/" + journal_file_name(3)).value(); }));
  fs.set_free_space(std::nullopt);
  while (j->stats().files_created < 3) ASSERT_TRUE(append(*j, {add(8, i++, std::string(300, 'f'))}));
  EXPECT_TRUE(append(*j, {add(8, i, "after the roll")}));
}

TEST_F(journal_test, spares_sequences_count_when_journal_files_are_gone) {
  auto o = options();
  o.max_file_bytes = 4096;
  {
    auto j = open(o);
    for (int i = 0; i < 60; ++i) ASSERT_TRUE(append(*j, {add(9, i, std::string(200, 'o'))}));
    ASSERT_TRUE(j->reclaim(j->checkpoint_mark()));
  }
  std::uint64_t highest_spare = 0;
  const std::vector<std::string> names = fs.list(o.directory).value();
  for (const auto& name : names) {
    if (name.starts_with("spare-")) highest_spare = std::max(highest_spare, *parse_journal_file_name(name.substr(6)));
    if (name.starts_with("journal-")) {
      ASSERT_TRUE(fs.remove(o.directory + "/" + name));  // by hand
    }
  }
  ASSERT_GT(highest_spare, 0u);
  records all;
  {
    auto j = open(o);
    EXPECT_GT(j->checkpoint_mark(), highest_spare) << "a spare is reused under a sequence (and salt) it had";
    for (int i = 0; i < 40; ++i) {
      const std::string payload(200, static_cast<char>('a' + i % 26));
      ASSERT_TRUE(append(*j, {add(10, i, payload)}));
      all.emplace_back(10, i, payload);
    }
  }
  auto j = open(o);
  EXPECT_EQ(replayed(*j), all);
}

TEST_F(journal_test, appends_after_stop_are_refused) {
  auto j = open();
  j->stop();
  auto refused = append(*j, {add(1, 0, "late")});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::journal_failed);
}

// Bytes of [from, to) in `path` whose blocks are reserved but unwritten (read as zeros
// only because the file system says so); nullopt where the file system can't tell.
std::optional<std::uint64_t> unwritten_bytes(const std::string& path, std::uint64_t from, std::uint64_t to) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  constexpr std::uint32_t most = 256;
  std::vector<std::uint64_t> buffer((sizeof(fiemap) + most * sizeof(fiemap_extent)) / sizeof(std::uint64_t) + 1);
  auto& request = *reinterpret_cast<fiemap*>(buffer.data());
  request.fm_start = from;
  request.fm_length = to - from;
  request.fm_flags = FIEMAP_FLAG_SYNC;
  request.fm_extent_count = most;
  const int mapped = ::ioctl(fd, FS_IOC_FIEMAP, &request);
  ::close(fd);
  if (mapped != 0) return std::nullopt;
  std::uint64_t unwritten = 0;
  for (std::uint32_t i = 0; i < request.fm_mapped_extents; ++i) {
    const auto& e = request.fm_extents[i];
    if ((e.fe_flags & FIEMAP_EXTENT_UNWRITTEN) == 0) continue;
    const auto start = std::max<std::uint64_t>(e.fe_logical, from);
    const auto end = std::min<std::uint64_t>(e.fe_logical + e.fe_length, to);
    if (end > start) unwritten += end - start;
  }
  return unwritten;
}

template <class F>
bool within_30_seconds(F condition) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

TEST_F(journal_test, a_new_files_blocks_ahead_of_the_writer_are_written_not_only_reserved) {
  auto o = options();
  o.fs = &io::posix_file_system();
  o.preallocate_bytes = 4 << 20;
  o.zero_ahead_bytes = 1 << 20;
  auto j = open(o);
  ASSERT_TRUE(append(*j, {add(1, 0, "first")}));
  ASSERT_TRUE(within_30_seconds([&] { return j->stats().bytes_zeroed_ahead >= o.zero_ahead_bytes; }));
  const auto path = o.directory + "/" + journal_file_name(1);
  const auto ahead = unwritten_bytes(path, 0, o.zero_ahead_bytes);
  const auto beyond = unwritten_bytes(path, 2 << 20, 4 << 20);
  if (!ahead || beyond.value_or(0) == 0)
    GTEST_SKIP() << dir.path() << ": the file system doesn't report unwritten blocks";
  EXPECT_EQ(*ahead, 0u) << "the first MiB, written by the writer and the zeroing";
  EXPECT_EQ(j->stats().bytes_zeroed_ahead, o.zero_ahead_bytes) << "no further than asked ahead of the writer";
}

TEST_F(journal_test, records_written_while_blocks_are_zeroed_ahead_replay_whole) {
  // A small window (two pages, zeroed a window at a time) that writers appending as fast
  // as they can keep catching up with: a zeroing must never run over a written record.
  auto o = options();
  o.fs = &io::posix_file_system();
  o.zero_ahead_bytes = 8192;
  std::map<std::int64_t, records> expected;
  {
    auto j = open(o);
    std::atomic<int> completed{0}, failed{0};
    std::vector<std::thread> writers;
    constexpr int per_writer = 300;
    for (std::int64_t ledger = 1; ledger <= 4; ++ledger) {
      for (int i = 0; i < per_writer; ++i) {
        const std::string payload(static_cast<std::size_t>(1 + (i * 397 + ledger * 101) % 5000),
                                  static_cast<char>('a' + (i + ledger) % 26));
        expected[ledger].emplace_back(ledger, i, payload);
      }
      writers.emplace_back([&, ledger] {
        for (const auto& [l, entry, payload] : expected[ledger]) {
          const auto record = add(l, entry, payload);
          j->append(std::span(&record, 1), [&](const error* e) {
            if (e) failed.fetch_add(1);
            completed.fetch_add(1);
          });
        }
      });
    }
    for (auto& w : writers) w.join();
    ASSERT_TRUE(within_30_seconds([&] { return completed.load() == 4 * per_writer; }));
    EXPECT_EQ(failed.load(), 0);
    EXPECT_GT(j->stats().bytes_zeroed_ahead, 0u);
  }
  auto j = open(o);
  std::map<std::int64_t, records> seen;
  for (auto& record : replayed(*j)) seen[std::get<0>(record)].push_back(record);
  EXPECT_EQ(seen, expected);
}

TEST_F(journal_test, a_reused_file_is_not_zeroed_again) {
  auto o = options();
  o.max_file_bytes = 64 << 10;
  o.zero_ahead_bytes = 4096;
  auto j = open(o);
  int entry = 0;
  for (; entry < 100; ++entry) ASSERT_TRUE(append(*j, {add(1, entry, std::string(2000, 'a'))}));
  ASSERT_GT(j->stats().bytes_zeroed_ahead, 0u) << "new files are";
  ASSERT_TRUE(j->reclaim(j->checkpoint_mark()));  // the full files become spares
  while (j->stats().files_reused == 0 && entry < 1000) {
    ASSERT_TRUE(append(*j, {add(1, entry++, std::string(2000, 'b'))}));
  }
  ASSERT_EQ(j->stats().files_reused, 1u) << "the writer's file is a spare";
  const auto zeroed = j->stats().bytes_zeroed_ahead;
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(append(*j, {add(1, entry++, std::string(2000, 'c'))}));
  ASSERT_EQ(j->stats().files_reused, 1u) << "still the same file";
  j->stop();
  EXPECT_EQ(j->stats().bytes_zeroed_ahead, zeroed);
}

}  // namespace
}  // namespace magnetar::bookie
