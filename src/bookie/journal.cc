#include "bookie/journal.h"

#include "base/assert.h"
#include "bookie/errc.h"

#include <fmt/format.h>
#include <pthread.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace magnetar::bookie {
namespace {

std::string path_of(const journal_options& options, std::uint64_t sequence) {
  return options.directory + "/" + journal_file_name(sequence);
}

// A reclaimed file kept for reuse: "spare-" and its journal name (which replay ignores).
constexpr std::string_view spare_prefix = "spare-";

bool is_spare(const std::string& name) {
  return name.starts_with(spare_prefix) && parse_journal_file_name(name.substr(spare_prefix.size())).has_value();
}

constexpr std::uint64_t round_up_to_page(std::uint64_t n) {
  return (n + journal_page_size - 1) / journal_page_size * journal_page_size;
}

// Zeroing goes a chunk at a time: the writer waits out at most one when it catches up.
std::uint64_t zero_chunk_bytes(const journal_options& options) {
  const std::uint64_t most = 1 << 20;
  return std::max(journal_page_size, std::min(most, options.zero_ahead_bytes) / journal_page_size * journal_page_size);
}

}  // namespace

journal::journal(journal_options options) : _options(std::move(options)) {}

result<std::unique_ptr<journal>> journal::open(const journal_options& options) {
  auto& fs = *options.fs;
  MAGNETAR_TRY(fs.create_directories(options.directory));
  MAGNETAR_TRY(names, fs.list(options.directory));
  std::unique_ptr<journal> j(new journal(options));
  for (const auto& name : names) {
    if (auto sequence = parse_journal_file_name(name)) j->_replay_files.push_back(*sequence);
    if (is_spare(name)) j->_spares.push_back(name);
  }
  std::sort(j->_replay_files.begin(), j->_replay_files.end());
  j->_file_sequence = j->_replay_files.empty() ? 0 : j->_replay_files.back();
  // A spare's old sequence counts too: a file is never reused under a sequence (and
  // salt) it had before, even if journal files were removed by hand.
  for (const auto& spare : j->_spares) {
    j->_file_sequence = std::max(j->_file_sequence, *parse_journal_file_name(spare.substr(spare_prefix.size())));
  }
  j->_preparer = std::thread([raw = j.get()] { raw->run_preparer(); });
  if (auto started = j->start_new_file(); !started) {
    j->stop();
    return fail(std::move(started).error());
  }
  j->_writer = std::thread([raw = j.get()] { raw->run_writer(); });
  return j;
}

journal::~journal() { stop(); }

result<journal_scan> journal::replay(const std::function<result<void>(const journal_record&)>& visit) {
  // Only the file being written at a crash can end mid-record or lack its
  // header (a crash while a new file was created): records are synced before
  // the journal moves to a newer file. So a damaged file is the unacknowledged
  // tail only if no newer file holds records; otherwise synced data was lost,
  // and the bookie must not start as if nothing happened.
  journal_scan total;
  std::optional<std::string> damage;  // the latest damaged file, not yet explained
  for (std::size_t i = 0; i < _replay_files.size(); ++i) {
    const auto path = path_of(_options, _replay_files[i]);
    MAGNETAR_TRY(file, _options.fs->open(path, io::open_mode::read_only));
    MAGNETAR_TRY(size, file->size());
    std::vector<std::byte> bytes(size);
    MAGNETAR_TRY(file->read_at(0, bytes));
    const auto header = decode_journal_header(bytes);
    if (!header) {
      damage = fmt::format("{}: no valid header ({} bytes)", path, size);
      continue;
    }
    // A reused file whose new header never reached the disk: it holds no records of
    // this use (records are written only after the header is synced).
    if (header.value().sequence != _replay_files[i]) {
      spdlog::info("journal: {}: a reused file whose new header (sequence {}) never reached the disk: no records", path,
                   _replay_files[i]);
      continue;
    }
    result<void> visited = success();
    auto scan = scan_journal_records(std::span(bytes).subspan(journal_header_size), header.value().salt,
                                     [&](const journal_record& r) {
                                       if (visited) visited = visit(r);
                                     });
    MAGNETAR_TRY(std::move(visited));
    if (scan.records > 0 && damage) {
      return fail(errc::corrupt_record, fmt::format("journal {} is damaged but a newer file has records: synced "
                                                    "data was lost",
                                                    *damage));
    }
    if (!scan.clean_end) {
      damage = fmt::format("{}: torn or corrupt record at offset {} after {} records", path,
                           journal_header_size + scan.valid_bytes, scan.records);
    }
    total.records += scan.records;
    total.valid_bytes += scan.valid_bytes;
    total.clean_end = total.clean_end && scan.clean_end;
  }
  if (damage) spdlog::info("journal: {}: the unacknowledged tail of the last write, cut", *damage);
  return total;
}

