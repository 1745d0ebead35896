// journal: a bookie's write-ahead log with group commit.
//
// An entry is acknowledged only once its journal record is on disk. One
// writer thread per journal takes everything that queued up while its
// previous fdatasync ran, writes it as one group and syncs once, so a sync
// covers as many entries as arrive meanwhile (max_group_wait > 0 holds a
// small group back to gather more). Several
// journals (one per directory, each with its own sync stream) run in parallel
// on disks where concurrent syncs overlap.
//
// Files roll past max_file_bytes. A file reclaimed after a checkpoint is kept as
// a spare (up to max_spare_files) and reused for a later one, as BookKeeper's
// journalReuseFiles does: writing over blocks already written is the cheapest
// sync there is (no file size or block map to commit). A new file has its
// blocks allocated ahead of the writes instead (preallocate_bytes at a time,
// fallocate). Zeros written ahead cost as much disk bandwidth as the records,
// and the sync that flushed them stalled every group behind it (p99 at 30k
// 1 KiB adds/s: 27-34 ms); allocated blocks cost each sync an extent
// conversion (p50 ~250 -> ~400 us, and a p99 of 2.5 ms against 0.8 ms at 30k 100 B adds/s);
// reused files cost neither. So a new file's blocks are also zeroed ahead of the writer,
// up to zero_ahead_bytes beyond it, by the preparer thread through a handle of its own
// that bypasses the page cache (io::file::zero_uncached): the writer's syncs then find
// written blocks, as in a reused file, and have no zeros of their own to flush. The
// writer never writes where a zeroing runs: it claims its range first, and the preparer
// zeroes only past the last claim. Files older than a checkpoint mark are removed by
// reclaim() once ledger storage has flushed their entries. Synced records leave the page cache behind the writer
// (drop_written_pages_every). On open, the files left by the previous run are kept for replay() and new records go to a
// new file.
//
// Thread-safety: append() may be called from any thread or shard; replay(),
// reclaim() and stop() from one controlling thread.
#pragma once

