// Entry counting across a managed ledger's chain of ledgers.
#include "broker/topic/cursor_moves.h"
#include "mledger/tests/mledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

using namespace mledger::testing;

class cursor_moves_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ml = cluster.open("t/ns/persistent/moves", small_ledgers(3));
    ASSERT_TRUE(ml);
    at = add_entries(cluster, *ml, 7);  // three ledgers: 3 + 3 + 1 entries
    ASSERT_EQ(at.size(), 7u);
  }
  void TearDown() override { EXPECT_TRUE(cluster.run(ml->close())); }

  test_cluster cluster;
  std::unique_ptr<mledger::managed_ledger> ml;
  std::vector<mledger::position> at;
};

TEST_F(cursor_moves_test, entry_before_crosses_back_into_the_previous_ledger) {
  EXPECT_EQ(entry_before(*ml, at[3]), at[2]);
  EXPECT_EQ(entry_before(*ml, at[5]), at[4]);
  EXPECT_EQ(entry_before(*ml, at[0]), mledger::position::earliest());
}

TEST_F(cursor_moves_test, entry_after_counts_across_ledgers_and_stops_at_the_last) {
  EXPECT_EQ(entry_after(*ml, at[0], 1), at[1]);
  EXPECT_EQ(entry_after(*ml, at[1], 3), at[4]);
  EXPECT_EQ(entry_after(*ml, mledger::position::earliest(), 1), at[0]);
  EXPECT_EQ(entry_after(*ml, at[2], 100), at[6]);
}

TEST_F(cursor_moves_test, the_deduplication_cursor_is_no_subscription) {
  ASSERT_TRUE(cluster.run(ml->open_cursor(std::string(dedup_cursor_name))));
  ASSERT_TRUE(cluster.run(ml->open_cursor("sub")));
  auto cursors = subscription_cursors(*ml);
  ASSERT_EQ(cursors.size(), 1u);
  EXPECT_EQ(cursors.front()->name(), "sub");
}

}  // namespace
}  // namespace magnetar::broker
