#include "ledger/entry_header.h"

#include "ledger/errc.h"
#include "ledger_test_cluster.h"

#include <gtest/gtest.h>

namespace magnetar::ledger {
namespace {

using testing::bytes_of;
using testing::text_of;

TEST(entry_header, carries_the_ledger_length_before_the_payload) {
  const auto stored = with_entry_header(1'000'000'007, bytes_of("payload"));
  EXPECT_EQ(stored.size(), entry_header_size + 7);
  EXPECT_EQ(ledger_length_of(stored).value(), 1'000'000'007u);
  EXPECT_EQ(text_of(payload_of(stored).value()), "payload");
}

TEST(entry_header, an_empty_payload_keeps_its_header) {
  const auto stored = with_entry_header(42, {});
  EXPECT_EQ(ledger_length_of(stored).value(), 42u);
  EXPECT_TRUE(payload_of(stored).value().empty());
}

TEST(entry_header, an_entry_too_short_for_a_header_is_a_bad_entry) {
  const auto stored = bytes_of("short");
  EXPECT_EQ(payload_of(stored).error(), errc::bad_entry);
  EXPECT_EQ(ledger_length_of(stored).error(), errc::bad_entry);
}

}  // namespace
}  // namespace magnetar::ledger
