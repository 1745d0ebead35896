#include "base/ids.h"

#include <gtest/gtest.h>

#include <type_traits>
#include <unordered_set>

namespace magnetar {
namespace {

TEST(strong_id, ids_of_different_kinds_do_not_convert) {
  static_assert(!std::is_convertible_v<ledger_id, entry_id>);
  static_assert(!std::is_convertible_v<std::int64_t, ledger_id>);
  static_assert(std::is_constructible_v<ledger_id, std::int64_t>);
}

TEST(strong_id, compares_by_value) {
  EXPECT_LT(ledger_id(3), ledger_id(4));
  EXPECT_EQ(entry_id(-1), entry_id(-1));
  EXPECT_NE(entry_id(0), entry_id(1));
}

TEST(strong_id, hashes_and_formats_as_its_number) {
  std::unordered_set<ledger_id> ids{ledger_id(1), ledger_id(2), ledger_id(1)};
  EXPECT_EQ(ids.size(), 2u);
  EXPECT_EQ(fmt::format("{}:{}", ledger_id(12), entry_id(-1)), "12:-1");
}

}  // namespace
}  // namespace magnetar
