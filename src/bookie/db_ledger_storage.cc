#include "bookie/db_ledger_storage.h"

#include "base/errc.h"
#include "bookie/entry_log_format.h"
#include "bookie/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <system_error>

namespace magnetar::bookie {

namespace {

result<void> check_options(const ledger_storage_options& o) {
  if (o.directory.empty() || o.fs == nullptr || o.write_cache_bytes == 0 || o.entry_log_max_bytes == 0 ||
      !(o.compaction_threshold >= 0.0 && o.compaction_threshold <= 1.0)) {
    return fail(base::errc::invalid_argument,
                fmt::format("ledger storage options: directory '{}', write cache {} bytes, entry logs of {} bytes, "
                            "compaction threshold {}: need a directory, a file system, sizes above 0 and a "
                            "threshold in [0, 1]",
                            o.directory, o.write_cache_bytes, o.entry_log_max_bytes, o.compaction_threshold));
  }
  return success();
}

result<void> check_ids(ledger_id ledger, entry_id entry, std::string_view what) {
  if (ledger.value() < 0 || entry.value() < 0) {
    return fail(base::errc::invalid_argument,
                fmt::format("{} ledger {} entry {}: ids must not be negative", what, ledger, entry));
  }
  return success();
}

// A range read scans the index this many entries at a time, and reads at most this many
// bytes with one pread. The entries of one pread share its buffer, so an entry that a
// cache keeps pins up to run_bytes: 256 KiB reads as fast as 1 or 4 MiB (catch-up
// benchmark) and bounds that.
constexpr std::size_t run_entries = 1024;
constexpr std::uint64_t run_bytes = 256 << 10;

std::uint64_t record_size(const entry_location& at) { return entry_log_format::record_header_size + at.length; }

}  // namespace

result<std::unique_ptr<ledger_storage>> ledger_storage::open(const ledger_storage_options& options) {
  MAGNETAR_TRY(storage, db_ledger_storage::open(options));
  return std::unique_ptr<ledger_storage>(std::move(storage));
}

db_ledger_storage::db_ledger_storage(const ledger_storage_options& options, std::unique_ptr<entry_index> index,
                                     std::unique_ptr<entry_log> logs)
    : _options(options),
      _index(std::move(index)),
      _logs(std::move(logs)),
      _current(std::make_shared<write_cache>(options.write_cache_bytes)) {}

result<std::unique_ptr<db_ledger_storage>> db_ledger_storage::open(const ledger_storage_options& options) {
  MAGNETAR_TRY(check_options(options));
  io::file_system& fs = *options.fs;
  MAGNETAR_TRY(fs.create_directories(options.directory));
  MAGNETAR_TRY(index, entry_index::open(options.directory + "/index"));
  if (index->created()) {
    // Recovery trusts the index over the logs; with no index it would take
    // every log for garbage.
    MAGNETAR_TRY(names, fs.list(options.directory));
    const auto logs = std::count_if(names.begin(), names.end(), entry_log::is_log_name);
    if (logs > 0) {
      return fail(errc::corrupt_record,
                  fmt::format("ledger storage {}: {} entry logs but no entry index; refusing to start rather than "
                              "discard them",
                              options.directory, logs));
    }
  }
  MAGNETAR_TRY(indexed, index->logs());
  MAGNETAR_TRY(
      logs,
      entry_log::open({.directory = options.directory, .fs = options.fs, .max_log_bytes = options.entry_log_max_bytes},
                      indexed));
  MAGNETAR_TRY(states, index->ledger_states());
  std::unique_ptr<db_ledger_storage> storage(new db_ledger_storage(options, std::move(index), std::move(logs)));
  for (const auto& [ledger, state] : states) storage->_ledgers.load(ledger, state);
  const auto& recovered = storage->recovery();
  spdlog::info(
      "ledger storage {}: {} ledgers, {} entry logs; recovery cut {} bytes, removed {} unindexed logs, "
      "found {} damaged and {} missing",
      options.directory, states.size(), storage->_logs->log_ids().size(), recovered.bytes_cut,
      recovered.unindexed.size(), recovered.damaged.size(), recovered.missing.size());
  return storage;
}

result<void> db_ledger_storage::add_entry(ledger_id ledger, entry_id entry, wire::shared_bytes payload,
                                          entry_id last_add_confirmed) {
  MAGNETAR_TRY(check_ids(ledger, entry, "add"));
  if (payload.size() > _options.write_cache_bytes) {
    return fail(errc::too_large, fmt::format("add ledger {} entry {}: {} bytes exceed the write cache's {}", ledger,
                                             entry, payload.size(), _options.write_cache_bytes));
  }
  if (auto ready = _ledgers.prepare_add(ledger); !ready) {
    return fail(ready.error().code(), fmt::format("add ledger {} entry {}: the ledger was deleted", ledger, entry));
  }
  for (;;) {
    std::uint64_t swaps_seen = 0;
    {
      std::shared_lock lock(_rotation_mutex);
      if (_current->put(ledger, entry, payload)) break;
      swaps_seen = _swaps;
    }
    // Full: flush to make room, unless a flush that began meanwhile already did.
    std::lock_guard flush_lock(_flush_mutex);
    {
      std::shared_lock lock(_rotation_mutex);
      if (_swaps != swaps_seen) continue;
    }
    if (auto flushed = flush_locked(); !flushed) {
      return fail(flushed.error().code(), fmt::format("add ledger {} entry {}: the write cache is full and the flush "
                                                      "to make room failed: {}",
                                                      ledger, entry, flushed.error().detail()));
    }
  }
  _ledgers.record_add(ledger, entry, last_add_confirmed);
  return success();
}

result<db_ledger_storage::write_caches> db_ledger_storage::caches_to_read(ledger_id ledger, entry_id entry) {
  MAGNETAR_TRY(check_ids(ledger, entry, "read"));
  const auto view = _ledgers.find(ledger);
  if (!view) {
    return fail(errc::ledger_not_found, fmt::format("read ledger {} entry {}: no such ledger", ledger, entry));
  }
  if (view->deleted) {
    return fail(errc::ledger_deleted, fmt::format("read ledger {} entry {}: the ledger was deleted", ledger, entry));
  }
  std::shared_lock lock(_rotation_mutex);
  return write_caches{_current, _flushing};
}

std::optional<wire::shared_bytes> db_ledger_storage::write_caches::get(ledger_id ledger, entry_id entry) const {
  if (auto cached = current->get(ledger, entry)) return cached;
  if (flushing) return flushing->get(ledger, entry);
  return std::nullopt;
}

result<wire::shared_bytes> db_ledger_storage::read_entry(ledger_id ledger, entry_id entry) {
  MAGNETAR_TRY(caches, caches_to_read(ledger, entry));
  // A flush drops its cache only after the index points at the entry logs,
  // so an entry is always in one of the two caches or findable in the index.
  if (auto cached = caches.get(ledger, entry)) return std::move(*cached);
  return read_flushed(ledger, entry);
}

result<std::vector<wire::shared_bytes>> db_ledger_storage::read_range(ledger_id ledger, entry_id first, entry_id last) {
  std::vector<wire::shared_bytes> entries;
  if (last < first) return entries;
  MAGNETAR_TRY(caches, caches_to_read(ledger, first));
  entries.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(
      static_cast<std::uint64_t>(last.value()) - static_cast<std::uint64_t>(first.value()) + 1, run_entries)));
  // As in read_entry: an entry not in the caches taken here is in the index (a flush
  // drops a cache only after the index points at the entry logs).
  for (auto next = first; next <= last; next = entry_id(first.value() + std::ssize(entries))) {
    if (auto cached = caches.get(ledger, next)) {
      entries.push_back(std::move(*cached));
      continue;
    }
    if (auto read = read_flushed_run(ledger, next, last, entries); !read) {
      if (entries.empty()) return fail(std::move(read).error());
      break;  // the caller reads on from the failed entry and gets its error
    }
  }
  return entries;
}

