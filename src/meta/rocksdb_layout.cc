#include "meta/rocksdb_layout.h"

#include "base/assert.h"
#include "meta/errc.h"
#include "meta/path.h"

#include <fmt/format.h>

namespace magnetar::meta::rocksdb_layout {
namespace {

constexpr std::size_t record_header = 1 + 4 * 8;

void put_le(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_le(std::string_view in) {
  std::uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v |= std::uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return v;
}

void put_be(std::string& out, std::uint64_t v) {
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

stat node_record::stat_for(std::string path) const {
  return stat{.path = std::move(path),
              .version = version,
              .created_ms = created_ms,
              .modified_ms = modified_ms,
              .ephemeral = owner != no_session,
              .owner = owner};
}

std::string encode_record(const node_record& record) {
  std::string out;
  out.reserve(record_header + record.value.size());
  out.push_back(static_cast<char>(record_format));
  put_le(out, static_cast<std::uint64_t>(record.version));
  put_le(out, static_cast<std::uint64_t>(record.created_ms));
  put_le(out, static_cast<std::uint64_t>(record.modified_ms));
  put_le(out, static_cast<std::uint64_t>(record.owner.value()));
  out += record.value;
  return out;
}

result<node_record> decode_record(std::string_view path, std::string_view bytes) {
  if (bytes.empty()) return fail(errc::corrupt_record, fmt::format("node '{}': empty record", path));
  const auto format = static_cast<std::uint8_t>(bytes[0]);
  if (format != record_format) {
    return fail(errc::corrupt_record,
                fmt::format("node '{}': record format {} (this build reads {})", path, format, record_format));
  }
  if (bytes.size() < record_header) {
    return fail(errc::corrupt_record, fmt::format("node '{}': record of {} bytes is shorter than its {}-byte header",
                                                  path, bytes.size(), record_header));
  }
  node_record record;
  record.version = static_cast<std::int64_t>(get_le(bytes.substr(1)));
  record.created_ms = static_cast<std::int64_t>(get_le(bytes.substr(9)));
  record.modified_ms = static_cast<std::int64_t>(get_le(bytes.substr(17)));
  record.owner = session_id(static_cast<std::int64_t>(get_le(bytes.substr(25))));
  record.value = std::string(bytes.substr(record_header));
  return record;
}

std::string node_key(std::string_view path) {
  MAGNETAR_ASSERT(path != "/", "the root has no record");
  std::string key = "n";
  key += parent_of(path);
  key += '\0';
  key += name_of(path);
  return key;
}

std::string path_of_node_key(std::string_view key) {
  auto separator = key.find('\0');
  MAGNETAR_ASSERT(key.size() > 1 && key[0] == 'n' && separator != std::string_view::npos, "not a node key");
  return child_path(key.substr(1, separator - 1), key.substr(separator + 1));
}

std::string children_prefix(std::string_view path) {
  std::string prefix = "n";
  prefix += path;
  prefix += '\0';
  return prefix;
}

std::string deeper_prefix(std::string_view path) {
  std::string prefix = "n";
  prefix += path;
  if (path != "/") prefix += '/';
  return prefix;
}

std::string ephemeral_key(session_id owner, std::string_view path) {
  auto key = ephemeral_prefix(owner);
  key += path;
  return key;
}

std::string ephemeral_prefix(session_id owner) {
  std::string prefix(all_ephemerals_prefix);
  put_be(prefix, static_cast<std::uint64_t>(owner.value()));
  return prefix;
}

std::string path_of_ephemeral_key(std::string_view key) {
  MAGNETAR_ASSERT(key.size() > 9 && key[0] == 'e', "not an ephemeral key");
  return std::string(key.substr(9));
}

session_id owner_of_ephemeral_key(std::string_view key) {
  MAGNETAR_ASSERT(key.size() > 9 && key[0] == 'e', "not an ephemeral key");
  std::uint64_t v = 0;
  for (int i = 1; i <= 8; ++i) v = (v << 8) | static_cast<unsigned char>(key[i]);
  return session_id(static_cast<std::int64_t>(v));
}

std::string sequence_key(std::string_view parent) {
  std::string key = "q";
  key += parent;
  return key;
}

std::string encode_u64(std::uint64_t value) {
  std::string out;
  put_le(out, value);
  return out;
}

result<std::uint64_t> decode_u64(std::string_view what, std::string_view bytes) {
  if (bytes.size() != 8) {
    return fail(errc::corrupt_record, fmt::format("{}: {} bytes where 8 were expected", what, bytes.size()));
  }
  return get_le(bytes);
}

std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  while (!end.empty() && static_cast<unsigned char>(end.back()) == 0xff) end.pop_back();
  MAGNETAR_ASSERT(!end.empty(), "a prefix of 0xff bytes has no end");
  end.back() = static_cast<char>(static_cast<unsigned char>(end.back()) + 1);
  return end;
}

}  // namespace magnetar::meta::rocksdb_layout
