// Where a flushed entry lives: which entry log, at which offset, how long;
// and what the index knows of each entry log.
//
// The entry index maps (ledger, entry) to a location; the entry log reads the
// record there and checks that it is the one asked for. Plain values.
#pragma once

#include "base/strong_id.h"

#include <cstdint>

namespace magnetar::bookie {

// Entry logs are numbered from 1 in creation order; an id is never reused,
// so a stale location can never name a newer log.
using entry_log_id = base::strong_id<struct entry_log_id_tag, std::uint64_t>;

struct entry_location {
  entry_log_id log;
  std::uint64_t offset = 0;  // of the record's header in the log
  std::uint32_t length = 0;  // of the payload; kept so that a read is one pread

  friend bool operator==(const entry_location&, const entry_location&) = default;
};

// What the entry index records about one entry log.
struct indexed_log {
  std::uint64_t committed_end = 0;  // the index may point at records before this offset
  bool removed = false;             // garbage collection removed it
};

}  // namespace magnetar::bookie
