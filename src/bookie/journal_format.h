// The journal's on-disk format: a file header, then records, then an end marker.
//
//   file:   header (32 bytes) | record | record | ... | end marker | anything
//   header: "MGJ1" | u32 format version | u64 file sequence | 16 reserved bytes
//   record: u32 body length | u32 crc32c(body) | u32 file salt | body
//   body:   u8 type | i64 ledger | i64 entry | i64 last add confirmed | payload
// Integers are little-endian. A body length of 0 (the end marker: four zero bytes,
// written after every group and overwritten by the next) ends the records. Journal
// files are reused once reclaimed, so what follows the end marker may be an older
// use's records: the salt, derived from the file sequence, tells this file's records
// from those. A record whose length runs past the file, whose checksum fails or whose
// salt is another file's is a torn tail and ends the file's records.
// Version 1 files (no salt field; never reused) are still read.
// Pure functions; thread-safe.
#pragma once

#include "base/ids.h"
#include "base/result.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace magnetar::bookie {

enum class journal_record_type : std::uint8_t {
  add_entry = 1,  // an entry of a ledger
  fence = 2,      // the ledger takes no more adds
};

struct journal_record {
  journal_record_type type = journal_record_type::add_entry;
  ledger_id ledger;
  entry_id entry{-1};
  entry_id last_add_confirmed{-1};
  std::span<const std::byte> payload;
};

inline constexpr std::size_t journal_header_size = 32;
inline constexpr std::size_t journal_record_overhead = 12 + 1 + 3 * 8;
inline constexpr std::size_t journal_end_marker_size = 4;
// The writer pads each group with zeros to a page boundary (see journal::write_group).
inline constexpr std::uint64_t journal_page_size = 4096;
inline constexpr std::uint32_t journal_format_version = 2;

// What a file's header says: its sequence, and the salt its records carry (none in
// version 1 files).
struct journal_header {
  std::uint64_t sequence = 0;
  std::optional<std::uint32_t> salt;
};

std::uint32_t journal_salt(std::uint64_t file_sequence);
std::vector<std::byte> encode_journal_header(std::uint64_t file_sequence);
// corrupt_record when the bytes are not a journal header of a version this build reads.
result<journal_header> decode_journal_header(std::span<const std::byte> header);

// Appends the record's encoding to `out`, with a zero salt: the writer stamps the salt
// of the file the record lands in (stamp_journal_salt), which is known only then.
void append_journal_record(std::vector<std::byte>& out, const journal_record& record);
// Writes `salt` into every record of `records` (whole records, back to back).
void stamp_journal_salt(std::span<std::byte> records, std::uint32_t salt);

// Reads the records of a journal file's bytes (after the header), in order,
// stopping at the end marker or at the first torn or corrupt record. Returns
// how many bytes of records were valid; `clean_end` tells whether the scan
// ended at the end marker or the end of the bytes (true) or at a bad record.
struct journal_scan {
  std::size_t valid_bytes = 0;
  std::size_t records = 0;
  bool clean_end = true;
};
template <class Visit>
journal_scan scan_journal_records(std::span<const std::byte> bytes, std::optional<std::uint32_t> salt, Visit&& visit);

std::string journal_file_name(std::uint64_t file_sequence);
// The sequence in a journal file's name, or nullopt for another file.
std::optional<std::uint64_t> parse_journal_file_name(const std::string& name);

namespace detail {
// One record at the start of `bytes`: its total size, or 0 at the end marker,
// or nullopt when torn, corrupt or of another salt.
std::optional<std::size_t> decode_journal_record(std::span<const std::byte> bytes, std::optional<std::uint32_t> salt,
                                                 journal_record& out);
}  // namespace detail

template <class Visit>
journal_scan scan_journal_records(std::span<const std::byte> bytes, std::optional<std::uint32_t> salt, Visit&& visit) {
  journal_scan scan;
  while (scan.valid_bytes < bytes.size()) {
    journal_record record;
    auto size = detail::decode_journal_record(bytes.subspan(scan.valid_bytes), salt, record);
    if (!size) {
      scan.clean_end = false;
      break;
    }
    if (*size == 0) break;
    visit(record);
    scan.valid_bytes += *size;
    ++scan.records;
  }
  return scan;
}

}  // namespace magnetar::bookie
