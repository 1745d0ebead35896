// entry_header: the bytes the ledger client puts before each entry's payload
// on the bookies, so that a ledger recovered after its writer died knows its
// length (docs/adr/0006-entry-header-carries-ledger-length.md).
//
// Format 1 (ledger_metadata::entry_format == 1), 8 bytes, then the payload:
//
//   offset 0  u64 big-endian  the ledger's length through this entry: the sum
//                             of the payload sizes of entries 0..this one
//
// BookKeeper's entries carry the same running length in their digest header.
// Bookies store the header with the payload and never look inside; copying
// an entry from bookie to bookie (recovery, re-replication) keeps it. Ledgers
// of format 0 (made before the header) hold bare payloads.
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "wire/shared_bytes.h"

#include <cstddef>
#include <cstdint>

namespace magnetar::ledger {

inline constexpr int current_entry_format = 1;
inline constexpr std::size_t entry_header_size = 8;

// A new buffer: the header saying `ledger_length`, then `payload`.
wire::shared_bytes with_entry_header(std::uint64_t ledger_length, const wire::shared_bytes& payload);

// What a stored entry's header says, or bad_entry when it is too short to hold one.
result<std::uint64_t> ledger_length_of(const wire::shared_bytes& stored);

// The payload of a stored entry (a slice, no copy), or bad_entry.
result<wire::shared_bytes> payload_of(const wire::shared_bytes& stored);

}  // namespace magnetar::ledger
