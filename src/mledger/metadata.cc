#include "mledger/metadata.h"

#include "meta/path.h"
#include "mledger/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace magnetar::mledger {
namespace {

using json = nlohmann::json;

std::string to_hex(std::span<const std::byte> bytes) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (auto b : bytes) {
    out.push_back(digits[std::to_integer<unsigned>(b) >> 4]);
    out.push_back(digits[std::to_integer<unsigned>(b) & 0xf]);
  }
  return out;
}

result<std::vector<std::byte>> from_hex(std::string_view text) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
  };
  if (text.size() % 2 != 0) return fail(errc::bad_metadata, "odd-length hex");
  std::vector<std::byte> out(text.size() / 2);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int hi = nibble(text[2 * i]), lo = nibble(text[2 * i + 1]);
    if (hi < 0 || lo < 0) return fail(errc::bad_metadata, "bad hex digit");
    out[i] = std::byte(static_cast<unsigned char>(hi << 4 | lo));
  }
  return out;
}

// nlohmann throws on a type mismatch; metadata from the store is untrusted input, so
// parsing is wrapped and turned into bad_metadata (exceptions never leave this file).
template <class F>
auto parse_json(std::string_view what, std::string_view text, F&& from) -> decltype(from(json())) {
  const auto j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail(errc::bad_metadata, fmt::format("{}: not a JSON object", what));
  try {
    return from(j);
  } catch (const json::exception& e) {
    return fail(errc::bad_metadata, fmt::format("{}: {}", what, e.what()));
  }
}

}  // namespace

std::string to_json(const managed_ledger_info& info) {
  json ledgers = json::array();
  for (const auto& l : info.ledgers) {
    ledgers.push_back(
        {{"id", l.id.value()}, {"entries", l.entries}, {"size", l.size}, {"timestamp_ms", l.timestamp_ms}});
  }
  json out{{"ledgers", std::move(ledgers)}, {"properties", info.properties}};
  if (info.terminated_at) {
    out["terminated_at"] = {info.terminated_at->ledger().value(), info.terminated_at->entry().value()};
  }
  return out.dump();
}

result<managed_ledger_info> managed_ledger_info_from_json(std::string_view text) {
  return parse_json("managed ledger metadata", text, [](const json& j) -> result<managed_ledger_info> {
    managed_ledger_info info;
    for (const auto& l : j.at("ledgers")) {
      info.ledgers.push_back({ledger_id(l.at("id").get<std::int64_t>()), l.at("entries").get<std::uint64_t>(),
                              l.at("size").get<std::uint64_t>(), l.at("timestamp_ms").get<std::int64_t>()});
      if (info.ledgers.size() > 1 && info.ledgers.back().id <= info.ledgers[info.ledgers.size() - 2].id) {
        return fail(errc::bad_metadata, "managed ledger metadata: ledger ids not ascending");
      }
    }
    if (j.contains("properties")) info.properties = j.at("properties").get<std::map<std::string, std::string>>();
    if (j.contains("terminated_at")) {
      const auto& at = j.at("terminated_at");
      info.terminated_at = position(ledger_id(at.at(0).get<std::int64_t>()), entry_id(at.at(1).get<std::int64_t>()));
    }
    return info;
  });
}

namespace {
// [[ledger, entry, [words...]], ...]
json batch_ack_sets_to_json(const std::map<position, std::vector<std::int64_t>>& sets) {
  json out = json::array();
  for (const auto& [at, words] : sets) out.push_back(json{at.ledger().value(), at.entry().value(), words});
  return out;
}
}  // namespace

std::string to_json(const cursor_info& info, std::size_t max_ranges) {
  auto ranges = info.individually_deleted.serialize(max_ranges);
  return json{{"mark_delete", {info.mark_delete.ledger().value(), info.mark_delete.entry().value()}},
              {"individually_deleted", to_hex(ranges.bytes)},
              {"ranges_dropped", info.ranges_dropped + ranges.ranges_dropped},
              {"properties", info.properties},
              {"batch_ack_sets", batch_ack_sets_to_json(info.batch_ack_sets)}}
      .dump();
}

result<cursor_info> cursor_info_from_json(std::string_view text) {
  return parse_json("cursor metadata", text, [](const json& j) -> result<cursor_info> {
    cursor_info info;
    const auto& md = j.at("mark_delete");
    info.mark_delete = position(ledger_id(md.at(0).get<std::int64_t>()), entry_id(md.at(1).get<std::int64_t>()));
    MAGNETAR_TRY(bytes, from_hex(j.at("individually_deleted").get<std::string>()));
    auto ranges = range_set::deserialize(bytes);
    if (!ranges) return fail(errc::bad_metadata, fmt::format("cursor metadata: {}", ranges.error().message()));
    info.individually_deleted = std::move(ranges).value();
    info.ranges_dropped = j.value("ranges_dropped", std::size_t{0});
    if (j.contains("properties")) info.properties = j.at("properties").get<std::map<std::string, std::string>>();
    if (j.contains("batch_ack_sets")) {
      for (const auto& item : j.at("batch_ack_sets")) {
        const position at(ledger_id(item.at(0).get<std::int64_t>()), entry_id(item.at(1).get<std::int64_t>()));
        info.batch_ack_sets[at] = item.at(2).get<std::vector<std::int64_t>>();
      }
    }
    return info;
  });
}

std::string managed_ledger_path(std::string_view name) { return fmt::format("/managed-ledgers/{}", name); }

std::string cursor_path(std::string_view managed_ledger, std::string_view cursor) {
  return fmt::format("/managed-ledgers/{}/{}", managed_ledger, cursor);
}

result<void> check_managed_ledger_name(std::string_view name) {
  if (name.empty() || !meta::check_node_path(managed_ledger_path(name))) {
    return fail(errc::invalid_name, fmt::format("managed ledger name '{}'", name));
  }
  return success();
}

result<void> check_cursor_name(std::string_view name) {
  if (name.empty() || name.find('/') != std::string_view::npos || !meta::check_node_path(cursor_path("x", name))) {
    return fail(errc::invalid_name, fmt::format("cursor name '{}'", name));
  }
  return success();
}

}  // namespace magnetar::mledger