result<void> db_ledger_storage::read_flushed_run(ledger_id ledger, entry_id first, entry_id last,
                                                 std::vector<wire::shared_bytes>& out) {
  MAGNETAR_TRY(found, _index->locations(ledger, first, last, run_entries));
  if (found.empty()) {
    return fail(errc::entry_not_found, fmt::format("read ledger {} entry {}: no such entry", ledger, first));
  }
  for (std::size_t begin = 0; begin < found.size();) {
    const entry_id at(first.value() + static_cast<std::int64_t>(begin));
    const auto file = _logs->find(found[begin].log);
    if (!file) {
      // Compaction moved the entry and removed its old log since the scan: the index
      // has its new place, and the caller scans again from the entry after it.
      MAGNETAR_TRY(moved, read_flushed(ledger, at));
      out.push_back(std::move(moved));
      return success();
    }
    // The stretch from `begin` whose records lie back to back in this log.
    std::size_t end = begin + 1;
    std::uint64_t bytes = record_size(found[begin]);
    while (end < found.size() && found[end].log == found[begin].log &&
           found[end].offset == found[end - 1].offset + record_size(found[end - 1]) &&
           bytes + record_size(found[end]) <= run_bytes) {
      bytes += record_size(found[end]);
      ++end;
    }
    MAGNETAR_TRY(file->read_run(std::span(found).subspan(begin, end - begin), ledger, at, out));
    begin = end;
  }
  return success();
}

