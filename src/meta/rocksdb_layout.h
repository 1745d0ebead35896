// How rocksdb_store lays the metadata tree out in one RocksDB key space.
//
// Keys start with a one-byte kind so that each kind is a contiguous range:
//   'n' parent '\0' name      -> node record      (a node; the root has none)
//   'e' owner(8, big endian) path -> ""           (ephemeral nodes by session)
//   'q' path                  -> u64              (next sequential counter under path;
//                                                 kept when path is removed)
//   'm' name                  -> bytes            (store-wide values, below)
// Keying a node by its parent first makes a node's direct children one
// contiguous, name-sorted range ('n' parent '\0'), without their children:
// paths contain no NUL, so a grandchild's key has '/' where a child's has
// '\0'. All of a node's deeper descendants are the range 'n' path '/'.
//
// A node record is: format byte (1), version, created_ms, modified_ms, owner
// (each 8 bytes little endian), then the value's bytes.
// Pure functions; thread-safe.
#pragma once

#include "base/result.h"
#include "meta/types.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::meta::rocksdb_layout {

// Bumped when the layout of keys changes; a database of another layout is
// refused rather than misread.
inline constexpr std::uint64_t layout_version = 1;
inline constexpr std::uint8_t record_format = 1;

inline constexpr std::string_view layout_key = "mlayout";
// Bumped (durably) at every open: the high half of every session id made by
// that process, so ids never repeat across restarts.
inline constexpr std::string_view session_epoch_key = "msession_epoch";

struct node_record {
  std::int64_t version = 0;
  std::int64_t created_ms = 0;
  std::int64_t modified_ms = 0;
  session_id owner = no_session;
  std::string value;

  stat stat_for(std::string path) const;
};

std::string encode_record(const node_record& record);
// corrupt_record, naming `path`, when the bytes aren't a record of a known format.
result<node_record> decode_record(std::string_view path, std::string_view bytes);

std::string node_key(std::string_view path);
// The inverse of node_key.
std::string path_of_node_key(std::string_view key);
// The range of `path`'s direct children.
std::string children_prefix(std::string_view path);
// The range of `path`'s descendants below its children.
std::string deeper_prefix(std::string_view path);

std::string ephemeral_key(session_id owner, std::string_view path);
// The range of one session's ephemeral nodes, or of every session's.
std::string ephemeral_prefix(session_id owner);
inline constexpr std::string_view all_ephemerals_prefix = "e";
// The path in an ephemeral key, and its owner.
std::string path_of_ephemeral_key(std::string_view key);
session_id owner_of_ephemeral_key(std::string_view key);

std::string sequence_key(std::string_view parent);

std::string encode_u64(std::uint64_t value);
// corrupt_record naming `what` when the bytes aren't 8 long.
result<std::uint64_t> decode_u64(std::string_view what, std::string_view bytes);

// The first key after every key that starts with `prefix` (an iterator's
// upper bound). `prefix` must not be all 0xff bytes.
std::string prefix_end(std::string_view prefix);

}  // namespace magnetar::meta::rocksdb_layout