result<void> journal::check_append(std::size_t payload_bytes) const {
  if (payload_bytes > _options.max_record_bytes) {
    return fail(errc::too_large,
                fmt::format("an entry of {} bytes (limit {})", payload_bytes, _options.max_record_bytes));
  }
  std::lock_guard lock(_mutex);
  if (_failure) return fail(*_failure);
  if (_stopping) return fail(errc::journal_failed, _options.directory + " is stopped");
  return success();
}

void journal::append(std::span<const journal_record> records, completion done) {
  for (const auto& record : records) {
    if (record.payload.size() > _options.max_record_bytes) {
      const error too_large(errc::too_large,
                            fmt::format("entry {}:{} of {} bytes (limit {})", record.ledger, record.entry,
                                        record.payload.size(), _options.max_record_bytes));
      done(&too_large);
      return;
    }
  }
  std::unique_lock lock(_mutex);
  if (_failure || _stopping) {
    const error refused = _failure ? *_failure : error(errc::journal_failed, _options.directory + " is stopped");
    lock.unlock();
    done(&refused);
    return;
  }
  for (const auto& record : records) append_journal_record(_queued.bytes, record);
  _queued.records += records.size();
  _queued.completions.push_back(std::move(done));
  // Wake an idle writer for the first record of a group; a writer holding a
  // group back (max_group_wait) re-checks its byte bound when woken again.
  const bool wake = _writer_idle && (_queued.completions.size() == 1 || _options.max_group_wait.count() == 0 ||
                                     _queued.bytes.size() >= _options.max_group_bytes);
  lock.unlock();
  if (wake) _wake_writer.notify_one();
}

namespace {

// The coroutines that a group's sync completes are resumed with one post per executor
// (a broker shard), not one per record: at 30,000 adds a second, a post (a lock and a
// wake-up of the shard) per add cost the shard more than the resumptions themselves.
// The writer thread collects them while it runs a group's completions; a completion run
// elsewhere (a refused append) posts at once.
class resumptions {
 public:
  // While a batch is collecting on this thread.
  static resumptions* collecting() { return _current; }

  resumptions() { _current = this; }
  ~resumptions() {
    _current = nullptr;
    for (auto& [executor, resumes] : _by_executor) {
      asio::post(executor, [resumes = std::move(resumes)]() {
        for (const auto& resume : resumes) resume();
      });
    }
  }
  resumptions(const resumptions&) = delete;
  resumptions& operator=(const resumptions&) = delete;

  void add(const asio::any_io_executor& executor, std::function<void()> resume) {
    for (auto& [e, resumes] : _by_executor) {
      if (e == executor) {
        resumes.push_back(std::move(resume));
        return;
      }
    }
    _by_executor.emplace_back(executor, std::vector<std::function<void()>>{std::move(resume)});
  }

 private:
  static thread_local resumptions* _current;
  std::vector<std::pair<asio::any_io_executor, std::vector<std::function<void()>>>> _by_executor;
};

thread_local resumptions* resumptions::_current = nullptr;

}  // namespace

void journal::append(std::span<const journal_record> records, asio::any_io_executor executor, completion done) {
  append(records, [executor = std::move(executor), done = std::move(done)](const error* failure) mutable {
    auto resume = [done = std::move(done), failed = failure != nullptr, e = failure ? *failure : error()] {
      done(failed ? &e : nullptr);
    };
    if (auto* batch = resumptions::collecting()) {
      batch->add(executor, std::move(resume));
    } else {
      asio::post(executor, std::move(resume));
    }
  });
}

awaitable<result<void>> journal::append(std::span<const journal_record> records) {
  auto outcome = co_await asio::async_initiate<const asio::use_awaitable_t<>&, void(error)>(
      [this](auto handler, std::span<const journal_record> recs) {
        asio::any_io_executor executor = asio::get_associated_executor(handler);
        // std::function needs a copyable callable; the handler is move-only.
        auto shared = std::make_shared<decltype(handler)>(std::move(handler));
        append(recs, executor, [shared](const error* failure) { (*shared)(failure ? *failure : error()); });
      },
      asio::use_awaitable, records);
  if (outcome.code()) co_return fail(std::move(outcome));
  co_return success();
}