result<wire::shared_bytes> db_ledger_storage::read_flushed(ledger_id ledger, entry_id entry) {
  for (int attempt = 0;; ++attempt) {
    MAGNETAR_TRY(location, _index->location(ledger, entry));
    if (!location) {
      return fail(errc::entry_not_found, fmt::format("read ledger {} entry {}: no such entry", ledger, entry));
    }
    if (const auto file = _logs->find(location->log)) return file->read(*location, ledger, entry);
    // Compaction moved the entry and removed its old log since the lookup:
    // the index has its new place.
    if (attempt > 0) {
      return fail(errc::corrupt_record, fmt::format("read ledger {} entry {}: the index points into entry log {}, "
                                                    "which does not exist",
                                                    ledger, entry, _logs->path_of(location->log)));
    }
  }
}

result<ledger_state> db_ledger_storage::state(ledger_id ledger) {
  const auto view = _ledgers.find(ledger);
  if (!view) return fail(errc::ledger_not_found, fmt::format("state of ledger {}: no such ledger", ledger));
  if (view->deleted) return fail(errc::ledger_deleted, fmt::format("state of ledger {}: it was deleted", ledger));
  // Every entry flushed since open was added since open; only what the index
  // held at open needs a seek, once.
  entry_id last_at_open(-1);
  if (view->last_at_open) {
    last_at_open = *view->last_at_open;
  } else {
    MAGNETAR_TRY(found, _index->last_entry(ledger));
    if (found) last_at_open = *found;
    _ledgers.set_last_at_open(ledger, last_at_open);
  }
  return ledger_state{.fenced = view->fenced,
                      .last_add_confirmed = view->last_add_confirmed,
                      .last_entry = std::max(view->last_added, last_at_open)};
}

result<void> db_ledger_storage::fence(ledger_id ledger) {
  MAGNETAR_TRY(check_ids(ledger, entry_id(0), "fence"));
  return _ledgers.fence(ledger);
}

