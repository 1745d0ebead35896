#include "bookie/entry_index_layout.h"

#include "bookie/byte_order.h"
#include "bookie/errc.h"

#include <fmt/format.h>

namespace magnetar::bookie::index_layout {

namespace {

constexpr char location_kind = 'e';
constexpr std::uint8_t state_format = 1;
constexpr std::uint8_t fenced_flag = 1;
constexpr std::uint8_t deleted_flag = 2;
constexpr std::size_t location_bytes = 20;
constexpr std::size_t state_bytes = 10;

const std::byte* bytes_of(std::string_view s) { return reinterpret_cast<const std::byte*>(s.data()); }
std::byte* bytes_of(std::string& s) { return reinterpret_cast<std::byte*>(s.data()); }

std::string key_of(char kind, std::uint64_t first) {
  std::string key(9, '\0');
  key[0] = kind;
  store_be64(bytes_of(key) + 1, first);
  return key;
}

result<std::uint64_t> decode_key(std::string_view key, char kind, std::string_view what) {
  if (key.size() != 9 || key[0] != kind) {
    return fail(errc::corrupt_record, fmt::format("entry index: {} key of {} bytes", what, key.size()));
  }
  return load_be64(bytes_of(key) + 1);
}

}  // namespace

std::string location_key(ledger_id ledger, entry_id entry) {
  std::string key(17, '\0');
  key[0] = location_kind;
  store_be64(bytes_of(key) + 1, static_cast<std::uint64_t>(ledger.value()));
  store_be64(bytes_of(key) + 9, static_cast<std::uint64_t>(entry.value()));
  return key;
}

std::string ledger_begin(ledger_id ledger) { return key_of(location_kind, static_cast<std::uint64_t>(ledger.value())); }

std::string ledger_end(ledger_id ledger) {
  // Ids are below 2^63, so the next ledger's prefix never wraps.
  return key_of(location_kind, static_cast<std::uint64_t>(ledger.value()) + 1);
}

result<std::pair<ledger_id, entry_id>> decode_location_key(std::string_view key) {
  if (key.size() != 17 || key[0] != location_kind) {
    return fail(errc::corrupt_record, fmt::format("entry index: location key of {} bytes", key.size()));
  }
  return std::pair(ledger_id(static_cast<std::int64_t>(load_be64(bytes_of(key) + 1))),
                   entry_id(static_cast<std::int64_t>(load_be64(bytes_of(key) + 9))));
}

std::string encode_location(const entry_location& location) {
  std::string value(location_bytes, '\0');
  store_be64(bytes_of(value), location.log.value());
  store_be64(bytes_of(value) + 8, location.offset);
  store_be32(bytes_of(value) + 16, location.length);
  return value;
}

result<entry_location> decode_location(ledger_id ledger, entry_id entry, std::string_view bytes) {
  if (bytes.size() != location_bytes) {
    return fail(errc::corrupt_record,
                fmt::format("entry index: ledger {} entry {}: location of {} bytes", ledger, entry, bytes.size()));
  }
  return entry_location{.log = entry_log_id(load_be64(bytes_of(bytes))),
                        .offset = load_be64(bytes_of(bytes) + 8),
                        .length = load_be32(bytes_of(bytes) + 16)};
}

std::string state_key(ledger_id ledger) { return key_of(state_prefix[0], static_cast<std::uint64_t>(ledger.value())); }

result<ledger_id> decode_state_key(std::string_view key) {
  MAGNETAR_TRY(ledger, decode_key(key, state_prefix[0], "ledger state"));
  return ledger_id(static_cast<std::int64_t>(ledger));
}

std::string encode_state(const stored_ledger_state& state) {
  std::string value(state_bytes, '\0');
  value[0] = static_cast<char>(state_format);
  value[1] = static_cast<char>((state.fenced ? fenced_flag : 0) | (state.deleted ? deleted_flag : 0));
  store_be64(bytes_of(value) + 2, static_cast<std::uint64_t>(state.last_add_confirmed.value()));
  return value;
}

result<stored_ledger_state> decode_state(ledger_id ledger, std::string_view bytes) {
  if (bytes.size() != state_bytes || static_cast<std::uint8_t>(bytes[0]) != state_format) {
    return fail(errc::corrupt_record, fmt::format("entry index: ledger {}: state of {} bytes is not of format {}",
                                                  ledger, bytes.size(), state_format));
  }
  const auto flags = static_cast<std::uint8_t>(bytes[1]);
  return stored_ledger_state{
      .fenced = (flags & fenced_flag) != 0,
      .deleted = (flags & deleted_flag) != 0,
      .last_add_confirmed = entry_id(static_cast<std::int64_t>(load_be64(bytes_of(bytes) + 2))),
  };
}

std::string log_key(entry_log_id log) { return key_of(log_prefix[0], log.value()); }

result<entry_log_id> decode_log_key(std::string_view key) {
  MAGNETAR_TRY(log, decode_key(key, log_prefix[0], "entry log"));
  return entry_log_id(log);
}

std::string encode_u64(std::uint64_t value) {
  std::string out(8, '\0');
  store_be64(bytes_of(out), value);
  return out;
}

result<std::uint64_t> decode_u64(std::string_view what, std::string_view bytes) {
  if (bytes.size() != 8) {
    return fail(errc::corrupt_record, fmt::format("entry index: {}: {} bytes, expected 8", what, bytes.size()));
  }
  return load_be64(bytes_of(bytes));
}

}  // namespace magnetar::bookie::index_layout