std::uint64_t journal::checkpoint_mark() const {
  std::lock_guard lock(_mutex);
  return _current_sequence;
}

result<void> journal::reclaim(std::uint64_t mark) {
  std::vector<std::uint64_t> kept;
  for (auto sequence : _replay_files) {
    if (sequence < mark) continue;
    kept.push_back(sequence);
  }
  MAGNETAR_TRY(names, _options.fs->list(_options.directory));
  bool retired = false;
  for (const auto& name : names) {
    auto sequence = parse_journal_file_name(name);
    if (!sequence || *sequence >= mark) continue;
    retired = true;
    bool keep = false;
    {
      std::lock_guard lock(_mutex);
      keep = _spares.size() < _options.max_spare_files;
    }
    const auto path = _options.directory + "/" + name;
    if (keep) {
      const auto spare = std::string(spare_prefix) + name;
      MAGNETAR_TRY(_options.fs->rename(path, _options.directory + "/" + spare));
      std::lock_guard lock(_mutex);
      _spares.push_back(spare);
    } else {
      MAGNETAR_TRY(_options.fs->remove(path));
    }
    std::lock_guard lock(_mutex);
    ++_stats.files_reclaimed;
  }
  _replay_files = std::move(kept);
  // A directory sync is a device flush, which the writer's syncs would wait behind.
  if (!retired) return success();
  return _options.fs->sync_directory(_options.directory);
}

void journal::stop() {
  {
    std::lock_guard lock(_mutex);
    if (_stopping) return;
    _stopping = true;
  }
  _wake_writer.notify_one();
  _wake_preparer.notify_one();
  if (_writer.joinable()) _writer.join();
  if (_preparer.joinable()) _preparer.join();
}

std::size_t journal::queued_appends() const {
  std::lock_guard lock(_mutex);
  return _queued.completions.size();
}

journal_stats journal::stats() const {
  std::lock_guard lock(_mutex);
  return _stats;
}

base::histogram journal::sync_latency() const {
  std::lock_guard lock(_mutex);
  return _sync_ns;
}

result<journal::prepared_file> journal::prepare_file(std::uint64_t sequence) {
  const auto path = path_of(_options, sequence);
  prepared_file next{.sequence = sequence};
  MAGNETAR_TRY(file, reuse_spare(path));
  next.reused = file != nullptr;
  std::uint64_t allocated = 0;
  if (next.reused) {
    MAGNETAR_TRY(size, file->size());
    allocated = size;
  } else {
    MAGNETAR_TRY(created, _options.fs->open(path, io::open_mode::create_new));
    file = std::move(created);
  }
  // The header, and an end marker before whatever a reused file still holds.
  auto head = encode_journal_header(sequence);
  head.resize(journal_header_size + journal_end_marker_size);
  MAGNETAR_TRY(file->write_at(0, head));
  allocated = std::max<std::uint64_t>(allocated, head.size());
  const auto wanted = journal_header_size + _options.preallocate_bytes;
  if (allocated < wanted) {
    MAGNETAR_TRY(file->allocate(allocated, wanted - allocated));
  }
  next.allocated_to = std::max(allocated, wanted);
  MAGNETAR_TRY(file->sync());
  // The new name must survive a crash, or replay would miss the file.
  MAGNETAR_TRY(_options.fs->sync_directory(_options.directory));
  next.file = std::move(file);
  return next;
}

