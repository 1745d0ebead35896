#include "io/faulty_file_system.h"

#include "base/assert.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>

namespace magnetar::io {

namespace {
std::error_code os_error(int err) { return {err, std::system_category()}; }
}  // namespace

// A file opened through the faulty file system: every call goes to the real
// file, under the file system's lock so that crash() sees a consistent state.
class faulty_file final : public file {
 public:
  faulty_file(faulty_file_system& fs, std::unique_ptr<file> real, std::shared_ptr<faulty_file_system::file_state> state,
              std::uint64_t generation)
      : file(real->path()), _fs(fs), _real(std::move(real)), _state(std::move(state)), _generation(generation) {}

  result<void> write_at(std::uint64_t offset, std::span<const std::byte> bytes) override {
    std::lock_guard lock(_fs._mutex);
    MAGNETAR_TRY(check_alive());
    return _fs.write(*_real, *_state, offset, bytes);
  }
  result<std::size_t> read_at(std::uint64_t offset, std::span<std::byte> out) override {
    std::lock_guard lock(_fs._mutex);
    MAGNETAR_TRY(check_alive());
    return _real->read_at(offset, out);
  }
  result<void> sync() override {
    _fs.wait_while_syncs_held();
    std::lock_guard lock(_fs._mutex);
    MAGNETAR_TRY(check_alive());
    return _fs.sync(*_real, *_state);
  }
  result<void> truncate(std::uint64_t size) override {
    std::lock_guard lock(_fs._mutex);
    MAGNETAR_TRY(check_alive());
    // Record the cut bytes as an overwrite so that a crash restores them.
    MAGNETAR_TRY(old_size, _real->size());
    if (size < old_size) {
      faulty_file_system::undo_record undo{size, 0, old_size, std::vector<std::byte>(old_size - size)};
      MAGNETAR_TRY(_real->read_at(size, undo.old_bytes));
      _state->unsynced.push_back(std::move(undo));
    } else {
      _state->unsynced.push_back({old_size, size - old_size, old_size, {}});
    }
    return _real->truncate(size);
  }
  result<std::uint64_t> size() override {
    std::lock_guard lock(_fs._mutex);
    MAGNETAR_TRY(check_alive());
    return _real->size();
  }

 private:
  result<void> check_alive() const {
    if (_generation != _fs._generation) {
      return fail(os_error(EIO), fmt::format("{}: opened before a simulated crash", path()));
    }
    return success();
  }

