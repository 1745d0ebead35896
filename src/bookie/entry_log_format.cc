#include "bookie/entry_log_format.h"

#include "bookie/byte_order.h"
#include "bookie/errc.h"
#include "wire/crc32c.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace magnetar::bookie::entry_log_format {

namespace {

constexpr std::array<std::byte, 4> header_magic{std::byte{'M'}, std::byte{'G'}, std::byte{'E'}, std::byte{'L'}};
constexpr std::array<std::byte, 4> trailer_magic{std::byte{'M'}, std::byte{'G'}, std::byte{'L'}, std::byte{'M'}};
constexpr std::size_t header_crc_offset = file_header_size - 4;
constexpr std::size_t map_pair_size = 16;

}  // namespace

std::array<std::byte, file_header_size> encode_file_header(entry_log_id id) {
  std::array<std::byte, file_header_size> out{};
  std::copy(header_magic.begin(), header_magic.end(), out.begin());
  store_be32(out.data() + 4, format_version);
  store_be64(out.data() + 8, id.value());
  store_be32(out.data() + header_crc_offset, wire::crc32c(out.data(), header_crc_offset));
  return out;
}

result<void> check_file_header(std::string_view path, entry_log_id id, std::span<const std::byte> bytes) {
  if (bytes.size() < file_header_size) {
    return fail(errc::corrupt_record,
                fmt::format("entry log {}: header is {} bytes, expected {}", path, bytes.size(), file_header_size));
  }
  if (!std::equal(header_magic.begin(), header_magic.end(), bytes.begin()) ||
      load_be32(bytes.data() + header_crc_offset) != wire::crc32c(bytes.data(), header_crc_offset)) {
    return fail(errc::corrupt_record, fmt::format("entry log {}: not an entry log header", path));
  }
  if (const auto version = load_be32(bytes.data() + 4); version != format_version) {
    return fail(errc::corrupt_record,
                fmt::format("entry log {}: format version {}; this build reads {}", path, version, format_version));
  }
  if (const auto stored = load_be64(bytes.data() + 8); stored != id.value()) {
    return fail(errc::corrupt_record, fmt::format("entry log {}: header names log {}", path, stored));
  }
  return success();
}

void encode_record_header(std::byte* out, std::int64_t ledger, std::int64_t entry, std::span<const std::byte> payload) {
  store_be32(out + 4, static_cast<std::uint32_t>(payload.size()));
  store_be64(out + 8, static_cast<std::uint64_t>(ledger));
  store_be64(out + 16, static_cast<std::uint64_t>(entry));
  store_be32(out, wire::crc32c(payload, wire::crc32c(out + 4, record_header_size - 4)));
}

record_header decode_record_header(const std::byte* in) {
  return {.crc = load_be32(in),
          .length = load_be32(in + 4),
          .ledger = static_cast<std::int64_t>(load_be64(in + 8)),
          .entry = static_cast<std::int64_t>(load_be64(in + 16))};
}

bool record_intact(const std::byte* header, std::span<const std::byte> payload) {
  if (load_be32(header + 4) != payload.size()) return false;
  return load_be32(header) == wire::crc32c(payload, wire::crc32c(header + 4, record_header_size - 4));
}

std::vector<std::byte> encode_footer(std::uint64_t data_end, const entry_log_metadata& metadata) {
  std::vector<std::byte> map(metadata.ledgers().size() * map_pair_size);
  std::byte* p = map.data();
  for (const auto& [ledger, bytes] : metadata.ledgers()) {
    store_be64(p, static_cast<std::uint64_t>(ledger.value()));
    store_be64(p + 8, bytes);
    p += map_pair_size;
  }
  std::vector<std::byte> out(record_header_size + map.size() + trailer_size);
  encode_record_header(out.data(), map_ledger, map_entry, map);
  std::copy(map.begin(), map.end(), out.begin() + record_header_size);
  std::byte* trailer = out.data() + record_header_size + map.size();
  store_be64(trailer, data_end);
  std::copy(trailer_magic.begin(), trailer_magic.end(), trailer + 8);
  store_be32(trailer + 12, wire::crc32c(trailer, 12));
  return out;
}

std::optional<std::uint64_t> decode_trailer(std::span<const std::byte> trailer) {
  if (trailer.size() != trailer_size) return std::nullopt;
  if (!std::equal(trailer_magic.begin(), trailer_magic.end(), trailer.begin() + 8)) return std::nullopt;
  if (load_be32(trailer.data() + 12) != wire::crc32c(trailer.data(), 12)) return std::nullopt;
  return load_be64(trailer.data());
}

result<entry_log_metadata> decode_ledger_map(std::string_view path, std::span<const std::byte> payload) {
  if (payload.size() % map_pair_size != 0) {
    return fail(errc::corrupt_record,
                fmt::format("entry log {}: ledger map of {} bytes is not whole pairs", path, payload.size()));
  }
  entry_log_metadata metadata;
  for (std::size_t at = 0; at < payload.size(); at += map_pair_size) {
    const auto ledger = static_cast<std::int64_t>(load_be64(payload.data() + at));
    if (ledger < 0) {
      return fail(errc::corrupt_record, fmt::format("entry log {}: ledger map names ledger {}", path, ledger));
    }
    metadata.add(ledger_id(ledger), load_be64(payload.data() + at + 8));
  }
  return metadata;
}

}  // namespace magnetar::bookie::entry_log_format
