// faulty_file_system: the real disk, with the faults that real disks have.
//
// It wraps another file_system (the posix one by default) and remembers, per
// file, what was written since the file's last sync. A test can then:
//   - crash(): lose every unsynced write, as a power cut does, optionally
//     keeping a torn prefix of each file's last write; every file object
//     opened before the crash fails from then on (the process "died");
//   - set_free_space(): make writes that grow files fail with ENOSPC;
//   - fail_syncs(): make sync() fail with EIO;
//   - hold_syncs(): make sync() wait, as a slow disk does, until released.
// Renames, removals and file creation count as durable at once (directory
// durability is not modelled). Thread-safe.
#pragma once

#include "io/file_system.h"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>

namespace magnetar::io {

enum class crash_mode {
  drop_unsynced,    // every unsynced write is lost whole
  torn_last_write,  // earlier unsynced writes survive; each file's last write keeps a random prefix
};

class faulty_file_system final : public file_system {
 public:
  explicit faulty_file_system(file_system& real = posix_file_system(), std::uint64_t seed = 1);

  result<std::unique_ptr<file>> open(const std::string& path, open_mode mode) override;
  result<void> remove(const std::string& path) override;
  result<void> rename(const std::string& from, const std::string& to) override;
  result<void> sync_directory(const std::string& path) override;
  result<void> create_directories(const std::string& path) override;
  result<std::vector<std::string>> list(const std::string& directory) override;
  result<bool> exists(const std::string& path) override;

  void crash(crash_mode mode = crash_mode::drop_unsynced);
  // Bytes that writes may still add to files; nullopt = unlimited.
  void set_free_space(std::optional<std::uint64_t> bytes);
  void fail_syncs(bool fail);
  // While held, sync() calls wait (a slow disk) until release_syncs(); then
  // they proceed, and fail if a crash happened meanwhile.
  void hold_syncs();
  void release_syncs();
  std::size_t syncs_waiting() const;

  std::uint64_t sync_count() const;
  // Bytes written and not yet synced, over all files.
  std::uint64_t unsynced_bytes() const;

 private:
  friend class faulty_file;

  // What one write replaced, so that a crash can put it back.
  struct undo_record {
    std::uint64_t offset;
    std::uint64_t length;
    std::uint64_t size_before;
    std::vector<std::byte> old_bytes;  // the overwritten bytes inside the old size
  };
  struct file_state {
    std::vector<undo_record> unsynced;
  };

  result<void> write(file& real, file_state& state, std::uint64_t offset, std::span<const std::byte> bytes);
  result<void> sync(file& real, file_state& state);
  void wait_while_syncs_held();
  result<void> restore(const std::string& path, file_state& state, crash_mode mode);

  file_system& _real;
  mutable std::mutex _mutex;
  std::map<std::string, std::shared_ptr<file_state>> _files;
  std::uint64_t _generation = 0;  // bumped by crash(): older file objects are dead
  std::optional<std::uint64_t> _free_space;
  bool _fail_syncs = false;
  std::uint64_t _syncs = 0;
  std::mt19937_64 _random;

  mutable std::mutex _hold_mutex;
  std::condition_variable _hold_released;
  bool _syncs_held = false;
  std::size_t _syncs_waiting = 0;
};

}  // namespace magnetar::io
