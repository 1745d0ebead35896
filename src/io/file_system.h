// file_system: the one door through which magnetar touches the disk.
//
// Journals, entry logs and cursor files open files through this interface, so
// that a test can put faulty_file_system underneath and inject what disks do
// (lose unsynced writes at a crash, tear the last write, fill up, fail a
// sync) while everything else stays real. RocksDB (metadata store, entry
// index) does its own file I/O and is outside this door.
//
// Every call blocks: run it on an io::blocking_pool or a dedicated thread,
// never on a shard. A file object is used by one thread at a time; the file
// system object is thread-safe.
#pragma once

#include "base/result.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace magnetar::io {

class file {
 public:
  virtual ~file() = default;

  // Writes all of `bytes` at `offset`, extending the file when needed.
  virtual result<void> write_at(std::uint64_t offset, std::span<const std::byte> bytes) = 0;
  // Reads up to out.size() bytes at `offset`; fewer only at the end of the file.
  virtual result<std::size_t> read_at(std::uint64_t offset, std::span<std::byte> out) = 0;
  // Makes everything written so far durable (fdatasync).
  virtual result<void> sync() = 0;
  virtual result<void> truncate(std::uint64_t size) = 0;
  virtual result<std::uint64_t> size() = 0;
  // Makes [offset, offset + length) part of the file with its blocks reserved, reading
  // as zeros where nothing was written, so that later writes there change neither the
  // file's size nor its block map. This default writes the zeros.
  virtual result<void> allocate(std::uint64_t offset, std::uint64_t length) {
    static const std::vector<std::byte> zeros(1 << 20);
    while (length > 0) {
      const auto n = std::min<std::uint64_t>(length, zeros.size());
      MAGNETAR_TRY(write_at(offset, std::span(zeros).first(n)));
      offset += n;
      length -= n;
    }
    return success();
  }

  // Writes zeros over [offset, offset + length) around the page cache (O_DIRECT where the
  // file system has it; offset and length multiples of 4096), so that blocks reserved by
  // allocate() become written blocks, which a later sync need not convert, without
  // leaving dirty pages behind that another handle's sync() would then wait for. Not
  // synced: a crash leaves zeros either way. This default writes the zeros through
  // write_at.
  virtual result<void> zero_uncached(std::uint64_t offset, std::uint64_t length) {
    return file::allocate(offset, length);
  }

  // A hint that [offset, offset + length) won't be read again soon: the kernel may let
  // its clean cached pages go (length 0: to the end of the file). Nothing written is
  // lost; unsynced pages stay. Data only read back after a crash (a journal) need not
  // push out data that readers want (entry logs). This default ignores the hint.
  virtual void drop_cached(std::uint64_t offset, std::uint64_t length) {
    (void)offset;
    (void)length;
  }

  const std::string& path() const { return _path; }

 protected:
  explicit file(std::string path) : _path(std::move(path)) {}

 private:
  std::string _path;
};

enum class open_mode {
  read_only,   // the file must exist
  read_write,  // the file must exist
  create,      // read-write; created when missing, kept when present
  create_new,  // read-write; fails with already_exists when present
};

class file_system {
 public:
  virtual ~file_system() = default;

  virtual result<std::unique_ptr<file>> open(const std::string& path, open_mode mode) = 0;
  virtual result<void> remove(const std::string& path) = 0;
  // Atomically replaces `to` with `from` (both in one directory).
  virtual result<void> rename(const std::string& from, const std::string& to) = 0;
  // Makes the directory's entries (created, renamed, removed files) durable.
  virtual result<void> sync_directory(const std::string& path) = 0;
  virtual result<void> create_directories(const std::string& path) = 0;
  // Names (not paths) of the directory's entries, sorted.
  virtual result<std::vector<std::string>> list(const std::string& directory) = 0;
  virtual result<bool> exists(const std::string& path) = 0;
};

// The real disk, through POSIX calls.
file_system& posix_file_system();

}  // namespace magnetar::io