  faulty_file_system& _fs;
  std::unique_ptr<file> _real;
  std::shared_ptr<faulty_file_system::file_state> _state;
  const std::uint64_t _generation;
};

faulty_file_system::faulty_file_system(file_system& real, std::uint64_t seed) : _real(real), _random(seed) {}

result<std::unique_ptr<file>> faulty_file_system::open(const std::string& path, open_mode mode) {
  std::lock_guard lock(_mutex);
  MAGNETAR_TRY(real, _real.open(path, mode));
  auto& state = _files[path];
  if (!state) state = std::make_shared<file_state>();
  return std::unique_ptr<file>(std::make_unique<faulty_file>(*this, std::move(real), state, _generation));
}

result<void> faulty_file_system::remove(const std::string& path) {
  std::lock_guard lock(_mutex);
  MAGNETAR_TRY(_real.remove(path));
  _files.erase(path);
  return success();
}

result<void> faulty_file_system::rename(const std::string& from, const std::string& to) {
  std::lock_guard lock(_mutex);
  MAGNETAR_TRY(_real.rename(from, to));
  auto moved = _files.extract(from);
  _files.erase(to);
  if (!moved.empty()) {
    moved.key() = to;
    _files.insert(std::move(moved));
  }
  return success();
}

result<void> faulty_file_system::sync_directory(const std::string& path) { return _real.sync_directory(path); }

result<void> faulty_file_system::create_directories(const std::string& path) { return _real.create_directories(path); }

result<std::vector<std::string>> faulty_file_system::list(const std::string& directory) {
  return _real.list(directory);
}

result<bool> faulty_file_system::exists(const std::string& path) { return _real.exists(path); }

result<void> faulty_file_system::write(file& real, file_state& state, std::uint64_t offset,
                                       std::span<const std::byte> bytes) {
  MAGNETAR_TRY(size_before, real.size());
  const std::uint64_t end = offset + bytes.size();
  const std::uint64_t growth = end > size_before ? end - size_before : 0;
  if (_free_space && growth > *_free_space) {
    return fail(os_error(ENOSPC), fmt::format("write {} bytes to {}", bytes.size(), real.path()));
  }
  undo_record undo{offset, bytes.size(), size_before, {}};
  if (offset < size_before) {
    undo.old_bytes.resize(std::min<std::uint64_t>(end, size_before) - offset);
    MAGNETAR_TRY(real.read_at(offset, undo.old_bytes));
  }
  MAGNETAR_TRY(real.write_at(offset, bytes));
  if (_free_space) *_free_space -= growth;
  state.unsynced.push_back(std::move(undo));
  return success();
}

result<void> faulty_file_system::sync(file& real, file_state& state) {
  if (_fail_syncs) return fail(os_error(EIO), fmt::format("fdatasync {} (injected)", real.path()));
  MAGNETAR_TRY(real.sync());
  ++_syncs;
  state.unsynced.clear();
  return success();
}

void faulty_file_system::crash(crash_mode mode) {
  std::lock_guard lock(_mutex);
  ++_generation;
  for (auto& [path, state] : _files) {
    if (state->unsynced.empty()) continue;
    auto restored = restore(path, *state, mode);
    MAGNETAR_ASSERT(restored, "simulated crash could not restore {}: {}", path, restored.error());
    state->unsynced.clear();
  }
}

result<void> faulty_file_system::restore(const std::string& path, file_state& state, crash_mode mode) {
  MAGNETAR_TRY(real, _real.open(path, open_mode::read_write));
  auto undo_one = [&](const undo_record& undo) -> result<void> {
    if (!undo.old_bytes.empty()) {
      MAGNETAR_TRY(real->write_at(undo.offset, undo.old_bytes));
    }
    return real->truncate(undo.size_before);
  };

  if (mode == crash_mode::drop_unsynced) {
    for (auto it = state.unsynced.rbegin(); it != state.unsynced.rend(); ++it) {
      MAGNETAR_TRY(undo_one(*it));
    }
    spdlog::debug("simulated crash: {} lost {} unsynced writes", path, state.unsynced.size());
    return real->sync();
  }

  // Torn: the earlier unsynced writes reached the disk, the last one only in
  // part (a random prefix of it), as when power fails mid-write.
  const auto& last = state.unsynced.back();
  std::vector<std::byte> prefix(
      last.length == 0 ? 0 : std::uniform_int_distribution<std::uint64_t>(0, last.length - 1)(_random));
  if (!prefix.empty()) {
    MAGNETAR_TRY(real->read_at(last.offset, prefix));
  }
  MAGNETAR_TRY(undo_one(last));
  if (!prefix.empty()) {
    MAGNETAR_TRY(real->write_at(last.offset, prefix));
  }
  spdlog::debug("simulated crash: {} kept {} of the last write's {} bytes", path, prefix.size(), last.length);
  return real->sync();
}

void faulty_file_system::set_free_space(std::optional<std::uint64_t> bytes) {
  std::lock_guard lock(_mutex);
  _free_space = bytes;
}

void faulty_file_system::fail_syncs(bool fail) {
  std::lock_guard lock(_mutex);
  _fail_syncs = fail;
}

void faulty_file_system::hold_syncs() {
  std::lock_guard lock(_hold_mutex);
  _syncs_held = true;
}

void faulty_file_system::release_syncs() {
  {
    std::lock_guard lock(_hold_mutex);
    _syncs_held = false;
  }
  _hold_released.notify_all();
}

std::size_t faulty_file_system::syncs_waiting() const {
  std::lock_guard lock(_hold_mutex);
  return _syncs_waiting;
}

void faulty_file_system::wait_while_syncs_held() {
  std::unique_lock lock(_hold_mutex);
  ++_syncs_waiting;
  _hold_released.wait(lock, [&] { return !_syncs_held; });
  --_syncs_waiting;
}

std::uint64_t faulty_file_system::sync_count() const {
  std::lock_guard lock(_mutex);
  return _syncs;
}

std::uint64_t faulty_file_system::unsynced_bytes() const {
  std::lock_guard lock(_mutex);
  std::uint64_t total = 0;
  for (const auto& [path, state] : _files) {
    for (const auto& undo : state->unsynced) total += undo.length;
  }
  return total;
}

}  // namespace magnetar::io
