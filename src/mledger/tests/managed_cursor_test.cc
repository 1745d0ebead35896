#include "mledger/managed_cursor.h"

#include "mledger/errc.h"
#include "mledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::mledger {
namespace {

using namespace testing;

managed_cursor* open_cursor(test_cluster& c, managed_ledger& ml, const std::string& name,
                            initial_position start = initial_position::earliest,
                            durability kind = durability::durable) {
  auto cursor = c.run(ml.open_cursor(name, start, kind));
  EXPECT_TRUE(cursor) << cursor.error();
  return cursor ? cursor.value() : nullptr;
}

std::vector<std::string> read(test_cluster& c, managed_cursor& cursor, std::size_t max = 100) {
  auto entries = c.run(cursor.read_entries(max));
  EXPECT_TRUE(entries) << entries.error();
  return entries ? texts(entries.value()) : std::vector<std::string>{};
}

TEST(managed_cursor, an_earliest_cursor_reads_from_the_first_entry) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  add_entries(c, *ml, 5);
  auto* cursor = open_cursor(c, *ml, "sub", initial_position::earliest);
  EXPECT_EQ(read(c, *cursor, 3), names("e", 0, 3));
  EXPECT_EQ(read(c, *cursor), names("e", 3, 2));
  EXPECT_TRUE(read(c, *cursor).empty());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, a_latest_cursor_reads_only_entries_added_after_it_opened) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 3);
  auto* cursor = open_cursor(c, *ml, "sub", initial_position::latest);
  EXPECT_FALSE(call(c, [&] { return cursor->has_more_entries(); }));
  add_entries(c, *ml, 2, "e", 3);
  EXPECT_EQ(read(c, *cursor), names("e", 3, 2));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, individual_acks_that_close_the_gap_advance_the_mark_delete_position) {
  test_cluster c;
  auto ml = c.open("t");
  auto p = add_entries(c, *ml, 5);
  auto* cursor = open_cursor(c, *ml, "sub");
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[1]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[2]); }));
  EXPECT_EQ(cursor->mark_delete_position(), position(p[0].ledger(), entry_id(-1)));
  EXPECT_EQ(cursor->individually_deleted().size(), 2u);
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[0]); }));
  EXPECT_EQ(cursor->mark_delete_position(), p[2]);
  EXPECT_TRUE(cursor->individually_deleted().empty());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, acks_collapse_across_ledger_boundaries) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto p = add_entries(c, *ml, 4);
  auto* cursor = open_cursor(c, *ml, "sub");
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[2]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[3]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[1]); }));
  EXPECT_EQ(cursor->mark_delete_position(), p[3]);
  EXPECT_EQ(cursor->backlog(), 0u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, backlog_counts_entries_after_mark_delete_that_are_not_acked) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(3));
  auto* cursor = open_cursor(c, *ml, "sub");
  auto p = add_entries(c, *ml, 8);
  EXPECT_EQ(cursor->backlog(), 8u);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[1]); }));
  EXPECT_EQ(cursor->backlog(), 6u);
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[4]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[6]); }));
  EXPECT_EQ(cursor->backlog(), 4u);
  EXPECT_EQ(cursor->stats().backlog, 4u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, mark_delete_and_acked_ranges_survive_a_reopen) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(3));
  auto* cursor = open_cursor(c, *ml, "sub");
  auto p = add_entries(c, *ml, 7);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[1]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[3]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[5]); }));
  call(c, [&] {
    cursor->set_property("k", "v");
    return 0;
  });
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t", small_ledgers(3));
  auto* recovered = reopened->find_cursor("sub");
  ASSERT_NE(recovered, nullptr);
  EXPECT_EQ(recovered->mark_delete_position(), p[1]);
  EXPECT_TRUE(recovered->individually_deleted().contains(p[3]));
  EXPECT_TRUE(recovered->individually_deleted().contains(p[5]));
  EXPECT_EQ(recovered->properties().at("k"), "v");
  EXPECT_EQ(recovered->backlog(), 3u);
  EXPECT_EQ(read(c, *recovered), (std::vector<std::string>{"e2", "e4", "e6"}));
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_cursor, a_partly_acknowledged_batch_survives_a_reopen) {
  test_cluster c;
  auto ml = c.open("t");
  auto* cursor = open_cursor(c, *ml, "sub");
  auto p = add_entries(c, *ml, 3);
  call(c, [&] {
    cursor->set_batch_ack_set(p[1], {0b110});
    return 0;
  });
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t");
  auto* recovered = reopened->find_cursor("sub");
  ASSERT_NE(recovered, nullptr);
  ASSERT_NE(recovered->batch_ack_set(p[1]), nullptr);
  EXPECT_EQ(*recovered->batch_ack_set(p[1]), (std::vector<std::int64_t>{0b110}));
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_cursor, a_batch_acknowledged_whole_forgets_its_partial_state) {
  test_cluster c;
  auto ml = c.open("t");
  auto* cursor = open_cursor(c, *ml, "sub");
  auto p = add_entries(c, *ml, 4);
  call(c, [&] {
    cursor->set_batch_ack_set(p[1], {0b1});
    cursor->set_batch_ack_set(p[3], {0b1});
    return 0;
  });
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[1]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[3]); }));
  EXPECT_EQ(call(c, [&] { return cursor->batch_ack_set(p[1]); }), nullptr);
  EXPECT_EQ(call(c, [&] { return cursor->batch_ack_set(p[3]); }), nullptr);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, a_non_durable_cursor_is_not_persisted) {
  test_cluster c;
  auto ml = c.open("t");
  auto p = add_entries(c, *ml, 2);
  auto* cursor = open_cursor(c, *ml, "reader", initial_position::earliest, durability::non_durable);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[0]); }));
  ASSERT_TRUE(c.run(ml->close()));
  EXPECT_FALSE(c.run(c.store->exists(cursor_path("t", "reader"))).value());
  ml.reset();
  auto reopened = c.open("t");
  EXPECT_EQ(reopened->find_cursor("reader"), nullptr);
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_cursor, a_non_durable_cursor_does_not_hold_back_trimming) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  open_cursor(c, *ml, "reader", initial_position::earliest, durability::non_durable);
  add_entries(c, *ml, 4);
  ASSERT_TRUE(c.run(ml->trim()));
  EXPECT_EQ(call(c, [&] { return ml->ledgers().size(); }), 1u);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, rewind_redelivers_only_unacked_entries) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto p = add_entries(c, *ml, 5);
  auto* cursor = open_cursor(c, *ml, "sub");
  EXPECT_EQ(read(c, *cursor).size(), 5u);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[0]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[2]); }));
  call(c, [&] {
    cursor->rewind();
    return 0;
  });
  EXPECT_EQ(read(c, *cursor), (std::vector<std::string>{"e1", "e3", "e4"}));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, reset_moves_mark_delete_before_the_position_and_forgets_acks) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto p = add_entries(c, *ml, 5);
  auto* cursor = open_cursor(c, *ml, "sub");
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[3]); }));
  ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(p[4]); }));
  ASSERT_TRUE(c.run(cursor->reset(p[1])));
  EXPECT_EQ(cursor->read_position(), p[1]);
  EXPECT_EQ(cursor->mark_delete_position(), position(p[1].ledger(), entry_id(p[1].entry().value() - 1)));
  EXPECT_TRUE(cursor->individually_deleted().empty());
  EXPECT_EQ(cursor->backlog(), 4u);
  EXPECT_EQ(read(c, *cursor), names("e", 1, 4));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, reset_to_latest_and_earliest_seeks_to_the_ends) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  add_entries(c, *ml, 3);
  auto* cursor = open_cursor(c, *ml, "sub");
  ASSERT_TRUE(c.run(cursor->reset(position::latest())));
  EXPECT_EQ(cursor->backlog(), 0u);
  EXPECT_TRUE(read(c, *cursor).empty());
  ASSERT_TRUE(c.run(cursor->reset(position::earliest())));
  EXPECT_EQ(cursor->backlog(), 3u);
  EXPECT_EQ(read(c, *cursor), names("e", 0, 3));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, acks_are_persisted_by_the_tick_not_one_write_per_ack) {
  test_cluster c;
  auto ml = c.open("t");
  auto p = add_entries(c, *ml, 20);
  auto* cursor = open_cursor(c, *ml, "sub");
  const auto writes_at_open = cursor->stats().persists;
  for (const auto& pos : p) ASSERT_TRUE(call(c, [&] { return cursor->delete_entry(pos); }));
  EXPECT_EQ(cursor->stats().persists, writes_at_open);
  c.clock.advance(ml->config().tick_interval);
  ASSERT_TRUE(
      eventually(c, [&] { return !cursor->has_unpersisted_changes() && cursor->stats().persists > writes_at_open; }));
  EXPECT_EQ(cursor->stats().persists, writes_at_open + 1);
  auto stored = c.run(c.store->get(cursor_path("t", "sub"))).value();
  ASSERT_TRUE(stored);
  EXPECT_EQ(cursor_info_from_json(stored->value).value().mark_delete, p.back());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, acks_since_the_last_persist_are_redelivered_after_a_crash) {
  test_cluster c;
  auto ml = c.open("t");
  auto p = add_entries(c, *ml, 3);
  auto* cursor = open_cursor(c, *ml, "sub");
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[0]); }));
  ASSERT_TRUE(c.run(cursor->persist()));
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(p[2]); }));  // not persisted
  c.run(ml->abandon());
  ml.reset();

  auto reopened = c.open("t");
  EXPECT_EQ(read(c, *reopened->find_cursor("sub")), names("e", 1, 2));
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_cursor, delete_cursor_removes_its_metadata) {
  test_cluster c;
  auto ml = c.open("t");
  open_cursor(c, *ml, "sub");
  ASSERT_TRUE(c.run(c.store->exists(cursor_path("t", "sub"))).value());
  ASSERT_TRUE(c.run(ml->delete_cursor("sub")));
  EXPECT_EQ(ml->find_cursor("sub"), nullptr);
  EXPECT_FALSE(c.run(c.store->exists(cursor_path("t", "sub"))).value());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, an_ack_past_the_last_entry_is_an_invalid_position) {
  test_cluster c;
  auto ml = c.open("t");
  auto p = add_entries(c, *ml, 1);
  auto* cursor = open_cursor(c, *ml, "sub");
  auto refused = call(c, [&] { return cursor->mark_delete(p[0].next_in_ledger()); });
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::invalid_position);
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_cursor, wait_for_entries_completes_once_an_entry_is_added) {
  test_cluster c;
  auto ml = c.open("t");
  auto* cursor = open_cursor(c, *ml, "sub", initial_position::latest);
  bool woke = false;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::spawn(executor, [&]() -> awaitable<void> { woke = static_cast<bool>(co_await cursor->wait_for_entries()); });
    co_await ml->add_entry(bytes_of("x"));
  }());
  EXPECT_TRUE(eventually(c, [&] { return woke; }));
  EXPECT_EQ(read(c, *cursor), (std::vector<std::string>{"x"}));
  ASSERT_TRUE(c.run(ml->close()));
}

}  // namespace
}  // namespace magnetar::mledger
