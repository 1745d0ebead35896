// How the entry index lays its records out in one RocksDB key space.
//
// Keys are a one-byte kind and fixed-width big-endian numbers, so that they
// sort as the numbers do (ids are never negative):
//   'e' ledger(8) entry(8) -> location: log u64 | offset u64 | payload length u32
//   's' ledger(8)          -> ledger state: format u8 (1) | flags u8 (1 fenced, 2 deleted)
//                             | last add confirmed i64
//   'l' log(8)             -> committed end u64 of an entry log; all ones once removed
//   'v'                    -> layout version u64
// A ledger's locations are one contiguous range in entry order: its last
// entry is found by one seek, and deleting a ledger is one range delete.
// Pure functions; thread-safe.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_location.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::bookie {

// What the index keeps of a ledger's state. The last entry is not kept: the
// locations say it.
struct stored_ledger_state {
  bool fenced = false;
  bool deleted = false;
  entry_id last_add_confirmed{-1};

  friend bool operator==(const stored_ledger_state&, const stored_ledger_state&) = default;
};

namespace index_layout {

inline constexpr std::uint64_t layout_version = 1;
inline constexpr std::string_view layout_key = "v";
inline constexpr std::string_view state_prefix = "s";
inline constexpr std::string_view log_prefix = "l";
inline constexpr std::uint64_t removed_log = ~std::uint64_t{0};

std::string location_key(ledger_id ledger, entry_id entry);
// Every location key of `ledger` lies in [ledger_begin, ledger_end).
std::string ledger_begin(ledger_id ledger);
std::string ledger_end(ledger_id ledger);
// corrupt_record unless `key` is a location key.
result<std::pair<ledger_id, entry_id>> decode_location_key(std::string_view key);

std::string encode_location(const entry_location& location);
// corrupt_record naming the entry when the bytes aren't a location.
result<entry_location> decode_location(ledger_id ledger, entry_id entry, std::string_view bytes);

std::string state_key(ledger_id ledger);
result<ledger_id> decode_state_key(std::string_view key);
std::string encode_state(const stored_ledger_state& state);
result<stored_ledger_state> decode_state(ledger_id ledger, std::string_view bytes);

std::string log_key(entry_log_id log);
result<entry_log_id> decode_log_key(std::string_view key);

std::string encode_u64(std::uint64_t value);
// corrupt_record naming `what` when the bytes aren't 8 long.
result<std::uint64_t> decode_u64(std::string_view what, std::string_view bytes);

}  // namespace index_layout
}  // namespace magnetar::bookie
