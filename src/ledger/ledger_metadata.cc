#include "ledger/ledger_metadata.h"

#include "base/assert.h"
#include "ledger/entry_header.h"
#include "ledger/errc.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace magnetar::ledger {
namespace {

constexpr std::string_view state_name(ledger_state s) {
  switch (s) {
    case ledger_state::open: return "OPEN";
    case ledger_state::in_recovery: return "IN_RECOVERY";
    case ledger_state::closed: return "CLOSED";
  }
  return "?";
}

}  // namespace

const std::vector<std::string>& ledger_metadata::ensemble_for(entry_id entry) const {
  MAGNETAR_ASSERT(!ensembles.empty(), "ledger {} has no ensemble", id);
  auto it = ensembles.upper_bound(entry.value());
  if (it != ensembles.begin()) --it;
  return it->second;
}

std::vector<std::string> ledger_metadata::write_set(entry_id entry) const {
  const auto& ensemble = ensemble_for(entry);
  std::vector<std::string> bookies;
  const auto start = static_cast<std::size_t>(std::max<std::int64_t>(entry.value(), 0));
  for (int i = 0; i < write_quorum; ++i) bookies.push_back(ensemble[(start + i) % ensemble.size()]);
  return bookies;
}

std::uint64_t ledger_metadata::write_set_positions(entry_id entry) const {
  std::uint64_t positions = 0;
  const auto start = static_cast<std::uint64_t>(std::max<std::int64_t>(entry.value(), 0));
  for (int i = 0; i < write_quorum; ++i) positions |= 1ULL << ((start + i) % static_cast<std::uint64_t>(ensemble_size));
  return positions;
}

std::string to_json(const ledger_metadata& m) {
  nlohmann::json ensembles = nlohmann::json::array();
  for (const auto& [first, bookies] : m.ensembles) ensembles.push_back({{"firstEntry", first}, {"bookies", bookies}});
  nlohmann::json j = {
      {"ledgerId", m.id.value()},
      {"ensembleSize", m.ensemble_size},
      {"writeQuorumSize", m.write_quorum},
      {"ackQuorumSize", m.ack_quorum},
      {"state", state_name(m.state)},
      {"lastEntryId", m.last_entry.value()},
      {"length", m.length},
      {"entryFormat", m.entry_format},
      {"ensembles", ensembles},
      {"ctime", m.created_ms},
      {"customMetadata", m.custom},
  };
  return j.dump();
}

result<ledger_metadata> ledger_metadata_from_json(std::string_view text) {
  const auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return fail(errc::bad_metadata, "not a JSON object");
  // Field access may throw on a wrong type; metadata parsing is a start-up
  // path where the house rules allow catching it here.
  try {
    ledger_metadata m;
    m.id = ledger_id(j.at("ledgerId").get<std::int64_t>());
    m.ensemble_size = j.at("ensembleSize").get<int>();
    m.write_quorum = j.at("writeQuorumSize").get<int>();
    m.ack_quorum = j.at("ackQuorumSize").get<int>();
    const auto state = j.at("state").get<std::string>();
    if (state == "OPEN") {
      m.state = ledger_state::open;
    } else if (state == "IN_RECOVERY") {
      m.state = ledger_state::in_recovery;
    } else if (state == "CLOSED") {
      m.state = ledger_state::closed;
    } else {
      return fail(errc::bad_metadata, fmt::format("unknown ledger state '{}'", state));
    }
    m.last_entry = entry_id(j.at("lastEntryId").get<std::int64_t>());
    m.length = j.at("length").get<std::uint64_t>();
    // Absent from the ledgers made before entries had a header.
    m.entry_format = j.value("entryFormat", 0);
    if (m.entry_format < 0 || m.entry_format > current_entry_format) {
      return fail(errc::bad_metadata, fmt::format("ledger {}: entry format {} is newer than this build's ({})", m.id,
                                                  m.entry_format, current_entry_format));
    }
    for (const auto& e : j.at("ensembles")) {
      m.ensembles[e.at("firstEntry").get<std::int64_t>()] = e.at("bookies").get<std::vector<std::string>>();
    }
    m.created_ms = j.value("ctime", std::int64_t{0});
    m.custom = j.value("customMetadata", std::map<std::string, std::string>{});
    if (m.ensembles.empty()) return fail(errc::bad_metadata, fmt::format("ledger {} has no ensemble", m.id));
    return m;
  } catch (const nlohmann::json::exception& e) {
    return fail(errc::bad_metadata, e.what());
  }
}

std::string ledger_path(ledger_id id) { return fmt::format("/ledgers/L{:010}", id.value()); }

}  // namespace magnetar::ledger
