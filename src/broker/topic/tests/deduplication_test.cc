// The deduplication state over a real managed ledger: verdicts, snapshots, and recovery
// after a clean close and after a crash (the managed ledger abandoned: nothing flushed,
// no snapshot written), which replays the entries' metadata.
#include "broker/topic/deduplication.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/entry_format.h"
#include "mledger/managed_cursor.h"
#include "mledger/tests/mledger_test_cluster.h"
#include "wire/big_endian.h"

#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

using mledger::testing::test_cluster;
using verdict = deduplication::verdict;

// What a SEND stores: [metadata size][MessageMetadata][payload].
wire::shared_bytes entry_of(const std::string& producer, std::int64_t sequence_id, std::int64_t highest = -1) {
  proto::MessageMetadata m;
  m.set_producer_name(producer);
  m.set_sequence_id(static_cast<std::uint64_t>(sequence_id));
  if (highest >= 0) m.set_highest_sequence_id(static_cast<std::uint64_t>(highest));
  m.set_publish_time(1);
  const std::string payload = "x";
  const auto size = m.ByteSizeLong();
  auto buffer = std::make_shared_for_overwrite<std::byte[]>(4 + size + payload.size());
  wire::store_be32(buffer.get(), static_cast<std::uint32_t>(size));
  m.SerializeToArray(buffer.get() + 4, static_cast<int>(size));
  std::memcpy(buffer.get() + 4 + size, payload.data(), payload.size());
  const std::byte* data = buffer.get();
  return wire::shared_bytes(std::move(buffer), {data, 4 + size + payload.size()});
}

class deduplication_test : public ::testing::Test {
 protected:
  void SetUp() override {
    config.broker_deduplication_entries_interval = 1000;
    ml = cluster.open("t/ns/persistent/dedup");
    ASSERT_TRUE(ml);
    dedup = std::make_unique<deduplication>(*ml, config, "dedup");
    ASSERT_TRUE(cluster.run(dedup->set_enabled(true)));
  }

  // What the topic does for one SEND: check, append, record.
  verdict publish(const std::string& producer, std::int64_t sequence_id, std::int64_t highest = -1) {
    const auto v = dedup->check(producer, sequence_id, std::max(sequence_id, highest));
    if (v != verdict::publish) return v;
    auto at = cluster.run(ml->add_entry(entry_of(producer, sequence_id, highest)));
    EXPECT_TRUE(at) << at.error();
    if (at) dedup->persisted(producer, std::max(sequence_id, highest), at.value());
    return v;
  }

  // Opens the managed ledger again (after close or abandon) with a fresh state.
  void reopen() {
    dedup.reset();
    ml.reset();
    ml = cluster.open("t/ns/persistent/dedup");
    ASSERT_TRUE(ml);
    dedup = std::make_unique<deduplication>(*ml, config, "dedup");
    ASSERT_TRUE(cluster.run(dedup->set_enabled(true)));
  }

  void TearDown() override {
    dedup.reset();
    if (ml) {
      EXPECT_TRUE(cluster.run(ml->close()));
    }
  }

  test_cluster cluster;
  broker_config config;
  std::unique_ptr<mledger::managed_ledger> ml;
  std::unique_ptr<deduplication> dedup;
};

TEST_F(deduplication_test, a_sequence_id_at_or_below_the_persisted_one_is_a_duplicate) {
  EXPECT_EQ(publish("p", 0), verdict::publish);
  EXPECT_EQ(publish("p", 1), verdict::publish);
  EXPECT_EQ(publish("p", 1), verdict::duplicate);
  EXPECT_EQ(publish("p", 0), verdict::duplicate);
  EXPECT_EQ(publish("p", 2), verdict::publish);
}

TEST_F(deduplication_test, producers_are_numbered_apart) {
  EXPECT_EQ(publish("a", 5), verdict::publish);
  EXPECT_EQ(publish("b", 5), verdict::publish);
  EXPECT_EQ(publish("b", 3), verdict::duplicate);
}

TEST_F(deduplication_test, a_sequence_id_pushed_but_not_persisted_is_unknown) {
  EXPECT_EQ(dedup->check("p", 0, 0), verdict::publish);
  EXPECT_EQ(dedup->check("p", 0, 0), verdict::unknown);
  dedup->persisted("p", 0, ml->last_confirmed());
  EXPECT_EQ(dedup->check("p", 0, 0), verdict::duplicate);
}

TEST_F(deduplication_test, a_failed_append_may_be_sent_again) {
  EXPECT_EQ(publish("p", 0), verdict::publish);
  EXPECT_EQ(dedup->check("p", 1, 1), verdict::publish);
  dedup->publish_failed("p");
  EXPECT_EQ(dedup->check("p", 1, 1), verdict::publish);
}

