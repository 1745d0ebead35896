#include "bookie/entry_index.h"

#include "bookie/errc.h"

#include <fmt/format.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>

namespace magnetar::bookie {

namespace layout = index_layout;

namespace {

error index_error(const std::string& path, const rocksdb::Status& status, std::string_view what) {
  const auto detail = fmt::format("entry index {}: {}: {}", path, what, status.ToString());
  if (status.IsNoSpace()) return error(errc::storage_full, detail);
  if (status.IsCorruption()) return error(errc::corrupt_record, detail);
  return error(errc::index_failed, detail);
}

// The first key after every key that starts with `prefix` (one byte here).
std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  end.back() = static_cast<char>(end.back() + 1);
  return end;
}

}  // namespace

entry_index::batch::batch() : _batch(std::make_unique<rocksdb::WriteBatch>()) {}
entry_index::batch::~batch() = default;
entry_index::batch::batch(batch&&) noexcept = default;
entry_index::batch& entry_index::batch::operator=(batch&&) noexcept = default;

void entry_index::batch::put_location(ledger_id ledger, entry_id entry, const entry_location& location) {
  _batch->Put(layout::location_key(ledger, entry), layout::encode_location(location));
  ++_writes;
}

void entry_index::batch::put_state(ledger_id ledger, const stored_ledger_state& state) {
  _batch->Put(layout::state_key(ledger), layout::encode_state(state));
  ++_writes;
}

void entry_index::batch::delete_ledger(ledger_id ledger, const stored_ledger_state& tombstone) {
  _batch->DeleteRange(layout::ledger_begin(ledger), layout::ledger_end(ledger));
  _batch->Put(layout::state_key(ledger), layout::encode_state(tombstone));
  _writes += 2;
}

void entry_index::batch::put_log_end(entry_log_id log, std::uint64_t committed_end) {
  _batch->Put(layout::log_key(log), layout::encode_u64(committed_end));
  ++_writes;
}

void entry_index::batch::mark_log_removed(entry_log_id log) {
  // Kept rather than deleted, so that the log's id is never handed out again.
  _batch->Put(layout::log_key(log), layout::encode_u64(layout::removed_log));
  ++_writes;
}

entry_index::entry_index(std::unique_ptr<rocksdb::DB> db, std::string path)
    : _db(std::move(db)), _path(std::move(path)) {}

entry_index::~entry_index() {
  if (_db) (void)_db->Close();
}

result<std::unique_ptr<entry_index>> entry_index::open(const std::string& path) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.keep_log_file_num = 4;
  // Most reads are point lookups of one entry's location.
  rocksdb::BlockBasedTableOptions table;
  table.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
  options.table_factory.reset(rocksdb::NewBlockBasedTableFactory(table));
  rocksdb::DB* raw = nullptr;
  const auto status = rocksdb::DB::Open(options, path, &raw);
  if (!status.ok()) return fail(index_error(path, status, "open"));
  std::unique_ptr<entry_index> index(new entry_index(std::unique_ptr<rocksdb::DB>(raw), path));

  std::string bytes;
  const auto found = index->_db->Get(rocksdb::ReadOptions(), std::string(layout::layout_key), &bytes);
  if (found.IsNotFound()) {
    index->_created = true;
    batch first;
    first._batch->Put(std::string(layout::layout_key), layout::encode_u64(layout::layout_version));
    first._writes = 1;
    MAGNETAR_TRY(index->write(first));
  } else if (!found.ok()) {
    return fail(index_error(path, found, "read layout version"));
  } else {
    MAGNETAR_TRY(version, layout::decode_u64("layout version", bytes));
    if (version != layout::layout_version) {
      return fail(errc::corrupt_record, fmt::format("entry index {} has layout {}; this build reads layout {}", path,
                                                    version, layout::layout_version));
    }
  }
  return index;
}