result<void> db_ledger_storage::delete_ledger(ledger_id ledger) {
  MAGNETAR_TRY(check_ids(ledger, entry_id(0), "delete"));
  {
    std::lock_guard lock(_index_write_mutex);
    entry_index::batch batch;
    batch.delete_ledger(ledger, _ledgers.tombstone(ledger));
    if (auto written = _index->write(batch); !written) {
      return fail(written.error().code(), fmt::format("delete ledger {}: {}", ledger, written.error().detail()));
    }
    _ledgers.mark_deleted(ledger);
  }
  // Entries in the cache being flushed stay there; the flush skips them.
  std::shared_lock lock(_rotation_mutex);
  _current->remove_ledger(ledger);
  return success();
}

error db_ledger_storage::disk_failure(const error& e, std::string_view context) {
  if (e == std::errc::no_space_on_device) return error(errc::storage_full, fmt::format("{}: {}", context, e.message()));
  return error(e.code(), fmt::format("{}: {}", context, e.detail()));
}

result<void> db_ledger_storage::flush() {
  std::lock_guard lock(_flush_mutex);
  return flush_locked();
}

result<void> db_ledger_storage::flush_locked() {
  std::shared_ptr<write_cache> left;
  {
    std::shared_lock lock(_rotation_mutex);
    left = _flushing;
  }
  if (left) {
    // A failed flush left these; they are older than anything in _current.
    MAGNETAR_TRY(write_out(left.get()));
    std::unique_lock lock(_rotation_mutex);
    _flushing.reset();
  }
  std::shared_ptr<write_cache> swapped;
  {
    std::unique_lock lock(_rotation_mutex);
    if (!_current->empty()) {
      swapped = std::exchange(_current, std::make_shared<write_cache>(_options.write_cache_bytes));
      _flushing = swapped;
      ++_swaps;
    }
  }
  // Even with no entries, fences and LACs may be waiting to be written.
  MAGNETAR_TRY(write_out(swapped.get()));
  if (swapped) {
    std::unique_lock lock(_rotation_mutex);
    _flushing.reset();
  }
  return success();
}

result<void> db_ledger_storage::write_out(const write_cache* cache) {
  const auto entries = cache ? cache->sorted_entries() : std::vector<write_cache::cached_entry>{};
  const auto context = [&] { return fmt::format("flush of {} entries (kept in the write cache)", entries.size()); };
  std::vector<placed_entry> placed;
  placed.reserve(entries.size());
  std::optional<ledger_id> checked;
  bool deleted = false;
  for (const auto& e : entries) {
    if (e.ledger != checked) {
      checked = e.ledger;
      deleted = _ledgers.is_deleted(e.ledger);
    }
    if (deleted) continue;
    auto at = _logs->append(e.ledger, e.entry, e.payload);
    if (!at) {
      _logs->rollback();
      return fail(disk_failure(at.error(), context()));
    }
    placed.push_back({e.ledger, e.entry, at.value()});
  }
  if (auto synced = _logs->sync(); !synced) {
    _logs->rollback();
    return fail(disk_failure(synced.error(), context()));
  }
  if (auto committed = commit(placed); !committed) {
    return fail(committed.error().code(), fmt::format("{}: {}", context(), committed.error().detail()));
  }
  return success();
}

result<void> db_ledger_storage::commit(const std::vector<placed_entry>& placed) {
  std::lock_guard lock(_index_write_mutex);
  auto dirty = _ledgers.take_dirty();
  entry_index::batch batch;
  std::optional<ledger_id> checked;
  bool deleted = false;
  for (const auto& p : placed) {
    if (p.ledger != checked) {
      checked = p.ledger;
      deleted = _ledgers.is_deleted(p.ledger);
    }
    if (!deleted) batch.put_location(p.ledger, p.entry, p.location);
  }
  for (const auto& [ledger, state] : dirty) batch.put_state(ledger, state);
  if (!placed.empty()) {
    const auto end = _logs->committed_end();
    MAGNETAR_ASSERT(end.has_value(), "{} entries synced with no current entry log", placed.size());
    batch.put_log_end(end->first, end->second);
  }
  if (auto written = _index->write(batch); !written) {
    _ledgers.mark_dirty(dirty);
    return written;
  }
  return success();
}

}  // namespace magnetar::bookie
