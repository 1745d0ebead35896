#include "bookie/journal_format.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace magnetar::bookie {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) { return std::as_bytes(std::span(text)); }

constexpr std::uint64_t sequence = 5;

// Records as the writer leaves them in file `sequence`.
void append(std::vector<std::byte>& bytes, const journal_record& record) {
  const auto start = bytes.size();
  append_journal_record(bytes, record);
  stamp_journal_salt(std::span(bytes).subspan(start), journal_salt(sequence));
}

std::vector<journal_record> scan_all(std::span<const std::byte> bytes, journal_scan* scan_out = nullptr,
                                     std::optional<std::uint32_t> salt = journal_salt(sequence)) {
  std::vector<journal_record> seen;
  auto scan = scan_journal_records(bytes, salt, [&](const journal_record& r) { seen.push_back(r); });
  if (scan_out) *scan_out = scan;
  return seen;
}

TEST(journal_format, records_decode_in_order_with_their_fields) {
  std::vector<std::byte> bytes;
  append(bytes, {journal_record_type::add_entry, ledger_id(7), entry_id(0), entry_id(-1), bytes_of("a")});
  append(bytes, {journal_record_type::fence, ledger_id(7), entry_id(-1), entry_id(0), {}});
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
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("x")});
  const auto records_size = bytes.size();
  bytes.resize(bytes.size() + 4096);
  journal_scan scan;
  EXPECT_EQ(scan_all(bytes, &scan).size(), 1u);
  EXPECT_TRUE(scan.clean_end);
  EXPECT_EQ(scan.valid_bytes, records_size);
}

TEST(journal_format, every_truncation_of_the_last_record_is_cut_not_served) {
  std::vector<std::byte> bytes;
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("first")});
  const auto first_size = bytes.size();
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(1), entry_id(0), bytes_of("second")});
  for (std::size_t cut = first_size + 1; cut < bytes.size(); ++cut) {
    journal_scan scan;
    auto seen = scan_all(std::span(bytes).first(cut), &scan);
    ASSERT_EQ(seen.size(), 1u) << "cut at " << cut;
    EXPECT_EQ(scan.valid_bytes, first_size);
  }
}

TEST(journal_format, a_flipped_byte_ends_the_records_at_that_record) {
  std::vector<std::byte> bytes;
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("first")});
  const auto first_size = bytes.size();
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(1), entry_id(0), bytes_of("second")});
  bytes[first_size + 12] ^= std::byte{0x40};
  journal_scan scan;
  EXPECT_EQ(scan_all(bytes, &scan).size(), 1u);
  EXPECT_FALSE(scan.clean_end);
}

TEST(journal_format, records_of_an_older_use_of_the_file_end_the_records) {
  std::vector<std::byte> bytes;
  append(bytes, {journal_record_type::add_entry, ledger_id(1), entry_id(0), entry_id(-1), bytes_of("now")});
  const auto current = bytes.size();
  // A record left by the file's use as sequence 3, intact but for another salt.
  std::vector<std::byte> stale;
  append_journal_record(stale,
                        {journal_record_type::add_entry, ledger_id(9), entry_id(4), entry_id(3), bytes_of("old")});
  stamp_journal_salt(stale, journal_salt(3));
  bytes.insert(bytes.end(), stale.begin(), stale.end());
  journal_scan scan;
  auto seen = scan_all(bytes, &scan);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].ledger, ledger_id(1));
  EXPECT_EQ(scan.valid_bytes, current);
}

TEST(journal_format, a_salt_stamped_into_a_group_reaches_every_record) {
  std::vector<std::byte> group;
  for (int i = 0; i < 3; ++i) {
    append_journal_record(group, {journal_record_type::add_entry, ledger_id(1), entry_id(i), entry_id(i - 1),
                                  bytes_of(std::string(static_cast<std::size_t>(10 * i), 'p'))});
  }
  stamp_journal_salt(group, journal_salt(sequence));
  EXPECT_EQ(scan_all(group).size(), 3u);
  EXPECT_EQ(scan_all(group, nullptr, journal_salt(sequence + 1)).size(), 0u);
}

TEST(journal_format, version_1_records_without_a_salt_still_read) {
  // u32 body length | u32 crc32c(body) | body, as version 1 wrote them.
  std::vector<std::byte> salted;
  append_journal_record(salted,
                        {journal_record_type::add_entry, ledger_id(2), entry_id(0), entry_id(-1), bytes_of("v1")});
  std::vector<std::byte> v1(salted.begin(), salted.begin() + 8);
  v1.insert(v1.end(), salted.begin() + 12, salted.end());
  const auto seen = scan_all(v1, nullptr, std::nullopt);
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].ledger, ledger_id(2));
}

TEST(journal_format, consecutive_sequences_have_distinct_salts) {
  for (std::uint64_t s = 1; s < 1000; ++s) EXPECT_NE(journal_salt(s), journal_salt(s + 1));
}

TEST(journal_format, header_round_trips_and_rejects_other_files) {
  const auto header = decode_journal_header(encode_journal_header(42)).value();
  EXPECT_EQ(header.sequence, 42u);
  EXPECT_EQ(header.salt, journal_salt(42));
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