result<std::optional<entry_location>> entry_index::location(ledger_id ledger, entry_id entry) const {
  std::string bytes;
  const auto status = _db->Get(rocksdb::ReadOptions(), layout::location_key(ledger, entry), &bytes);
  if (status.IsNotFound()) return std::optional<entry_location>();
  if (!status.ok()) return fail(index_error(_path, status, fmt::format("read ledger {} entry {}", ledger, entry)));
  MAGNETAR_TRY(location, layout::decode_location(ledger, entry, bytes));
  return std::optional(location);
}

result<std::vector<entry_location>> entry_index::locations(ledger_id ledger, entry_id first, entry_id last,
                                                           std::size_t max) const {
  std::vector<entry_location> found;
  if (last < first || max == 0) return found;
  const auto begin = layout::location_key(ledger, first);
  const auto end = layout::ledger_end(ledger);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read));
  auto expected = first.value();
  for (it->Seek(begin); it->Valid() && expected <= last.value() && found.size() < max; it->Next(), ++expected) {
    MAGNETAR_TRY(key, layout::decode_location_key(it->key().ToStringView()));
    if (key.second.value() != expected) break;  // a gap: the range ends before it
    MAGNETAR_TRY(location, layout::decode_location(ledger, key.second, it->value().ToStringView()));
    found.push_back(location);
  }
  if (!it->status().ok()) {
    return fail(index_error(_path, it->status(), fmt::format("scan ledger {} from entry {}", ledger, first)));
  }
  return found;
}

result<std::optional<entry_id>> entry_index::last_entry(ledger_id ledger) const {
  const auto begin = layout::ledger_begin(ledger);
  const auto end = layout::ledger_end(ledger);
  const rocksdb::Slice lower(begin);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_lower_bound = &lower;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read));
  it->SeekForPrev(upper);
  if (!it->status().ok()) return fail(index_error(_path, it->status(), fmt::format("seek ledger {}", ledger)));
  if (!it->Valid() || !it->key().starts_with(lower)) return std::optional<entry_id>();
  MAGNETAR_TRY(key, layout::decode_location_key(it->key().ToStringView()));
  return std::optional(key.second);
}

result<std::vector<std::pair<ledger_id, stored_ledger_state>>> entry_index::ledger_states() const {
  const auto end = prefix_end(layout::state_prefix);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read));
  std::vector<std::pair<ledger_id, stored_ledger_state>> states;
  for (it->Seek(layout::state_prefix); it->Valid(); it->Next()) {
    MAGNETAR_TRY(ledger, layout::decode_state_key(it->key().ToStringView()));
    MAGNETAR_TRY(state, layout::decode_state(ledger, it->value().ToStringView()));
    states.emplace_back(ledger, state);
  }
  if (!it->status().ok()) return fail(index_error(_path, it->status(), "scan ledger states"));
  return states;
}

result<std::map<entry_log_id, indexed_log>> entry_index::logs() const {
  const auto end = prefix_end(layout::log_prefix);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read));
  std::map<entry_log_id, indexed_log> logs;
  for (it->Seek(layout::log_prefix); it->Valid(); it->Next()) {
    MAGNETAR_TRY(log, layout::decode_log_key(it->key().ToStringView()));
    MAGNETAR_TRY(end_offset, layout::decode_u64(fmt::format("entry log {} end", log), it->value().ToStringView()));
    logs[log] =
        end_offset == layout::removed_log ? indexed_log{.removed = true} : indexed_log{.committed_end = end_offset};
  }
  if (!it->status().ok()) return fail(index_error(_path, it->status(), "scan entry logs"));
  return logs;
}

result<void> entry_index::write(batch& writes) {
  if (writes.empty()) return success();
  rocksdb::WriteOptions options;
  options.sync = true;
  const auto status = _db->Write(options, writes._batch.get());
  if (!status.ok()) return fail(index_error(_path, status, "write batch"));
  return success();
}

}  // namespace magnetar::bookie
