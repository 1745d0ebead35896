#include "bookie/entry_log_file.h"

#include "bookie/entry_log_format.h"
#include "bookie/errc.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::bookie {

namespace format = entry_log_format;

namespace {

// Records reach the file in writes of about this size: large enough that a
// flush costs few system calls, small enough to bound the copy it buffers.
constexpr std::size_t write_buffer_bytes = 1 << 20;
// A scan reads the log in chunks of this size (or one record, if larger).
constexpr std::uint64_t scan_chunk_bytes = 1 << 20;

}  // namespace

entry_log_file::entry_log_file(io::file_system& fs, std::string path, entry_log_id id, std::unique_ptr<io::file> reader)
    : _fs(fs), _path(std::move(path)), _id(id), _reader(std::move(reader)) {}

result<std::shared_ptr<entry_log_file>> entry_log_file::create(io::file_system& fs, std::string path, entry_log_id id) {
  MAGNETAR_TRY(writer, fs.open(path, io::open_mode::create_new));
  const auto header = format::encode_file_header(id);
  auto written = writer->write_at(0, header);
  if (written) written = writer->sync();
  if (!written) {
    // A log without its header would fail the next start-up's checks.
    writer.reset();
    (void)fs.remove(path);
    return fail(written.error());
  }
  MAGNETAR_TRY(reader, fs.open(path, io::open_mode::read_only));
  std::shared_ptr<entry_log_file> log(new entry_log_file(fs, std::move(path), id, std::move(reader)));
  log->_writer = std::move(writer);
  log->_size = log->_written = format::file_header_size;
  return log;
}

result<std::shared_ptr<entry_log_file>> entry_log_file::open(io::file_system& fs, std::string path, entry_log_id id) {
  MAGNETAR_TRY(reader, fs.open(path, io::open_mode::read_only));
  std::array<std::byte, format::file_header_size> header{};
  MAGNETAR_TRY(got, reader->read_at(0, header));
  MAGNETAR_TRY(format::check_file_header(path, id, std::span(header).first(got)));
  MAGNETAR_TRY(size, reader->size());
  std::shared_ptr<entry_log_file> log(new entry_log_file(fs, std::move(path), id, std::move(reader)));
  log->_size = log->_written = size;
  return log;
}

result<bool> entry_log_file::read_exact(std::uint64_t offset, std::span<std::byte> out) const {
  std::lock_guard lock(_read_mutex);
  MAGNETAR_TRY(got, _reader->read_at(offset, out));
  return got == out.size();
}

result<std::uint64_t> entry_log_file::file_size() const {
  std::lock_guard lock(_read_mutex);
  return _reader->size();
}

result<void> entry_log_file::check_record(std::span<const std::byte> record, const entry_location& at, ledger_id ledger,
                                          entry_id entry) const {
  auto where = [&] {
    return fmt::format("ledger {} entry {}: entry log {} offset {}", ledger, entry, _path, at.offset);
  };
  const auto header = format::decode_record_header(record.data());
  if (header.ledger != ledger.value() || header.entry != entry.value() || header.length != at.length) {
    return fail(errc::corrupt_record, fmt::format("{}: holds ledger {} entry {} ({} bytes), expected {} bytes", where(),
                                                  header.ledger, header.entry, header.length, at.length));
  }
  if (!format::record_intact(record.data(), record.subspan(format::record_header_size))) {
    return fail(errc::corrupt_record, fmt::format("{}: checksum mismatch", where()));
  }
  return success();
}

result<wire::shared_bytes> entry_log_file::read(const entry_location& at, ledger_id ledger, entry_id entry) const {
  MAGNETAR_ASSERT(at.log == _id, "read of log {} from log {}", at.log, _id);
  const std::size_t record_size = format::record_header_size + at.length;
  std::shared_ptr<std::byte[]> buffer = std::make_shared_for_overwrite<std::byte[]>(record_size);
  const std::span<std::byte> record(buffer.get(), record_size);
  MAGNETAR_TRY(whole, read_exact(at.offset, record));
  if (!whole) {
    return fail(errc::corrupt_record, fmt::format("ledger {} entry {}: entry log {} offset {}: record cut short",
                                                  ledger, entry, _path, at.offset));
  }
  MAGNETAR_TRY(check_record(record, at, ledger, entry));
  return wire::shared_bytes(std::move(buffer), record.subspan(format::record_header_size));
}

