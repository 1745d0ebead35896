#include "meta/rocksdb_tree.h"

#include "meta/errc.h"
#include "meta/path.h"

#include <fmt/format.h>
#include <rocksdb/iterator.h>
#include <rocksdb/options.h>

#include <chrono>
#include <limits>
#include <system_error>

namespace magnetar::meta {

namespace layout = rocksdb_layout;

namespace {

// Session ids are epoch << 32 | n: unique across restarts without a write
// per session.
constexpr int session_epoch_shift = 32;

}  // namespace

rocksdb_tree::rocksdb_tree(std::unique_ptr<rocksdb::DB> db, std::filesystem::path directory, base::clock& clock,
                           listener_registry<notification>& listeners)
    : _db(std::move(db)), _directory(std::move(directory)), _clock(clock), _listeners(listeners) {}

rocksdb_tree::~rocksdb_tree() {
  if (_db) (void)close();
}

result<std::unique_ptr<rocksdb_tree>> rocksdb_tree::open(const std::filesystem::path& directory, base::clock& clock,
                                                         listener_registry<notification>& listeners) {
  std::error_code ec;
  std::filesystem::create_directories(directory, ec);
  if (ec) {
    return fail(errc::backend_error,
                fmt::format("metadata directory '{}': create: {}", directory.string(), ec.message()));
  }
  rocksdb::Options options;
  options.create_if_missing = true;
  // Metadata is small; a few log files are plenty to diagnose a problem.
  options.keep_log_file_num = 4;
  rocksdb::DB* raw = nullptr;
  auto status = rocksdb::DB::Open(options, directory.string(), &raw);
  if (!status.ok()) {
    return fail(errc::backend_error, fmt::format("rocksdb open '{}': {}", directory.string(), status.ToString()));
  }
  std::unique_ptr<rocksdb_tree> tree(new rocksdb_tree(std::unique_ptr<rocksdb::DB>(raw), directory, clock, listeners));
  MAGNETAR_TRY(tree->begin_epoch());
  // No session of an earlier process survives it: its ephemerals go now.
  MAGNETAR_TRY(tree->delete_ephemerals(layout::all_ephemerals_prefix, "left by an earlier process"));
  return tree;
}

result<void> rocksdb_tree::begin_epoch() {
  std::string bytes;
  auto status = _db->Get(rocksdb::ReadOptions(), std::string(layout::layout_key), &bytes);
  pending_write w;
  if (status.IsNotFound()) {
    w.batch.Put(std::string(layout::layout_key), layout::encode_u64(layout::layout_version));
  } else if (!status.ok()) {
    return backend_error(status, "read layout");
  } else {
    MAGNETAR_TRY(found, layout::decode_u64("layout version", bytes));
    if (found != layout::layout_version) {
      return fail(errc::corrupt_record, fmt::format("metadata directory '{}' has layout {}; this build reads layout {}",
                                                    _directory.string(), found, layout::layout_version));
    }
  }
  status = _db->Get(rocksdb::ReadOptions(), std::string(layout::session_epoch_key), &bytes);
  std::uint64_t previous = 0;
  if (status.ok()) {
    MAGNETAR_TRY(decoded, layout::decode_u64("session epoch", bytes));
    previous = decoded;
  } else if (!status.IsNotFound()) {
    return backend_error(status, "read session epoch");
  }
  if (previous >= std::uint64_t(std::numeric_limits<std::int32_t>::max())) {
    return fail(errc::corrupt_record, fmt::format("session epoch {} is out of range", previous));
  }
  _epoch = static_cast<std::int64_t>(previous + 1);
  w.batch.Put(std::string(layout::session_epoch_key), layout::encode_u64(previous + 1));
  return commit(w, "begin session epoch");
}

result<void> rocksdb_tree::close() {
  if (!_db) return success();
  auto status = _db->Close();
  _db.reset();
  if (!status.ok()) return backend_error(status, "close");
  return success();
}

result<std::optional<rocksdb_layout::node_record>> rocksdb_tree::read_node(const std::string& path) {
  std::string bytes;
  auto status = _db->Get(rocksdb::ReadOptions(), layout::node_key(path), &bytes);
  if (status.IsNotFound()) return std::optional<layout::node_record>();
  if (!status.ok()) return backend_error(status, fmt::format("read '{}'", path));
  MAGNETAR_TRY(record, layout::decode_record(path, bytes));
  return std::optional<layout::node_record>(std::move(record));
}

result<std::vector<std::pair<std::string, std::string>>> rocksdb_tree::scan(const std::string& prefix,
                                                                            std::size_t limit) {
  const auto end = layout::prefix_end(prefix);
  const rocksdb::Slice upper(end);
  rocksdb::ReadOptions read;
  read.iterate_upper_bound = &upper;
  std::unique_ptr<rocksdb::Iterator> it(_db->NewIterator(read));
  std::vector<std::pair<std::string, std::string>> found;
  for (it->Seek(prefix); it->Valid() && found.size() < limit; it->Next()) {
    found.emplace_back(it->key().ToString(), it->value().ToString());
  }
  if (!it->status().ok()) return backend_error(it->status(), "scan");
  return found;
}

result<std::optional<versioned_value>> rocksdb_tree::get(const std::string& path) {
  // The root has no record: it exists implicitly, empty, at version 0 (as in ZooKeeper).
  if (path == "/") return std::optional<versioned_value>(versioned_value{.st = {.path = path}});
  MAGNETAR_TRY(record, read_node(path));
  if (!record) return std::optional<versioned_value>();
  return std::optional<versioned_value>(versioned_value{.value = record->value, .st = record->stat_for(path)});
}

result<bool> rocksdb_tree::exists(const std::string& path) {
  if (path == "/") return true;
  std::string ignored;
  auto status = _db->Get(rocksdb::ReadOptions(), layout::node_key(path), &ignored);
  if (status.IsNotFound()) return false;
  if (!status.ok()) return backend_error(status, fmt::format("read '{}'", path));
  return true;
}

result<std::vector<std::string>> rocksdb_tree::children(const std::string& path) {
  const auto prefix = layout::children_prefix(path);
  MAGNETAR_TRY(found, scan(prefix, std::numeric_limits<std::size_t>::max()));
  std::vector<std::string> names;
  names.reserve(found.size());
  for (const auto& [key, value] : found) names.push_back(key.substr(prefix.size()));
  return names;
}

result<session_id> rocksdb_tree::open_session() {
  std::lock_guard lock(_write_mutex);
  MAGNETAR_ASSERT(_sessions_in_epoch < std::numeric_limits<std::int32_t>::max(), "sessions of one epoch ran out");
  const session_id id((_epoch << session_epoch_shift) | ++_sessions_in_epoch);
  _open_sessions.insert(id);
  return id;
}

result<void> rocksdb_tree::close_session(session_id id) {
  std::lock_guard lock(_write_mutex);
  if (!_open_sessions.contains(id)) {
    return fail(errc::unknown_session, fmt::format("session {:#x} is not open", id.value()));
  }
  MAGNETAR_TRY(delete_ephemerals(layout::ephemeral_prefix(id), fmt::format("of session {:#x}", id.value())));
  _open_sessions.erase(id);
  return success();
}

result<void> rocksdb_tree::delete_ephemerals(std::string_view prefix, std::string_view why) {
  MAGNETAR_TRY(found, scan(std::string(prefix), std::numeric_limits<std::size_t>::max()));
  if (found.empty()) return success();
  pending_write w;
  for (const auto& [key, value] : found) {
    delete_node(w, layout::path_of_ephemeral_key(key), layout::owner_of_ephemeral_key(key));
  }
  return commit(w, fmt::format("delete {} ephemeral nodes {}", found.size(), why));
}

void rocksdb_tree::delete_node(pending_write& w, const std::string& path, session_id owner) {
  // The node's sequence counter (as a parent) stays: sequential names under
  // a path never repeat, even when the path is removed and created again.
  w.batch.Delete(layout::node_key(path));
  if (owner != no_session) w.batch.Delete(layout::ephemeral_key(owner, path));
  w.events.push_back({notification_type::deleted, path});
  w.events.push_back({notification_type::children_changed, std::string(parent_of(path))});
}

result<void> rocksdb_tree::commit(pending_write& w, std::string_view what) {
  rocksdb::WriteOptions options;
  options.sync = true;
  auto status = _db->Write(options, &w.batch);
  if (!status.ok()) return backend_error(status, what);
  // Still under the write mutex (or in open): listeners see commit order.
  _listeners.publish(std::move(w.events));
  return success();
}

std::int64_t rocksdb_tree::now_ms() const {
  return std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
}

error rocksdb_tree::backend_error(const rocksdb::Status& status, std::string_view what) const {
  return error(errc::backend_error,
               fmt::format("rocksdb {} in '{}': {}", what, _directory.string(), status.ToString()));
}

}  // namespace magnetar::meta
