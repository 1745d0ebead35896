#include "bookie/entry_log.h"

#include "bookie/entry_log_format.h"
#include "bookie/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <mutex>

namespace magnetar::bookie {

namespace format = entry_log_format;

namespace {

constexpr std::string_view log_suffix = ".log";
constexpr std::size_t log_id_digits = 16;

// "000000000000002a.log" -> 42; other names are not entry logs.
std::optional<entry_log_id> parse_log_name(std::string_view name) {
  if (name.size() != log_id_digits + log_suffix.size() || !name.ends_with(log_suffix)) return std::nullopt;
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(name.data(), name.data() + log_id_digits, id, 16);
  if (ec != std::errc() || end != name.data() + log_id_digits || id == 0) return std::nullopt;
  return entry_log_id(id);
}

std::uint64_t record_bytes(std::size_t payload) { return format::record_header_size + payload; }

}  // namespace

bool entry_log::is_log_name(std::string_view name) { return parse_log_name(name).has_value(); }

entry_log::entry_log(const entry_log_options& options) : _options(options), _fs(*options.fs) {}

std::string entry_log::path_of(entry_log_id id) const {
  return fmt::format("{}/{:016x}{}", _options.directory, id.value(), log_suffix);
}

result<std::unique_ptr<entry_log>> entry_log::open(const entry_log_options& options,
                                                   const std::map<entry_log_id, indexed_log>& indexed) {
  MAGNETAR_ASSERT(options.fs != nullptr && options.max_log_bytes > 0, "entry log options for {}", options.directory);
  std::unique_ptr<entry_log> logs(new entry_log(options));
  MAGNETAR_TRY(logs->_fs.create_directories(options.directory));
  MAGNETAR_TRY(names, logs->_fs.list(options.directory));
  std::uint64_t highest = 0;
  for (const auto& [id, record] : indexed) highest = std::max(highest, id.value());
  for (const auto& name : names) {
    const auto id = parse_log_name(name);
    if (!id) continue;
    highest = std::max(highest, id->value());
    const auto it = indexed.find(*id);
    if (it == indexed.end() || it->second.removed) {
      // Nothing in the index points into it: a log created by a flush that
      // never committed, or one whose removal a crash undid.
      spdlog::info("entry log {}: not referenced by the index, removing it", logs->path_of(*id));
      MAGNETAR_TRY(logs->_fs.remove(logs->path_of(*id)));
      logs->_recovery.unindexed.push_back(*id);
      continue;
    }
    MAGNETAR_TRY(logs->recover(*id, it->second));
  }
  for (const auto& [id, record] : indexed) {
    if (!record.removed && !logs->_logs.contains(id)) {
      spdlog::error("entry log {}: the index refers to it but it does not exist", logs->path_of(id));
      logs->_recovery.missing.push_back(id);
    }
  }
  logs->_next_id = entry_log_id(highest + 1);
  return logs;
}

result<void> entry_log::recover(entry_log_id id, const indexed_log& indexed) {
  MAGNETAR_TRY(file, entry_log_file::open(_fs, path_of(id), id));
  log_state state{.file = file};
  MAGNETAR_TRY(footer, file->read_footer());
  if (footer && footer->data_end >= indexed.committed_end) {
    state.metadata = std::move(footer->metadata);
    _logs.emplace(id, std::move(state));
    return success();
  }
  MAGNETAR_TRY(outcome, file->scan(indexed.committed_end, [&](const scanned_record& r, std::span<const std::byte>) {
    state.metadata.add(r.ledger, record_bytes(r.location.length));
    return result<void>(success());
  }));
  if (outcome.valid_end < indexed.committed_end) {
    spdlog::error("entry log {}: corrupt before its committed end {}: {}; keeping it, out of garbage collection",
                  file->path(), indexed.committed_end,
                  outcome.problem.empty() ? fmt::format("the file ends at {}", outcome.valid_end) : outcome.problem);
    state.damaged = true;
    _recovery.damaged.push_back(id);
    _logs.emplace(id, std::move(state));
    return success();
  }
  MAGNETAR_TRY(size, file->file_size());
  if (size > indexed.committed_end) {
    // Records past the committed end were never indexed: a flush cut short.
    spdlog::info("entry log {}: cutting {} bytes past its committed end {}", file->path(), size - indexed.committed_end,
                 indexed.committed_end);
    MAGNETAR_TRY(file->truncate(indexed.committed_end));
    _recovery.bytes_cut += size - indexed.committed_end;
  }
  _logs.emplace(id, std::move(state));
  seal_quietly(file);
  return success();
}

entry_log::~entry_log() {
  if (!_current) return;
  rollback();
  if (_current && _committed > format::file_header_size) seal_quietly(_current);
}

void entry_log::seal_quietly(const std::shared_ptr<entry_log_file>& file) {
  entry_log_metadata metadata;
  {
    std::shared_lock lock(_mutex);
    if (const auto it = _logs.find(file->id()); it != _logs.end()) metadata = it->second.metadata;
  }
  // Only a slower next start-up depends on it: the log is scanned instead.
  if (auto sealed = file->seal(metadata); !sealed) {
    spdlog::warn("entry log {}: could not write its footer: {}", file->path(), sealed.error());
  }
}

std::shared_ptr<const entry_log_file> entry_log::find(entry_log_id id) const {
  std::shared_lock lock(_mutex);
  const auto it = _logs.find(id);
  return it == _logs.end() ? nullptr : it->second.file;
}

std::vector<entry_log_id> entry_log::log_ids() const {
  std::shared_lock lock(_mutex);
  std::vector<entry_log_id> ids;
  for (const auto& [id, state] : _logs) ids.push_back(id);
  return ids;
}

std::optional<entry_log_id> entry_log::current() const {
  std::shared_lock lock(_mutex);
  return _current ? std::optional(_current->id()) : std::nullopt;
}

result<void> entry_log::rotate() {
  const entry_log_id id = _next_id;
  MAGNETAR_TRY(file, entry_log_file::create(_fs, path_of(id), id));
  // The index will point into the new log: its name must survive a crash.
  if (auto synced = _fs.sync_directory(_options.directory); !synced) {
    (void)_fs.remove(path_of(id));
    return synced;
  }
  _next_id = entry_log_id(id.value() + 1);
  if (_current) seal_quietly(_current);
  std::unique_lock lock(_mutex);
  _logs.emplace(id, log_state{.file = file});
  _current = std::move(file);
  _committed = _current->size();
  return success();
}

result<entry_location> entry_log::append(ledger_id ledger, entry_id entry, std::span<const std::byte> payload) {
  if (!_current || (_pending.empty() && _committed >= _options.max_log_bytes)) {
    MAGNETAR_TRY(rotate());
  }
  MAGNETAR_TRY(at, _current->append(ledger, entry, payload));
  _pending.add(ledger, record_bytes(payload.size()));
  return at;
}

result<void> entry_log::sync() {
  if (!_current || _pending.empty()) return success();
  MAGNETAR_TRY(_current->sync());
  {
    std::unique_lock lock(_mutex);
    _logs.at(_current->id()).metadata.merge(_pending);
  }
  _pending = {};
  _committed = _current->size();
  return success();
}

void entry_log::rollback() {
  _pending = {};
  if (!_current || _current->size() == _committed) return;
  if (auto cut = _current->truncate(_committed); !cut) {
    // Its tail past the committed end is garbage no index entry points at;
    // recovery cuts it. New records go to a new log.
    spdlog::warn("entry log {}: could not cut back to {} after a failed write: {}; starting a new log",
                 _current->path(), _committed, cut.error());
    std::unique_lock lock(_mutex);
    _current.reset();
  }
}

std::optional<std::pair<entry_log_id, std::uint64_t>> entry_log::committed_end() const {
  if (!_current) return std::nullopt;
  return std::pair(_current->id(), _committed);
}

std::vector<sealed_log> entry_log::sealed_logs() const {
  std::vector<std::shared_ptr<entry_log_file>> files;
  std::vector<sealed_log> logs;
  {
    std::shared_lock lock(_mutex);
    for (const auto& [id, state] : _logs) {
      if (state.damaged || (_current && _current->id() == id)) continue;
      logs.push_back({.id = id, .metadata = state.metadata});
      files.push_back(state.file);
    }
  }
  for (std::size_t i = 0; i < logs.size(); ++i) {
    // A size we cannot learn only makes the reclaimed-bytes figure low.
    if (auto size = files[i]->file_size()) logs[i].file_bytes = size.value();
  }
  return logs;
}

result<void> entry_log::remove(entry_log_id id) {
  log_state removed;
  {
    std::unique_lock lock(_mutex);
    MAGNETAR_ASSERT(!_current || _current->id() != id, "removing the current entry log {}", id);
    const auto it = _logs.find(id);
    if (it == _logs.end()) return success();
    removed = std::move(it->second);
    _logs.erase(it);
  }
  if (auto gone = _fs.remove(removed.file->path()); !gone) {
    std::unique_lock lock(_mutex);
    _logs.emplace(id, std::move(removed));
    return gone;
  }
  return _fs.sync_directory(_options.directory);
}

void entry_log::mark_damaged(entry_log_id id) {
  std::unique_lock lock(_mutex);
  if (const auto it = _logs.find(id); it != _logs.end()) it->second.damaged = true;
}

}  // namespace magnetar::bookie
