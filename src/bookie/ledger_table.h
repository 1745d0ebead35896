// ledger_table: what the bookie knows about each ledger it stores, in memory
// (BookKeeper's LedgerMetadataIndex and its transient last-add-confirmed).
//
// Loaded from the entry index at open, so adds and reads learn a ledger's
// state without a disk access. A fence or a higher last-add-confirmed marks
// the ledger dirty; the next flush writes the dirty states in its index batch
// (take_dirty). A deletion is applied here only once it is durable in the
// index, and ledger_storage takes dirty states and writes deletions under one
// lock, so no flush can write a ledger's older state over its tombstone.
// Deleted ledgers stay as tombstones: adds to them keep failing.
// Thread-safe.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_index_layout.h"

#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace magnetar::bookie {

struct ledger_view {
  bool fenced = false;
  bool deleted = false;
  entry_id last_add_confirmed{-1};
  entry_id last_added{-1};  // the highest entry added since open
  // The highest entry the index held at open; unknown until looked up once.
  std::optional<entry_id> last_at_open;
};

class ledger_table {
 public:
  void load(ledger_id ledger, const stored_ledger_state& state);
  // Remembers the index's answer, so that state() seeks once per ledger per process.
  void set_last_at_open(ledger_id ledger, entry_id last);

  std::optional<ledger_view> find(ledger_id ledger) const;
  bool is_deleted(ledger_id ledger) const;
  std::unordered_set<ledger_id> deleted() const;

  // Before an add reaches the write cache: ledger_deleted for a deleted
  // ledger; creates a new one, dirty, so that the flush that writes the
  // add's location writes the ledger's state too.
  result<void> prepare_add(ledger_id ledger);
  // Counts an add that reached the write cache. Nothing changes for a ledger
  // deleted meanwhile.
  void record_add(ledger_id ledger, entry_id entry, entry_id last_add_confirmed);
  // Creates the ledger when new; ledger_deleted for a deleted one.
  result<void> fence(ledger_id ledger);
  // The state the index should keep once `ledger` is deleted.
  stored_ledger_state tombstone(ledger_id ledger) const;
  void mark_deleted(ledger_id ledger);

  // The states changed since the last call, for a flush to write.
  std::vector<std::pair<ledger_id, stored_ledger_state>> take_dirty();
  // Puts back what a failed flush took; current values are written next time.
  void mark_dirty(const std::vector<std::pair<ledger_id, stored_ledger_state>>& states);

 private:
  struct record {
    stored_ledger_state stored;
    entry_id last_added{-1};
    // Ledgers created since open had nothing in the index: known at once.
    std::optional<entry_id> last_at_open = entry_id(-1);
  };

  mutable std::mutex _mutex;
  std::unordered_map<ledger_id, record> _ledgers;
  std::unordered_set<ledger_id> _dirty;
};

}  // namespace magnetar::bookie