result<void> entry_log_file::read_run(std::span<const entry_location> run, ledger_id ledger, entry_id first,
                                      std::vector<wire::shared_bytes>& out) const {
  if (run.empty()) return success();
  const auto start = run.front().offset;
  const auto end = run.back().offset + format::record_header_size + run.back().length;
  std::shared_ptr<std::byte[]> buffer = std::make_shared_for_overwrite<std::byte[]>(end - start);
  const std::span<std::byte> bytes(buffer.get(), end - start);
  MAGNETAR_TRY(whole, read_exact(start, bytes));
  if (!whole) {
    return fail(errc::corrupt_record, fmt::format("ledger {} entries {}..{}: entry log {} offset {}: records cut "
                                                  "short",
                                                  ledger, first, first.value() + std::ssize(run) - 1, _path, start));
  }
  for (std::size_t i = 0; i < run.size(); ++i) {
    const auto& at = run[i];
    MAGNETAR_ASSERT(at.log == _id && at.offset >= start && at.offset + format::record_header_size + at.length <= end,
                    "record at {} outside the run {}..{} of log {}", at.offset, start, end, _id);
    const auto record = bytes.subspan(at.offset - start, format::record_header_size + at.length);
    MAGNETAR_TRY(check_record(record, at, ledger, entry_id(first.value() + static_cast<std::int64_t>(i))));
    out.emplace_back(buffer, record.subspan(format::record_header_size));
  }
  return success();
}

result<scan_outcome> entry_log_file::scan(std::uint64_t limit, const scan_fn& fn) const {
  MAGNETAR_TRY(size, file_size());
  const std::uint64_t end = std::min(limit, size);
  std::vector<std::byte> chunk;
  std::uint64_t chunk_start = 0;
  // Makes [offset, offset + n) available in `chunk`; n <= end - offset.
  auto load = [&](std::uint64_t offset, std::uint64_t n) -> result<const std::byte*> {
    if (offset < chunk_start || offset + n > chunk_start + chunk.size()) {
      chunk_start = offset;
      chunk.resize(std::min(std::max(n, scan_chunk_bytes), end - offset));
      MAGNETAR_TRY(whole, read_exact(offset, chunk));
      if (!whole) return fail(errc::corrupt_record, fmt::format("entry log {}: shrank during a scan", _path));
    }
    return chunk.data() + (offset - chunk_start);
  };
  scan_outcome outcome{.valid_end = format::file_header_size};
  std::uint64_t offset = format::file_header_size;
  auto stop = [&](std::string problem) {
    outcome.valid_end = offset;
    outcome.problem = fmt::format("entry log {} offset {}: {}", _path, offset, problem);
    return outcome;
  };
  while (offset < end) {
    if (end - offset < format::record_header_size) return stop("torn record header");
    MAGNETAR_TRY(at, load(offset, format::record_header_size));
    const auto header = format::decode_record_header(at);
    if (header.ledger == format::map_ledger && header.entry == format::map_entry) break;  // the footer
    if (header.ledger < 0 || header.entry < 0) {
      return stop(fmt::format("record names ledger {} entry {}", header.ledger, header.entry));
    }
    const std::uint64_t record_size = format::record_header_size + std::uint64_t{header.length};
    if (record_size > end - offset) return stop(fmt::format("record of {} bytes runs past the end", record_size));
    MAGNETAR_TRY(record, load(offset, record_size));
    const std::span<const std::byte> payload(record + format::record_header_size, header.length);
    if (!format::record_intact(record, payload)) return stop("checksum mismatch");
    const scanned_record found{
        .ledger = ledger_id(header.ledger),
        .entry = entry_id(header.entry),
        .location = {.log = _id, .offset = offset, .length = header.length},
    };
    MAGNETAR_TRY(fn(found, payload));
    offset += record_size;
  }
  outcome.valid_end = offset;
  return outcome;
}

