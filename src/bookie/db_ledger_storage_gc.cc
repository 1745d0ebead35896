// db_ledger_storage's garbage collection (BookKeeper's GarbageCollectorThread
// with its EntryLogCompactor): entry logs whose ledgers are all deleted are
// removed; logs whose live share is below the threshold have their live
// entries copied to the current log, then are removed.
//
// Why a removed log is never one the index still points into: a deletion
// removes the ledger's locations in the same synced batch as its tombstone,
// and no later batch writes locations of a deleted ledger; compaction rewrites
// every location that pointed into the log (it checks each record against the
// index, so stale copies are left behind) and commits that before removing.
// Compaction and removal hold _flush_mutex, so no flush moves a location
// meanwhile.
#include "bookie/db_ledger_storage.h"

#include "bookie/entry_log_format.h"
#include "bookie/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

namespace magnetar::bookie {

result<gc_stats> db_ledger_storage::collect_garbage() {
  gc_stats stats;
  const auto deleted = _ledgers.deleted();
  auto candidates = _logs->sealed_logs();
  for (const auto& log : candidates) {
    const auto live = log.metadata.live_bytes([&](ledger_id l) { return !deleted.contains(l); });
    if (live == 0) {
      MAGNETAR_TRY(remove_log(log.id));
      ++stats.logs_removed;
      stats.bytes_reclaimed += log.file_bytes;
      continue;
    }
    const double share = static_cast<double>(live) / static_cast<double>(log.metadata.total_bytes());
    if (share >= _options.compaction_threshold) continue;
    MAGNETAR_TRY(copied, compact_log(log.id));
    if (!copied) continue;
    ++stats.logs_compacted;
    stats.bytes_copied += *copied;
    stats.bytes_reclaimed += log.file_bytes - std::min(*copied, log.file_bytes);
  }
  if (stats.logs_removed + stats.logs_compacted > 0) {
    spdlog::info("ledger storage {}: garbage collection removed {} entry logs, compacted {}, reclaimed {} bytes",
                 _options.directory, stats.logs_removed, stats.logs_compacted, stats.bytes_reclaimed);
  }
  return stats;
}

result<void> db_ledger_storage::remove_log(entry_log_id id) {
  std::lock_guard lock(_flush_mutex);
  if (auto removed = _logs->remove(id); !removed) {
    return fail(removed.error().code(), fmt::format("garbage collection: remove entry log {}: {}", _logs->path_of(id),
                                                    removed.error().detail()));
  }
  // Should this fail, the next start finds the log missing, which is harmless:
  // nothing points into it.
  entry_index::batch batch;
  batch.mark_log_removed(id);
  return _index->write(batch);
}

result<std::optional<std::uint64_t>> db_ledger_storage::compact_log(entry_log_id id) {
  std::lock_guard lock(_flush_mutex);
  const auto file = _logs->find(id);
  if (!file) return std::optional<std::uint64_t>();
  const auto deleted = _ledgers.deleted();
  std::vector<placed_entry> placed;
  std::uint64_t copied = 0;
  auto scanned = file->scan(std::numeric_limits<std::uint64_t>::max(),
                            [&](const scanned_record& r, std::span<const std::byte> payload) -> result<void> {
                              if (deleted.contains(r.ledger)) return success();
                              MAGNETAR_TRY(indexed, _index->location(r.ledger, r.entry));
                              // A newer copy (a re-add flushed later) or none: this one is dead.
                              if (!indexed || *indexed != r.location) return success();
                              MAGNETAR_TRY(at, _logs->append(r.ledger, r.entry, payload));
                              placed.push_back({r.ledger, r.entry, at});
                              copied += entry_log_format::record_header_size + payload.size();
                              return success();
                            });
  if (!scanned) {
    _logs->rollback();
    return fail(disk_failure(scanned.error(), fmt::format("compact entry log {}", file->path())));
  }
  if (!scanned.value().problem.empty()) {
    // Records past the damage can't be found by a scan, so the log can't be
    // proven empty of live entries: keep it, whole.
    _logs->rollback();
    _logs->mark_damaged(id);
    spdlog::error("compact entry log {}: {}; leaving the log in place, out of garbage collection", file->path(),
                  scanned.value().problem);
    return std::optional<std::uint64_t>();
  }
  if (auto synced = _logs->sync(); !synced) {
    _logs->rollback();
    return fail(disk_failure(synced.error(), fmt::format("compact entry log {}", file->path())));
  }
  if (auto committed = commit(placed); !committed) {
    return fail(committed.error().code(),
                fmt::format("compact entry log {}: {}", file->path(), committed.error().detail()));
  }
  if (auto removed = _logs->remove(id); !removed) {
    return fail(removed.error().code(),
                fmt::format("compact entry log {}: remove: {}", file->path(), removed.error().detail()));
  }
  entry_index::batch batch;
  batch.mark_log_removed(id);
  MAGNETAR_TRY(_index->write(batch));
  return std::optional(copied);
}

}  // namespace magnetar::bookie
