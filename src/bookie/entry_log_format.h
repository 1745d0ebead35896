// The bytes of an entry log file. All integers are big-endian.
//
//   file header (32 bytes):  "MGEL" | version u32 (1) | log id u64 | zero (12) | crc32c of bytes 0..28
//   record (24 + n bytes):   crc32c u32 | n u32 | ledger i64 | entry i64 | payload (n bytes)
//                            the crc covers n, ledger, entry and payload, so a torn or
//                            flipped record of any kind fails it
//   footer, once sealed:     a ledger-map record (ledger -1, entry -2) whose payload is
//                            (ledger i64, bytes u64) pairs, then the trailer (16 bytes):
//                            map offset u64 | "MGLM" | crc32c of the trailer's first 12 bytes
//
// Records follow the header back to back; a record's location is the offset
// of its first byte. Data records have ledger and entry >= 0. The footer lets
// a restart learn a log's ledgers without reading the whole log; a log
// without an intact footer is scanned instead.
// Pure functions; thread-safe.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_location.h"
#include "bookie/entry_log_metadata.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace magnetar::bookie::entry_log_format {

inline constexpr std::uint32_t format_version = 1;
inline constexpr std::size_t file_header_size = 32;
inline constexpr std::size_t record_header_size = 24;
inline constexpr std::size_t trailer_size = 16;
// The ids that mark the ledger-map record of a footer.
inline constexpr std::int64_t map_ledger = -1;
inline constexpr std::int64_t map_entry = -2;
// A record's payload length is a u32; entries are far smaller in practice.
inline constexpr std::uint64_t max_payload = 0xffff'ffffu;

std::array<std::byte, file_header_size> encode_file_header(entry_log_id id);
// corrupt_record (naming `path`) unless the bytes are the header of log `id`.
result<void> check_file_header(std::string_view path, entry_log_id id, std::span<const std::byte> bytes);

struct record_header {
  std::uint32_t crc = 0;
  std::uint32_t length = 0;
  std::int64_t ledger = 0;
  std::int64_t entry = 0;
};

// Writes the 24-byte header of a record holding `payload` to `out`.
void encode_record_header(std::byte* out, std::int64_t ledger, std::int64_t entry, std::span<const std::byte> payload);
record_header decode_record_header(const std::byte* in);
// Whether `payload` is what the header's crc was computed over.
bool record_intact(const std::byte* header, std::span<const std::byte> payload);

// The footer: the ledger-map record followed by the trailer, for a log whose
// data records end at `data_end`.
std::vector<std::byte> encode_footer(std::uint64_t data_end, const entry_log_metadata& metadata);
// The map record's offset, when `trailer` is an intact trailer.
std::optional<std::uint64_t> decode_trailer(std::span<const std::byte> trailer);
// corrupt_record (naming `path`) when the map payload is not whole pairs.
result<entry_log_metadata> decode_ledger_map(std::string_view path, std::span<const std::byte> payload);

}  // namespace magnetar::bookie::entry_log_format
