// entry_log_file: one append-only entry log file (format in entry_log_format.h).
//
// Reads come from any thread: read() fetches and verifies one record, scan()
// walks the records in order, read_footer() loads a sealed log's ledger map.
// They share one read handle under a mutex, because an io::file is used by one
// thread at a time. Writes (append, sync, truncate, seal) come from one thread
// at a time - the flush or the compaction holding entry_log's writer role -
// through a handle of their own, so a long write never holds up a read.
// Appended records are buffered and reach the file in large writes; nothing
// is durable before sync().
// All disk access goes through the io::file_system given at creation.
#pragma once

#include "base/ids.h"
#include "base/result.h"
#include "bookie/entry_location.h"
#include "bookie/entry_log_metadata.h"
#include "io/file_system.h"
#include "wire/shared_bytes.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace magnetar::bookie {

struct scanned_record {
  ledger_id ledger;
  entry_id entry;
  entry_location location;
};

// Called for each intact record; a failure stops the scan and is returned.
using scan_fn = std::function<result<void>(const scanned_record&, std::span<const std::byte> payload)>;

struct scan_outcome {
  // Where the last intact data record ends: the log's valid length.
  std::uint64_t valid_end = 0;
  // Empty when the scan reached `limit` or a footer; else why it stopped.
  std::string problem;
};

struct log_footer {
  std::uint64_t data_end = 0;
  entry_log_metadata metadata;
};

class entry_log_file {
 public:
  // Creates log `id` at `path` with its header, synced.
  static result<std::shared_ptr<entry_log_file>> create(io::file_system& fs, std::string path, entry_log_id id);
  // Opens an existing log and checks its header.
  static result<std::shared_ptr<entry_log_file>> open(io::file_system& fs, std::string path, entry_log_id id);

  entry_log_file(const entry_log_file&) = delete;
  entry_log_file& operator=(const entry_log_file&) = delete;

  entry_log_id id() const { return _id; }
  const std::string& path() const { return _path; }

  // --- reads: thread-safe ---

  // The payload of the record at `at`, which must be (ledger, entry) with an
  // intact checksum; else corrupt_record naming the log, offset and ids.
  result<wire::shared_bytes> read(const entry_location& at, ledger_id ledger, entry_id entry) const;
  // The payloads of entries first, first + 1, ... of `ledger`, whose records lie back to
  // back at `run` (each starts where the one before ends), appended to `out`: one pread
  // into one buffer that the payloads share. Checked as read() checks one record.
  result<void> read_run(std::span<const entry_location> run, ledger_id ledger, entry_id first,
                        std::vector<wire::shared_bytes>& out) const;
  // Visits the data records from the header up to `limit` (or the end of the
  // file), stopping at the first that is torn, corrupt or a footer.
  result<scan_outcome> scan(std::uint64_t limit, const scan_fn& fn) const;
  // The footer of a sealed log; nullopt when the log has none or it is damaged.
  result<std::optional<log_footer>> read_footer() const;
  result<std::uint64_t> file_size() const;

  // --- writes: one thread at a time ---

  // Bytes appended so far, buffered ones included: where the next record goes.
  std::uint64_t size() const { return _size; }
  result<entry_location> append(ledger_id ledger, entry_id entry, std::span<const std::byte> payload);
  // Writes out the buffer and makes everything appended durable.
  result<void> sync();
  // Drops everything past `size`, buffered or written (not synced).
  result<void> truncate(std::uint64_t size);
  // Writes the footer for `metadata` after the records and syncs: the log is
  // sealed and gets no more records.
  result<void> seal(const entry_log_metadata& metadata);

 private:
  entry_log_file(io::file_system& fs, std::string path, entry_log_id id, std::unique_ptr<io::file> reader);

  result<io::file*> writer();
  result<void> write_buffer();
  // Success when `record` (header and payload) is entry (ledger, entry) as `at` describes
  // it, with an intact checksum; else corrupt_record naming the log, offset and ids.
  result<void> check_record(std::span<const std::byte> record, const entry_location& at, ledger_id ledger,
                            entry_id entry) const;
  // Reads exactly out.size() bytes at `offset`; false at a short read.
  result<bool> read_exact(std::uint64_t offset, std::span<std::byte> out) const;

  io::file_system& _fs;
  const std::string _path;
  const entry_log_id _id;

  mutable std::mutex _read_mutex;
  std::unique_ptr<io::file> _reader;  // guarded by _read_mutex

  std::unique_ptr<io::file> _writer;  // opened on the first write
  std::uint64_t _size = 0;
  std::uint64_t _written = 0;      // the bytes before this offset are in the file
  std::vector<std::byte> _buffer;  // the bytes [_written, _size)
};

}  // namespace magnetar::bookie
