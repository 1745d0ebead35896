// The mutations of rocksdb_tree: put, remove, remove_recursive. Each runs
// read-check-write under _write_mutex and commits one synced batch.
#include "meta/errc.h"
#include "meta/path.h"
#include "meta/rocksdb_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace magnetar::meta {

namespace layout = rocksdb_layout;

namespace {

result<void> check_version(const std::string& path, const std::optional<layout::node_record>& existing,
                           std::optional<std::int64_t> expected) {
  if (!expected) return success();
  if (*expected == -1) {
    if (!existing) return success();
    return fail(errc::bad_version,
                fmt::format("node '{}' exists (version {}); expected it absent (version -1)", path, existing->version));
  }
  if (!existing) {
    return fail(errc::bad_version, fmt::format("node '{}' does not exist; expected version {}", path, *expected));
  }
  if (existing->version != *expected) {
    return fail(errc::bad_version,
                fmt::format("node '{}' is at version {}; expected version {}", path, existing->version, *expected));
  }
  return success();
}

}  // namespace

result<std::vector<std::string>> rocksdb_tree::missing_ancestors(const std::string& path) {
  std::vector<std::string> missing;
  for (auto ancestor = std::string(parent_of(path)); ancestor != "/"; ancestor = std::string(parent_of(ancestor))) {
    MAGNETAR_TRY(record, read_node(ancestor));
    if (record) {
      if (record->owner != no_session) {
        return fail(errc::ephemeral_parent,
                    fmt::format("can't create '{}': its ancestor '{}' is ephemeral", path, ancestor));
      }
      break;
    }
    missing.push_back(ancestor);
  }
  std::reverse(missing.begin(), missing.end());
  return missing;
}

result<stat> rocksdb_tree::put(const std::string& path_or_prefix, const std::string& value,
                               std::optional<std::int64_t> expected_version, const create_options& options) {
  std::lock_guard lock(_write_mutex);
  pending_write w;
  std::string path = path_or_prefix;
  if (options.sequential) {
    // The counter lives beside the parent, not in its record: it needs no
    // parent record (the root has none) and outlives the parent's removal.
    const auto parent = std::string(parent_of(sequential_path(path_or_prefix, 0)));
    std::string bytes;
    auto status = _db->Get(rocksdb::ReadOptions(), layout::sequence_key(parent), &bytes);
    std::uint64_t next = 0;
    if (status.ok()) {
      MAGNETAR_TRY(decoded, layout::decode_u64(fmt::format("sequence counter of '{}'", parent), bytes));
      next = decoded;
    } else if (!status.IsNotFound()) {
      return backend_error(status, fmt::format("read sequence counter of '{}'", parent));
    }
    path = sequential_path(path_or_prefix, static_cast<std::int64_t>(next));
    w.batch.Put(layout::sequence_key(parent), layout::encode_u64(next + 1));
    // A sequential put always creates: a name taken by an explicit put is a conflict.
    if (!expected_version) expected_version = -1;
  }

  MAGNETAR_TRY(existing, read_node(path));
  MAGNETAR_TRY(check_version(path, existing, expected_version));
  const auto now = now_ms();

  if (existing) {
    auto updated = *existing;
    updated.version += 1;
    updated.modified_ms = now;
    updated.value = value;
    w.batch.Put(layout::node_key(path), layout::encode_record(updated));
    w.events.push_back({notification_type::modified, path});
    MAGNETAR_TRY(commit(w, fmt::format("put '{}'", path)));
    return updated.stat_for(path);
  }

  const session_id owner = options.ephemeral.value_or(no_session);
  if (options.ephemeral && !_open_sessions.contains(owner)) {
    return fail(errc::unknown_session,
                fmt::format("can't create ephemeral node '{}': session {:#x} is not open", path, owner.value()));
  }
  MAGNETAR_TRY(ancestors, missing_ancestors(path));
  for (const auto& ancestor : ancestors) {
    const layout::node_record empty{.version = 0, .created_ms = now, .modified_ms = now};
    w.batch.Put(layout::node_key(ancestor), layout::encode_record(empty));
    w.events.push_back({notification_type::created, ancestor});
    w.events.push_back({notification_type::children_changed, std::string(parent_of(ancestor))});
  }
  const layout::node_record created{
      .version = 0, .created_ms = now, .modified_ms = now, .owner = owner, .value = value};
  w.batch.Put(layout::node_key(path), layout::encode_record(created));
  if (owner != no_session) w.batch.Put(layout::ephemeral_key(owner, path), "");
  w.events.push_back({notification_type::created, path});
  w.events.push_back({notification_type::children_changed, std::string(parent_of(path))});
  MAGNETAR_TRY(commit(w, fmt::format("create '{}'", path)));
  return created.stat_for(path);
}

result<void> rocksdb_tree::remove(const std::string& path, std::optional<std::int64_t> expected_version) {
  std::lock_guard lock(_write_mutex);
  MAGNETAR_TRY(existing, read_node(path));
  if (!existing) return fail(errc::not_found, fmt::format("can't remove '{}': no such node", path));
  if (expected_version && *expected_version != existing->version) {
    return fail(errc::bad_version, fmt::format("can't remove '{}': it is at version {}; expected version {}", path,
                                               existing->version, *expected_version));
  }
  MAGNETAR_TRY(child, scan(layout::children_prefix(path), 1));
  if (!child.empty()) {
    return fail(errc::not_empty, fmt::format("can't remove '{}': it has children (such as '{}')", path,
                                             layout::path_of_node_key(child.front().first)));
  }
  pending_write w;
  delete_node(w, path, existing->owner);
  return commit(w, fmt::format("remove '{}'", path));
}

result<void> rocksdb_tree::remove_recursive(const std::string& path) {
  std::lock_guard lock(_write_mutex);
  constexpr auto all = std::numeric_limits<std::size_t>::max();
  MAGNETAR_TRY(direct, scan(layout::children_prefix(path), all));
  MAGNETAR_TRY(deeper, scan(layout::deeper_prefix(path), all));
  MAGNETAR_TRY(self, read_node(path));

  struct doomed {
    std::string path;
    session_id owner;
  };
  std::vector<doomed> nodes;
  for (const auto* range : {&direct, &deeper}) {
    for (const auto& [key, bytes] : *range) {
      auto node_path = layout::path_of_node_key(key);
      MAGNETAR_TRY(record, layout::decode_record(node_path, bytes));
      nodes.push_back({std::move(node_path), record.owner});
    }
  }
  if (self) nodes.push_back({path, self->owner});
  if (nodes.empty()) return success();
  // Leaves first, as a client deleting one node at a time would have to.
  std::stable_sort(nodes.begin(), nodes.end(), [](const doomed& a, const doomed& b) {
    const auto da = depth_of(a.path), db = depth_of(b.path);
    return da != db ? da > db : a.path < b.path;
  });
  pending_write w;
  for (const auto& node : nodes) delete_node(w, node.path, node.owner);
  return commit(w, fmt::format("remove '{}' and {} nodes under it", path, nodes.size() - (self ? 1 : 0)));
}

}  // namespace magnetar::meta
