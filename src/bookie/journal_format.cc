#include "bookie/journal_format.h"

#include "bookie/errc.h"
#include "wire/crc32c.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

namespace magnetar::bookie {
namespace {

constexpr char header_magic[4] = {'M', 'G', 'J', '1'};

template <class T>
void put(std::vector<std::byte>& out, T value) {
  static_assert(std::endian::native == std::endian::little, "the journal format is little-endian");
  const auto at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

template <class T>
T get(const std::byte* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

}  // namespace

std::vector<std::byte> encode_journal_header(std::uint64_t file_sequence) {
  std::vector<std::byte> out;
  out.reserve(journal_header_size);
  for (char c : header_magic) out.push_back(static_cast<std::byte>(c));
  put<std::uint32_t>(out, journal_format_version);
  put<std::uint64_t>(out, file_sequence);
  out.resize(journal_header_size);
  return out;
}

std::uint32_t journal_salt(std::uint64_t file_sequence) {
  // Consecutive sequences give distinct salts; a reused file always gets a newer one.
  return static_cast<std::uint32_t>(file_sequence ^ (file_sequence >> 32));
}

result<journal_header> decode_journal_header(std::span<const std::byte> header) {
  if (header.size() < journal_header_size || std::memcmp(header.data(), header_magic, 4) != 0) {
    return fail(errc::corrupt_record, "not a journal file header");
  }
  const auto version = get<std::uint32_t>(header.data() + 4);
  if (version != 1 && version != journal_format_version) {
    return fail(errc::corrupt_record,
                fmt::format("journal format version {} (this build reads 1 and {})", version, journal_format_version));
  }
  const auto sequence = get<std::uint64_t>(header.data() + 8);
  return journal_header{.sequence = sequence,
                        .salt = version == 1 ? std::nullopt : std::optional(journal_salt(sequence))};
}

void append_journal_record(std::vector<std::byte>& out, const journal_record& record) {
  const auto body_size = static_cast<std::uint32_t>(1 + 3 * 8 + record.payload.size());
  const auto start = out.size();
  out.reserve(start + 12 + body_size);
  put<std::uint32_t>(out, body_size);
  put<std::uint32_t>(out, 0);  // checksum, filled in below
  put<std::uint32_t>(out, 0);  // salt, stamped by the writer
  put<std::uint8_t>(out, static_cast<std::uint8_t>(record.type));
  put<std::int64_t>(out, record.ledger.value());
  put<std::int64_t>(out, record.entry.value());
  put<std::int64_t>(out, record.last_add_confirmed.value());
  out.insert(out.end(), record.payload.begin(), record.payload.end());
  const auto crc = wire::crc32c(std::span(out).subspan(start + 12, body_size));
  std::memcpy(out.data() + start + 4, &crc, sizeof crc);
}

void stamp_journal_salt(std::span<std::byte> records, std::uint32_t salt) {
  for (std::size_t at = 0; at + 12 <= records.size();) {
    std::memcpy(records.data() + at + 8, &salt, sizeof salt);
    at += 12 + get<std::uint32_t>(records.data() + at);
  }
}

namespace detail {

std::optional<std::size_t> decode_journal_record(std::span<const std::byte> bytes, std::optional<std::uint32_t> salt,
                                                 journal_record& out) {
  if (bytes.size() < 4) {
    // Fewer bytes than a length: zeros are the end, anything else is torn.
    for (auto b : bytes) {
      if (b != std::byte{0}) return std::nullopt;
    }
    return 0;
  }
  const auto body_size = get<std::uint32_t>(bytes.data());
  if (body_size == 0) return 0;
  const std::size_t head = salt ? 12 : 8;
  if (bytes.size() < head || body_size < 1 + 3 * 8 || bytes.size() - head < body_size) return std::nullopt;
  if (salt && get<std::uint32_t>(bytes.data() + 8) != *salt) return std::nullopt;  // an older use of the file
  const auto body = bytes.subspan(head, body_size);
  if (wire::crc32c(body) != get<std::uint32_t>(bytes.data() + 4)) return std::nullopt;
  const auto type = get<std::uint8_t>(body.data());
  if (type != static_cast<std::uint8_t>(journal_record_type::add_entry) &&
      type != static_cast<std::uint8_t>(journal_record_type::fence)) {
    return std::nullopt;
  }
  out.type = static_cast<journal_record_type>(type);
  out.ledger = ledger_id(get<std::int64_t>(body.data() + 1));
  out.entry = entry_id(get<std::int64_t>(body.data() + 9));
  out.last_add_confirmed = entry_id(get<std::int64_t>(body.data() + 17));
  out.payload = body.subspan(25);
  return head + body_size;
}

}  // namespace detail

std::string journal_file_name(std::uint64_t file_sequence) { return fmt::format("journal-{:016x}.log", file_sequence); }

std::optional<std::uint64_t> parse_journal_file_name(const std::string& name) {
  constexpr std::string_view prefix = "journal-", suffix = ".log";
  if (name.size() != prefix.size() + 16 + suffix.size() || !name.starts_with(prefix) || !name.ends_with(suffix)) {
    return std::nullopt;
  }
  std::uint64_t sequence = 0;
  for (char c : name.substr(prefix.size(), 16)) {
    int digit = (c >= '0' && c <= '9') ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
    if (digit < 0) return std::nullopt;
    sequence = sequence * 16 + static_cast<std::uint64_t>(digit);
  }
  return sequence;
}

}  // namespace magnetar::bookie