TEST_F(deduplication_test, a_batch_counts_by_its_highest_sequence_id) {
  EXPECT_EQ(publish("p", 0, 9), verdict::publish);
  EXPECT_EQ(dedup->last_sequence_id("p"), 9);
  EXPECT_EQ(publish("p", 9), verdict::duplicate);
  EXPECT_EQ(publish("p", 10), verdict::publish);
}

TEST_F(deduplication_test, last_sequence_id_is_minus_one_for_an_unknown_producer) {
  EXPECT_EQ(dedup->last_sequence_id("nobody"), -1);
}

TEST_F(deduplication_test, the_sequence_ids_survive_a_close_through_the_snapshot) {
  for (int i = 0; i < 5; ++i) publish("p", i);
  dedup->snapshot();
  const auto snapshot_at = ml->last_confirmed();
  ASSERT_TRUE(cluster.run(ml->close()));
  reopen();
  EXPECT_EQ(ml->find_cursor(dedup_cursor_name)->mark_delete_position(), snapshot_at);
  EXPECT_EQ(dedup->last_sequence_id("p"), 4);
  EXPECT_EQ(publish("p", 4), verdict::duplicate);
}

TEST_F(deduplication_test, the_sequence_ids_survive_a_crash_by_replaying_the_entries) {
  for (int i = 0; i < 3; ++i) publish("p", i);
  dedup->snapshot();
  ASSERT_TRUE(cluster.run(ml->flush_cursors()));
  // After the snapshot: only the entries themselves know these.
  for (int i = 3; i < 7; ++i) publish("p", i);
  publish("q", 0, 20);
  cluster.run(ml->abandon());
  reopen();
  EXPECT_EQ(dedup->last_sequence_id("p"), 6);
  EXPECT_EQ(dedup->last_sequence_id("q"), 20);
  EXPECT_EQ(publish("p", 5), verdict::duplicate);
  EXPECT_EQ(publish("q", 20), verdict::duplicate);
  EXPECT_EQ(publish("p", 7), verdict::publish);
}

TEST_F(deduplication_test, a_snapshot_is_taken_every_entries_interval) {
  dedup.reset();
  config.broker_deduplication_entries_interval = 3;
  dedup = std::make_unique<deduplication>(*ml, config, "dedup");
  ASSERT_TRUE(cluster.run(dedup->set_enabled(true)));
  for (int i = 0; i < 4; ++i) publish("p", i);
  auto* cursor = ml->find_cursor(dedup_cursor_name);
  ASSERT_NE(cursor, nullptr);
  EXPECT_EQ(cursor->properties().at("p"), "2");
  EXPECT_EQ(cursor->mark_delete_position(), entry_before(*ml, ml->last_confirmed()));
}

TEST_F(deduplication_test, a_producer_not_connected_beyond_the_timeout_is_forgotten) {
  publish("gone", 0);
  publish("here", 0);
  const base::clock::time_point start{};
  const auto timeout = std::chrono::minutes(10);
  dedup->purge_inactive({"here"}, start, timeout);
  dedup->purge_inactive({"here"}, start + std::chrono::minutes(5), timeout);
  EXPECT_EQ(dedup->last_sequence_id("gone"), 0);
  dedup->purge_inactive({"here"}, start + std::chrono::minutes(11), timeout);
  EXPECT_EQ(dedup->last_sequence_id("gone"), -1);
  EXPECT_EQ(dedup->last_sequence_id("here"), 0);
  // The next snapshot forgets it too.
  dedup->snapshot();
  EXPECT_FALSE(ml->find_cursor(dedup_cursor_name)->properties().contains("gone"));
}

TEST_F(deduplication_test, a_timed_snapshot_happens_only_after_new_entries) {
  publish("p", 0);
  dedup->snapshot_if_behind();
  auto* cursor = ml->find_cursor(dedup_cursor_name);
  EXPECT_EQ(cursor->mark_delete_position(), ml->last_confirmed());
  ASSERT_TRUE(cluster.run(ml->flush_cursors()));
  dedup->snapshot_if_behind();
  EXPECT_FALSE(cursor->has_unpersisted_changes());
}

TEST_F(deduplication_test, disabling_drops_the_cursor_and_forgets) {
  publish("p", 0);
  ASSERT_TRUE(cluster.run(dedup->set_enabled(false)));
  EXPECT_EQ(ml->find_cursor(dedup_cursor_name), nullptr);
  EXPECT_EQ(dedup->last_sequence_id("p"), -1);
  EXPECT_EQ(dedup->check("p", 0, 0), verdict::publish);
  EXPECT_EQ(dedup->status_name(), "Disabled");
}

}  // namespace
}  // namespace magnetar::broker