#include "base/histogram.h"
#include "base/result.h"
#include "bookie/journal_format.h"
#include "io/asio.h"
#include "io/file_system.h"

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::bookie {

struct journal_options {
  std::string directory;
  io::file_system* fs = &io::posix_file_system();
  std::uint64_t max_file_bytes = 512ull << 20;
  // With max_group_wait > 0 the writer holds a group back for up to that
  // long, or until max_group_bytes are queued, to gather more per sync.
  // With 0 (the default) it syncs as soon as the previous sync is done.
  std::chrono::microseconds max_group_wait{0};
  std::uint64_t max_group_bytes = 4ull << 20;
  std::uint64_t preallocate_bytes = 16ull << 20;
  // How far ahead of the writer a new (not reused) file's blocks are zeroed; 0: not.
  std::uint64_t zero_ahead_bytes = 8ull << 20;
  std::size_t max_record_bytes = 8ull << 20;
  // Reclaimed files kept for reuse; the others are removed.
  std::size_t max_spare_files = 2;
  // Synced records leave the page cache (file::drop_cached) once this many bytes are
  // behind the writer, as BookKeeper's journalRemovePagesFromCache: only a replay
  // reads them, and cached they would push out the entry logs that readers want. The
  // writer's pages then come back from the kernel's free lists instead of growing the
  // cache. 0 keeps them cached.
  std::uint64_t drop_written_pages_every = 1ull << 20;
};

struct journal_stats {
  std::uint64_t records = 0;
  std::uint64_t bytes = 0;
  std::uint64_t groups = 0;         // = fdatasyncs of record data
  std::uint64_t files_created = 0;  // reused ones included
  std::uint64_t files_reused = 0;
  std::uint64_t files_prepared = 0;  // ahead of need, by the preparer
  std::uint64_t files_reclaimed = 0;
  std::uint64_t bytes_zeroed_ahead = 0;
};

class journal {
 public:
  // Called on the journal's writer thread once the records are durable (or
  // failed). Must not block: post to where the work continues.
  using completion = std::function<void(const error*)>;

  static result<std::unique_ptr<journal>> open(const journal_options& options);
  ~journal();

  // Hands every record of the previous run's files to `visit`, oldest first.
  result<journal_scan> replay(const std::function<result<void>(const journal_record&)>& visit);

  // Queues the records as one unit; `done` runs once they are all durable.
  // The payloads are copied before append returns.
  void append(std::span<const journal_record> records, completion done);

  // The error append() would give a record of this size right now
  // (too_large, or journal_failed once the journal has failed or stopped).
  result<void> check_append(std::size_t payload_bytes) const;

  // As append(records, done), with `done` run on `executor` (never before this returns):
  // the completions of one group are posted there together, one wake-up per group and
  // executor however many records the group holds.
  void append(std::span<const journal_record> records, asio::any_io_executor executor, completion done);

  // Completes, on the caller's executor, once the records are durable:
  // success, or journal_failed (after a write or sync error the journal takes
  // no more records), or too_large.
  awaitable<result<void>> append(std::span<const journal_record> records);

  // A mark for a checkpoint: every record appended before it is in the
  // mark's file or a later one, or in an older file that is fully written.
  std::uint64_t checkpoint_mark() const;
  // Retires the files wholly before `mark` (their entries are flushed): kept as
  // spares for reuse, or removed.
  result<void> reclaim(std::uint64_t mark);

  // Writes what is queued, then ends the writer thread. Appends after stop fail.
  void stop();

  journal_stats stats() const;
  // The durations of the journal's fdatasyncs of record data, in nanoseconds: the
  // disk's own sync latency under this journal's writes, beside which an add's is read.
  base::histogram sync_latency() const;
  // Appends waiting for the writer to take them.
  std::size_t queued_appends() const;
  const std::string& directory() const { return _options.directory; }

 private:
  // The records queued since the writer last took a group, already encoded
  // back to back: the writer swaps the whole group out and writes it with one
  // call, so an append costs a copy and a push, not an allocation.
  struct group {
    std::vector<std::byte> bytes;
    std::vector<completion> completions;
    std::uint64_t records = 0;
    bool empty() const { return completions.empty(); }
  };

  explicit journal(journal_options options);
  // A file ready to take records: header and end marker written, blocks allocated,
  // synced, its name synced in the directory.
  struct prepared_file {
    std::uint64_t sequence = 0;
    std::unique_ptr<io::file> file;
    std::uint64_t allocated_to = 0;
    bool reused = false;
  };
  result<prepared_file> prepare_file(std::uint64_t sequence);
  // Moves the writer to the next file: the one prepared ahead, else one prepared now.
  result<void> start_new_file();
  // Opens a spare under `path`, or nullptr when there is none.
  result<std::unique_ptr<io::file>> reuse_spare(const std::string& path);
  // Prepares the file after the writer's while the writer fills its own: a roll
  // otherwise stalled every add behind a rename, header sync and directory sync.
  void run_preparer();
  // The next range of the writer's file to zero ahead of it, if any (under _mutex).
  std::optional<std::pair<std::uint64_t, std::uint64_t>> zeroing_wanted() const;
  void zero_ahead(std::uint64_t sequence, std::uint64_t from, std::uint64_t to);
  // Before the writer writes up to `end`: waits out a zeroing under way there, and keeps
  // the preparer behind `end` from now on.
  void claim_for_writer(std::uint64_t end);
  result<void> ensure_room(std::uint64_t bytes);
  void run_writer();
  // Writes the records (and an end marker after them) into the current file.
  result<void> write_group(std::vector<std::byte>& bytes);
  void drop_synced_pages();

  const journal_options _options;
  std::vector<std::uint64_t> _replay_files;  // the previous run's, oldest first

  // Owned by the writer thread (and open() before it starts).
  std::unique_ptr<io::file> _file;
  std::uint64_t _file_sequence = 0;
  std::uint32_t _salt = 0;
  std::uint64_t _write_offset = 0;
  std::uint64_t _allocated_to = 0;
  std::uint64_t _cache_dropped_to = 0;  // the current file's pages before it are dropped

  mutable std::mutex _mutex;
  std::condition_variable _wake_writer;
  group _queued;
  bool _writer_idle = false;  // waiting for records: an append must wake it
  bool _stopping = false;
  std::optional<error> _failure;
  std::uint64_t _current_sequence = 0;  // the writer's file, as seen by checkpoint_mark()
  std::vector<std::string> _spares;     // names of reclaimed files kept for reuse
  journal_stats _stats;
  base::histogram _sync_ns{60'000'000'000};
  std::condition_variable _wake_preparer;
  std::condition_variable _file_prepared;
  std::optional<std::uint64_t> _next_wanted;  // the file the preparer is to prepare next
  bool _preparing = false;
  std::optional<prepared_file> _prepared;
  // Zeroing ahead of the writer in its current file (when that file is new).
  struct zeroing {
    std::uint64_t sequence = 0;
    bool wanted = false;
    bool running = false;
    std::uint64_t zeroed_to = 0;   // written or zeroed below this
    std::uint64_t claimed_to = 0;  // the writer writes below this
  } _zeroing;
  std::thread _writer;
  std::thread _preparer;
};

}  // namespace magnetar::bookie
