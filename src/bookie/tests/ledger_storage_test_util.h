// Helpers for the ledger storage tests: payloads that name their ids, files
// on disk, and a file system that crashes at a chosen sync.
// For tests only; used by one thread unless stated.
#pragma once

#include "base/ids.h"
#include "io/faulty_file_system.h"
#include "io/file_system.h"
#include "wire/shared_bytes.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::bookie::testing {

inline wire::shared_bytes bytes_of(std::string_view text) {
  return wire::shared_bytes::copy_of(std::as_bytes(std::span(text)));
}

inline std::string text_of(const wire::shared_bytes& bytes) { return std::string(bytes.as_chars()); }

// "ledger L entry E" padded with a repeating pattern to `size` bytes.
inline std::string payload_for(ledger_id ledger, entry_id entry, std::size_t size = 0) {
  std::string text = fmt::format("ledger {} entry {}", ledger, entry);
  for (std::size_t i = 0; text.size() < size; ++i) text.push_back(static_cast<char>('a' + i % 26));
  return text;
}

// The entry log files of a storage directory, by name, in id order.
inline std::vector<std::string> log_files(const std::string& directory) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(directory)) {
    const auto name = e.path().filename().string();
    if (name.ends_with(".log")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Flips every bit of one byte of a file, behind the storage's back.
inline void flip_byte(const std::string& path, std::uint64_t offset) {
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  file.get(c);
  file.seekp(static_cast<std::streamoff>(offset));
  file.put(static_cast<char>(~c));
}

// A file system over faulty_file_system that simulates a power cut at the
// n-th sync of a file (counting from 1): the faulty file system crashes (in
// `mode`) instead of syncing and the sync fails. Thread-safe.
class crash_at_sync_file_system final : public io::file_system {
 public:
  crash_at_sync_file_system(io::faulty_file_system& faulty, io::crash_mode mode) : _faulty(faulty), _mode(mode) {}

  // Arms the crash for the `n`-th sync from now.
  void crash_at_sync(int n) { _syncs_left = n; }
  bool crashed() const { return _crashed; }

  result<std::unique_ptr<io::file>> open(const std::string& path, io::open_mode mode) override {
    MAGNETAR_TRY(real, _faulty.open(path, mode));
    return std::unique_ptr<io::file>(std::make_unique<crashing_file>(*this, std::move(real)));
  }
  result<void> remove(const std::string& path) override { return _faulty.remove(path); }
  result<void> rename(const std::string& from, const std::string& to) override { return _faulty.rename(from, to); }
  result<void> sync_directory(const std::string& path) override { return _faulty.sync_directory(path); }
  result<void> create_directories(const std::string& path) override { return _faulty.create_directories(path); }
  result<std::vector<std::string>> list(const std::string& directory) override { return _faulty.list(directory); }
  result<bool> exists(const std::string& path) override { return _faulty.exists(path); }

 private:
  class crashing_file final : public io::file {
   public:
    crashing_file(crash_at_sync_file_system& fs, std::unique_ptr<io::file> real)
        : file(real->path()), _fs(fs), _real(std::move(real)) {}
    result<void> write_at(std::uint64_t offset, std::span<const std::byte> bytes) override {
      return _real->write_at(offset, bytes);
    }
    result<std::size_t> read_at(std::uint64_t offset, std::span<std::byte> out) override {
      return _real->read_at(offset, out);
    }
    result<void> sync() override {
      if (_fs._syncs_left > 0 && --_fs._syncs_left == 0) {
        _fs._faulty.crash(_fs._mode);
        _fs._crashed = true;
        return fail(std::error_code(EIO, std::system_category()), fmt::format("fdatasync {} (power cut)", path()));
      }
      return _real->sync();
    }
    result<void> truncate(std::uint64_t size) override { return _real->truncate(size); }
    result<std::uint64_t> size() override { return _real->size(); }

   private:
    crash_at_sync_file_system& _fs;
    std::unique_ptr<io::file> _real;
  };

  io::faulty_file_system& _faulty;
  const io::crash_mode _mode;
  std::atomic<int> _syncs_left{0};
  std::atomic<bool> _crashed{false};
};

}  // namespace magnetar::bookie::testing