result<void> journal::start_new_file() {
  const auto sequence = _file_sequence + 1;
  std::optional<prepared_file> next;
  {
    std::unique_lock lock(_mutex);
    _next_wanted.reset();  // not started: this thread prepares it itself
    _file_prepared.wait(lock, [&] { return !_preparing && !_zeroing.running; });
    // No zeroing of the old file from here on: once it is no longer the writer's, a
    // checkpoint may reclaim it for reuse.
    _zeroing.wanted = false;
    if (_prepared && _prepared->sequence == sequence) next = std::move(_prepared);
    _prepared.reset();
  }
  if (!next) {
    MAGNETAR_TRY(prepared, prepare_file(sequence));
    next = std::move(prepared);
  }
  if (_file && _options.drop_written_pages_every > 0) _file->drop_cached(0, 0);
  _file = std::move(next->file);
  _cache_dropped_to = 0;
  _file_sequence = sequence;
  _salt = journal_salt(sequence);
  _write_offset = journal_header_size;
  _allocated_to = next->allocated_to;
  {
    std::lock_guard lock(_mutex);
    _current_sequence = sequence;
    ++_stats.files_created;
    if (next->reused) ++_stats.files_reused;
    _next_wanted = sequence + 1;
    const auto written = round_up_to_page(journal_header_size + journal_end_marker_size);
    _zeroing = {.sequence = sequence,
                .wanted = !next->reused && _options.zero_ahead_bytes > 0,
                .zeroed_to = written,
                .claimed_to = written};
  }
  _wake_preparer.notify_one();
  return success();
}

void journal::run_preparer() {
  pthread_setname_np(pthread_self(), "journal-prep");
  std::unique_lock lock(_mutex);
  for (;;) {
    _wake_preparer.wait(lock, [&] { return _next_wanted || zeroing_wanted() || _stopping; });
    if (_stopping) return;
    if (!_next_wanted) {
      const auto [from, to] = *zeroing_wanted();
      const auto file_sequence = _zeroing.sequence;
      _zeroing.running = true;
      lock.unlock();
      zero_ahead(file_sequence, from, to);
      lock.lock();
      continue;
    }
    const auto sequence = *_next_wanted;
    _next_wanted.reset();
    _preparing = true;
    lock.unlock();
    auto prepared = prepare_file(sequence);
    if (!prepared) {
      // The writer prepares the file itself when it needs it, and meets the error then;
      // what this attempt left (a created or renamed file) must not be in its way. Done
      // while still preparing: the writer waits for that.
      spdlog::warn("journal {}: preparing file {} ahead: {}", _options.directory, sequence, prepared.error());
      const auto path = path_of(_options, sequence);
      if (auto exists = _options.fs->exists(path); exists && exists.value()) (void)_options.fs->remove(path);
    }
    lock.lock();
    _preparing = false;
    if (prepared) {
      _prepared = std::move(prepared).value();
      ++_stats.files_prepared;
    }
    _file_prepared.notify_all();
  }
}

std::optional<std::pair<std::uint64_t, std::uint64_t>> journal::zeroing_wanted() const {
  if (!_zeroing.wanted || _zeroing.running) return std::nullopt;
  const auto chunk = zero_chunk_bytes(_options);
  const auto limit = std::min(_zeroing.claimed_to + _options.zero_ahead_bytes,
                              _options.max_file_bytes / journal_page_size * journal_page_size);
  if (_zeroing.zeroed_to + chunk > limit) return std::nullopt;
  return std::pair(_zeroing.zeroed_to, _zeroing.zeroed_to + chunk);
}

void journal::zero_ahead(std::uint64_t sequence, std::uint64_t from, std::uint64_t to) {
  const auto path = path_of(_options, sequence);
  auto zeroed = [&]() -> result<void> {
    MAGNETAR_TRY(file, _options.fs->open(path, io::open_mode::read_write));
    return file->zero_uncached(from, to - from);
  }();
  std::lock_guard lock(_mutex);
  _zeroing.running = false;
  if (zeroed) {
    _zeroing.zeroed_to = std::max(_zeroing.zeroed_to, to);
    _stats.bytes_zeroed_ahead += to - from;
  } else {
    // Only a cost: the writer's syncs convert the blocks as they go.
    spdlog::warn("journal {}: zeroing {} ahead of the writer: {}", _options.directory, path, zeroed.error());
    _zeroing.wanted = false;
  }
  _file_prepared.notify_all();
}

void journal::claim_for_writer(std::uint64_t end) {
  std::unique_lock lock(_mutex);
  if (!_zeroing.wanted) return;
  // A zeroing under way covers [zeroed_to, ...): wait for it if the write reaches there.
  _file_prepared.wait(lock, [&] { return !_zeroing.running || end <= _zeroing.zeroed_to; });
  _zeroing.claimed_to = std::max(_zeroing.claimed_to, end);
  _zeroing.zeroed_to = std::max(_zeroing.zeroed_to, end);
  if (zeroing_wanted()) _wake_preparer.notify_one();
}

