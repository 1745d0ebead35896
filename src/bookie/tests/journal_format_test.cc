#include "bookie/journal_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace magnetar::bookie {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) { return std::as_bytes(std::span(text)); }

std::vector<journal_record> scan_all(std::span<const std::byte> bytes, journal_scan* scan_out = nullptr) {
  std::vector<journal_record> seen;
  auto scan = scan_journal_records(bytes, [&](const journal_record& r) { seen.push_back(r); });
  if (scan_out) *scan_out = scan;
  return seen;
}

TEST(journal_format, records_decode_in_order_with_their_fields) {
  std::vector<std::byte> bytes;
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(7), entry_id(0), entry_id(-1), bytes_of("a")});
  append_journal_record(bytes, {journal_record_type::fence, ledger_id(7), entry_id(-1), entry_id(0), {}});
  journal_scan scan;
  auto seen = scan_all(bytes, &scan);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].ledger, ledger_id(7));
  EXPECT_EQ(seen[0].entry, entry_id(0));
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(seen[0].payload.data()), seen[0].payload.size()), "a");
  EXPECT_EQ(seen[1].type, journal_record_type::fence);
  EXPECT_EQ(seen[1].last_add_confirmed, entry_id(0));
  EXPECT_TRUE(scan.clean_end);
  EXPECT_EQ(scan.valid_bytes, bytes.size());
}

TEST(journal_format, zeros_after_the_records_are_a_clean_end) {
  std::vector<std::byte> bytes;
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("x")});
  const auto records_size = bytes.size();
  bytes.resize(bytes.size() + 4096);
  journal_scan scan;
  EXPECT_EQ(scan_all(bytes, &scan).size(), 1u);
  EXPECT_TRUE(scan.clean_end);
  EXPECT_EQ(scan.valid_bytes, records_size);
}

TEST(journal_format, every_truncation_of_the_last_record_is_cut_not_served) {
  std::vector<std::byte> bytes;
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("first")});
  const auto first_size = bytes.size();
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(1), entry_id(0), bytes_of("second")});
  for (std::size_t cut = first_size + 1; cut < bytes.size(); ++cut) {
    journal_scan scan;
    auto seen = scan_all(std::span(bytes).first(cut), &scan);
    ASSERT_EQ(seen.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(scan.valid_bytes, first_size);
  }
}

TEST(journal_format, a_flipped_byte_ends_the_records_at_that_record) {
  std::vector<std::byte> bytes;
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("first")});
  const auto first_size = bytes.size();
  append_journal_record(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(1), entry_id(0), bytes_of("second")});
  bytes[first_size + 12] ^= std::byte{0x40};
  journal_scan scan;
  EXPECT_EQ(scan_all(bytes, &scan).size(), 1u);
  EXPECT_FALSE(scan.clean_end);
}

TEST(journal_format, header_round_trips_and_rejects_other_files) {
  EXPECT_EQ(decode_journal_header(encode_journal_header(42)).value(), 42u);
  std::vector<std::byte> other(journal_header_size, std::byte{'x'});
  EXPECT_FALSE(decode_journal_header(other));
}

TEST(journal_format, file_names_sort_by_sequence_and_parse_back) {
  EXPECT_LT(journal_file_name(9), journal_file_name(10));
  EXPECT_EQ(parse_journal_file_name(journal_file_name(0xabc)).value(), 0xabcu);
  EXPECT_FALSE(parse_journal_file_name("journal-xyz.log"));
  EXPECT_FALSE(parse_journal_file_name("checkpoint"));
}

}  // namespace
}  // namespace magnetar::bookie
