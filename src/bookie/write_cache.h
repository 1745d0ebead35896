// write_cache: entries added since the last flush, in memory (BookKeeper's
// WriteCache), readable at once.
//
// ledger_storage keeps two: the current one, which takes adds, and the one
// being flushed, which a flush swaps out and then only reads. A cache is
// bounded by payload bytes: put() refuses an entry that would pass the bound,
// and the storage then flushes to make room. Payloads are held by reference
// (shared_bytes), not copied, so the bound counts the bytes the entries name;
// a payload sliced from a larger buffer keeps that buffer alive until the
// flush.
// Thread-safe: puts, gets and removals may come from any thread.
#pragma once

#include "base/ids.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

namespace magnetar::bookie {

class write_cache {
 public:
  struct cached_entry {
    ledger_id ledger;
    entry_id entry;
    wire::shared_bytes payload;
  };

  explicit write_cache(std::uint64_t max_bytes) : _max_bytes(max_bytes) {}
  write_cache(const write_cache&) = delete;
  write_cache& operator=(const write_cache&) = delete;

  // Stores the entry, replacing one with the same ids. False, storing
  // nothing, when the cache would then hold more than max_bytes.
  bool put(ledger_id ledger, entry_id entry, wire::shared_bytes payload);
  std::optional<wire::shared_bytes> get(ledger_id ledger, entry_id entry) const;
  // Forgets the ledger's entries (it was deleted before they were flushed).
  void remove_ledger(ledger_id ledger);

  // Every entry, sorted by (ledger, entry): a flush writes them in this order
  // so that a ledger's entries sit together in the entry log.
  std::vector<cached_entry> sorted_entries() const;

  std::uint64_t max_bytes() const { return _max_bytes; }
  std::uint64_t bytes() const;
  std::size_t count() const;
  bool empty() const { return count() == 0; }

 private:
  const std::uint64_t _max_bytes;
  mutable std::mutex _mutex;
  // Per ledger, so that a deleted ledger goes in one step and each ledger's
  // entries are already in order; adds usually come in order, which makes an
  // insert at the end cheap.
  std::unordered_map<ledger_id, std::map<entry_id, wire::shared_bytes>> _ledgers;
  std::uint64_t _bytes = 0;
  std::size_t _count = 0;
};

}  // namespace magnetar::bookie
