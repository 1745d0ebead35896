#include "mledger/managed_ledger.h"

#include "io/oneshot_signal.h"
#include "io/run_on.h"
#include "mledger/errc.h"
#include "mledger/managed_cursor.h"
#include "mledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::mledger {
namespace {

using namespace testing;

TEST(managed_ledger_terminate, returns_the_last_position_and_refuses_later_adds) {
  test_cluster c;
  auto ml = c.open("t");
  auto positions = add_entries(c, *ml, 3);
  auto last = c.run(ml->terminate());
  ASSERT_TRUE(last) << last.error();
  EXPECT_EQ(last.value(), positions.back());
  EXPECT_TRUE(ml->is_terminated());
  auto refused = c.run(ml->add_entry(bytes_of("late")));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::terminated);
  EXPECT_EQ(refused.error().code().message(), "managed ledger terminated");
  EXPECT_EQ(texts(c.run(ml->read_entries(position::earliest(), 10)).value()), names("e", 0, 3));
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger_terminate, terminating_twice_returns_the_same_position) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 2);
  auto first = c.run(ml->terminate());
  auto second = c.run(ml->terminate());
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first.value(), second.value());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger_terminate, concurrent_terminates_agree_on_the_position) {
  test_cluster c;
  auto ml = c.open("t");
  add_entries(c, *ml, 2);
  std::vector<result<position>> outcomes;
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal both(executor);
    for (int i = 0; i < 2; ++i) {
      io::spawn(executor, [&]() -> awaitable<void> {
        outcomes.push_back(co_await ml->terminate());
        if (outcomes.size() == 2) both.fire();
      });
    }
    co_await both.wait();
  }());
  ASSERT_EQ(outcomes.size(), 2u);
  ASSERT_TRUE(outcomes[0] && outcomes[1]);
  EXPECT_EQ(outcomes[0].value(), outcomes[1].value());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger_terminate, adds_taken_before_it_complete_and_end_the_ledger) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(5));  // rollovers are under way while it terminates
  std::vector<result<position>> adds;
  result<position> terminated = position::earliest();
  c.run([&]() -> awaitable<void> {
    auto executor = co_await asio::this_coro::executor;
    io::oneshot_signal all_done(executor);
    const int count = 20;
    // io::spawn posts: the adds start, in order, before terminate() does.
    for (int i = 0; i < count; ++i) {
      io::spawn(executor, [&, i]() -> awaitable<void> {
        adds.push_back(co_await ml->add_entry(bytes_of("p" + std::to_string(i))));
        if (adds.size() == count + 1u) all_done.fire();
      });
    }
    io::spawn(executor, [&]() -> awaitable<void> {
      terminated = co_await ml->terminate();
      adds.push_back(terminated);
      if (adds.size() == count + 1u) all_done.fire();
    });
    co_await all_done.wait();
  }());
  ASSERT_TRUE(terminated) << terminated.error();
  position last_added = position::earliest();
  for (const auto& a : adds) {
    ASSERT_TRUE(a) << a.error();
    last_added = std::max(last_added, a.value());
  }
  EXPECT_EQ(terminated.value(), last_added);
  EXPECT_EQ(ml->last_confirmed(), last_added);
  EXPECT_EQ(texts(c.run(ml->read_entries(position::earliest(), 100)).value()), names("p", 0, 20));
  // The ledger created for writes after the last rollover held nothing: it is gone.
  EXPECT_EQ(call(c, [&] { return ml->ledgers().back().id; }), last_added.ledger());
  ASSERT_TRUE(c.run(ml->close()));
}

TEST(managed_ledger_terminate, the_terminated_state_survives_a_reopen) {
  test_cluster c;
  auto ml = c.open("t", small_ledgers(2));
  auto positions = add_entries(c, *ml, 5);
  auto last = c.run(ml->terminate());
  ASSERT_TRUE(last);
  const auto ledgers = call(c, [&] { return ml->ledgers(); });
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t", small_ledgers(2));
  EXPECT_TRUE(reopened->is_terminated());
  EXPECT_EQ(reopened->last_confirmed(), positions.back());
  // No ledger was created for writes.
  EXPECT_EQ(call(c, [&] { return reopened->ledgers().size(); }), ledgers.size());
  auto refused = c.run(reopened->add_entry(bytes_of("late")));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::terminated);
  EXPECT_EQ(c.run(reopened->terminate()).value(), last.value());
  EXPECT_EQ(texts(c.run(reopened->read_entries(position::earliest(), 10)).value()), names("e", 0, 5));
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger_terminate, the_terminated_state_survives_a_crash) {
  test_cluster c;
  auto ml = c.open("t");
  auto positions = add_entries(c, *ml, 4);
  ASSERT_TRUE(c.run(ml->terminate()));
  c.run(ml->abandon());  // the broker dies with the bookies
  ml.reset();
  c.crash_and_restart_bookies();

  auto reopened = c.open("t");
  EXPECT_TRUE(reopened->is_terminated());
  EXPECT_EQ(reopened->last_confirmed(), positions.back());
  EXPECT_EQ(c.run(reopened->add_entry(bytes_of("late"))).error(), errc::terminated);
  EXPECT_EQ(texts(c.run(reopened->read_entries(position::earliest(), 10)).value()), names("e", 0, 4));
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger_terminate, an_empty_managed_ledger_terminates_before_its_first_entry) {
  test_cluster c;
  auto ml = c.open("t");
  auto last = c.run(ml->terminate());
  ASSERT_TRUE(last) << last.error();
  EXPECT_EQ(last.value().entry(), entry_id(-1));
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t");
  EXPECT_TRUE(reopened->is_terminated());
  EXPECT_EQ(reopened->last_confirmed(), last.value());
  EXPECT_TRUE(c.run(reopened->read_entries(position::earliest(), 10)).value().empty());
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger_terminate, cursors_read_and_acknowledge_after_it) {
  test_cluster c;
  auto ml = c.open("t");
  auto* cursor = c.run(ml->open_cursor("sub", initial_position::earliest)).value();
  auto positions = add_entries(c, *ml, 3);
  ASSERT_TRUE(c.run(ml->terminate()));
  auto read = c.run(cursor->read_entries(10)).value();
  EXPECT_EQ(texts(read), names("e", 0, 3));
  EXPECT_FALSE(cursor->has_more_entries());
  EXPECT_EQ(cursor->backlog(), 3u);
  ASSERT_TRUE(call(c, [&] { return cursor->mark_delete(positions.back()); }));
  EXPECT_EQ(cursor->backlog(), 0u);
  ASSERT_TRUE(c.run(ml->flush_cursors()));
  ASSERT_TRUE(c.run(ml->close()));
  ml.reset();

  auto reopened = c.open("t");
  auto* again = reopened->find_cursor("sub");
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(again->mark_delete_position(), positions.back());
  EXPECT_EQ(again->backlog(), 0u);
  ASSERT_TRUE(c.run(reopened->close()));
}

TEST(managed_ledger_terminate, a_closed_managed_ledger_cannot_be_terminated) {
  test_cluster c;
  auto ml = c.open("t");
  ASSERT_TRUE(c.run(ml->close()));
  auto refused = c.run(ml->terminate());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), errc::closed);
}

}  // namespace
}  // namespace magnetar::mledger