result<std::optional<log_footer>> entry_log_file::read_footer() const {
  constexpr std::uint64_t smallest = format::file_header_size + format::record_header_size + format::trailer_size;
  MAGNETAR_TRY(size, file_size());
  if (size < smallest) return std::optional<log_footer>();
  std::array<std::byte, format::trailer_size> trailer{};
  MAGNETAR_TRY(whole, read_exact(size - format::trailer_size, trailer));
  const auto map_offset = whole ? format::decode_trailer(trailer) : std::nullopt;
  if (!map_offset || *map_offset < format::file_header_size ||
      *map_offset > size - format::record_header_size - format::trailer_size) {
    return std::optional<log_footer>();
  }
  const std::uint64_t map_length = size - format::trailer_size - *map_offset - format::record_header_size;
  if (map_length > format::max_payload) return std::optional<log_footer>();
  std::vector<std::byte> record(format::record_header_size + map_length);
  MAGNETAR_TRY(read_whole, read_exact(*map_offset, record));
  if (!read_whole) return std::optional<log_footer>();
  const auto header = format::decode_record_header(record.data());
  const auto payload = std::span(record).subspan(format::record_header_size);
  if (header.ledger != format::map_ledger || header.entry != format::map_entry ||
      !format::record_intact(record.data(), payload)) {
    return std::optional<log_footer>();
  }
  MAGNETAR_TRY(metadata, format::decode_ledger_map(_path, payload));
  return std::optional<log_footer>(log_footer{.data_end = *map_offset, .metadata = std::move(metadata)});
}

result<io::file*> entry_log_file::writer() {
  if (!_writer) {
    MAGNETAR_TRY(opened, _fs.open(_path, io::open_mode::read_write));
    _writer = std::move(opened);
  }
  return _writer.get();
}

result<void> entry_log_file::write_buffer() {
  if (_buffer.empty()) return success();
  MAGNETAR_TRY(w, writer());
  MAGNETAR_TRY(w->write_at(_written, _buffer));
  _written = _size;
  _buffer.clear();
  return success();
}

result<entry_location> entry_log_file::append(ledger_id ledger, entry_id entry, std::span<const std::byte> payload) {
  if (payload.size() > format::max_payload) {
    return fail(errc::too_large, fmt::format("ledger {} entry {}: {} bytes do not fit an entry log record", ledger,
                                             entry, payload.size()));
  }
  const entry_location at{.log = _id, .offset = _size, .length = static_cast<std::uint32_t>(payload.size())};
  const std::size_t old_size = _buffer.size();
  _buffer.resize(old_size + format::record_header_size + payload.size());
  std::byte* record = _buffer.data() + old_size;
  format::encode_record_header(record, ledger.value(), entry.value(), payload);
  std::copy(payload.begin(), payload.end(), record + format::record_header_size);
  _size += format::record_header_size + payload.size();
  if (_buffer.size() >= write_buffer_bytes) {
    MAGNETAR_TRY(write_buffer());
  }
  return at;
}

result<void> entry_log_file::sync() {
  MAGNETAR_TRY(write_buffer());
  MAGNETAR_TRY(w, writer());
  return w->sync();
}

result<void> entry_log_file::truncate(std::uint64_t size) {
  MAGNETAR_ASSERT(size <= _size, "truncate {} to {} beyond its {} bytes", _path, size, _size);
  if (size < _written) {
    MAGNETAR_TRY(w, writer());
    MAGNETAR_TRY(w->truncate(size));
    _written = size;
    _buffer.clear();
  } else {
    _buffer.resize(size - _written);
  }
  _size = size;
  return success();
}

result<void> entry_log_file::seal(const entry_log_metadata& metadata) {
  MAGNETAR_TRY(write_buffer());
  const auto footer = format::encode_footer(_size, metadata);
  MAGNETAR_TRY(w, writer());
  auto sealed = w->write_at(_size, footer);
  if (sealed) sealed = w->sync();
  if (!sealed) {
    // Leave no half footer behind: the log stays an unsealed one.
    (void)w->truncate(_size);
    return sealed;
  }
  _size += footer.size();
  _written = _size;
  return success();
}

}  // namespace magnetar::bookie
