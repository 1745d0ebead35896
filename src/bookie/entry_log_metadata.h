// entry_log_metadata: which ledgers one entry log holds and how many bytes of
// the log each one's records take (BookKeeper's EntryLogMetadata).
//
// Garbage collection needs it to decide, without reading the log, whether a
// log holds nothing live (remove it) or little (compact it). It is built as
// records are synced, written into the log's footer when the log is sealed,
// and rebuilt by scanning a log that has no intact footer.
// A value type; not shared between threads unless copied.
#pragma once

#include "base/ids.h"

#include <cstdint>
#include <unordered_map>

namespace magnetar::bookie {

class entry_log_metadata {
 public:
  // `bytes` is the whole record (header and payload): what removing it frees.
  void add(ledger_id ledger, std::uint64_t bytes) {
    _ledgers[ledger] += bytes;
    _total += bytes;
  }
  void merge(const entry_log_metadata& other) {
    for (const auto& [ledger, bytes] : other._ledgers) add(ledger, bytes);
  }

  bool empty() const { return _ledgers.empty(); }
  std::uint64_t total_bytes() const { return _total; }
  const std::unordered_map<ledger_id, std::uint64_t>& ledgers() const { return _ledgers; }

  // Bytes of the ledgers for which `is_live(ledger)` holds.
  template <class Pred>
  std::uint64_t live_bytes(Pred&& is_live) const {
    std::uint64_t live = 0;
    for (const auto& [ledger, bytes] : _ledgers) {
      if (is_live(ledger)) live += bytes;
    }
    return live;
  }

  friend bool operator==(const entry_log_metadata&, const entry_log_metadata&) = default;

 private:
  std::unordered_map<ledger_id, std::uint64_t> _ledgers;
  std::uint64_t _total = 0;
};

}  // namespace magnetar::bookie