result<std::unique_ptr<io::file>> journal::reuse_spare(const std::string& path) {
  std::string spare;
  {
    std::lock_guard lock(_mutex);
    if (_spares.empty()) return std::unique_ptr<io::file>();
    spare = std::move(_spares.back());
    _spares.pop_back();
  }
  MAGNETAR_TRY(_options.fs->rename(_options.directory + "/" + spare, path));
  return _options.fs->open(path, io::open_mode::read_write);
}

result<void> journal::ensure_room(std::uint64_t bytes) {
  // Blocks allocated ahead of the writes, so that a sync need not also commit a new
  // file size (a reused file has them already, up to its old size).
  const auto wanted = _write_offset + bytes;
  if (wanted <= _allocated_to) return success();
  const auto target = std::max(wanted, _allocated_to + _options.preallocate_bytes);
  MAGNETAR_TRY(_file->allocate(_allocated_to, target - _allocated_to));
  _allocated_to = target;
  return success();
}

result<void> journal::write_group(std::vector<std::byte>& bytes) {
  const auto records = bytes.size();
  if (_write_offset > journal_header_size && _write_offset + records > _options.max_file_bytes) {
    MAGNETAR_TRY(start_new_file());
  }
  stamp_journal_salt(bytes, _salt);
  // Zeros after the records, the next group writes over them: the end marker, and up to
  // the end of the page, so that a write never covers only part of a page whose cached
  // copy was dropped (the kernel would read it from disk first).
  const auto end = _write_offset + records + journal_end_marker_size;
  bytes.resize(records + journal_end_marker_size + (journal_page_size - end % journal_page_size) % journal_page_size);
  MAGNETAR_TRY(ensure_room(bytes.size()));
  claim_for_writer(_write_offset + bytes.size());
  MAGNETAR_TRY(_file->write_at(_write_offset, bytes));
  const auto sync_start = std::chrono::steady_clock::now();
  MAGNETAR_TRY(_file->sync());
  const auto synced_in = std::chrono::steady_clock::now() - sync_start;
  _write_offset += records;
  drop_synced_pages();
  std::lock_guard lock(_mutex);
  _sync_ns.record(std::chrono::duration_cast<std::chrono::nanoseconds>(synced_in).count());
  return success();
}

void journal::drop_synced_pages() {
  if (_options.drop_written_pages_every == 0) return;
  const auto behind = _write_offset / journal_page_size * journal_page_size;  // the writer's page stays
  if (behind < _cache_dropped_to + _options.drop_written_pages_every) return;
  // From the file's start: the kernel keeps a large folio that reaches past the range's
  // end, and the next call must catch it; a range with no pages left costs little.
  _file->drop_cached(0, behind);
  _cache_dropped_to = behind;
}

void journal::run_writer() {
  pthread_setname_np(pthread_self(), "journal");
  group taken;
  for (;;) {
    bool already_failed = false;
    {
      std::unique_lock lock(_mutex);
      _writer_idle = true;
      _wake_writer.wait(lock, [&] { return !_queued.empty() || _stopping; });
      if (_queued.empty()) return;  // stopping, and everything queued is written
      if (_options.max_group_wait.count() > 0 && !_stopping) {
        _wake_writer.wait_for(lock, _options.max_group_wait,
                              [&] { return _queued.bytes.size() >= _options.max_group_bytes || _stopping; });
      }
      _writer_idle = false;
      std::swap(taken, _queued);
      already_failed = _failure.has_value();
    }

    const auto record_bytes = taken.bytes.size();
    auto written = already_failed ? result<void>(success()) : write_group(taken.bytes);

    const error* failure = nullptr;
    error recorded;
    {
      std::lock_guard lock(_mutex);
      if (!written) {
        // A failed write or sync leaves the file's state unknown (the kernel
        // may have dropped the dirty pages): take no more records.
        _failure =
            error(errc::journal_failed, fmt::format("journal {}: {}", _options.directory, written.error().message()));
        spdlog::error("{}", _failure->message());
      }
      if (_failure) {
        recorded = *_failure;
        failure = &recorded;
      } else {
        _stats.records += taken.records;
        _stats.bytes += record_bytes;
        ++_stats.groups;
      }
    }
    {
      resumptions batch;  // posts what the completions collected when it goes
      for (auto& done : taken.completions) done(failure);
    }
    // Keep the buffers' capacity for the next swap.
    taken.bytes.clear();
    taken.completions.clear();
    taken.records = 0;
  }
}

}  // namespace magnetar::bookie
