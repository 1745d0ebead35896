#include "autorecovery/ledger_checker.h"

#include "bookie/errc.h"

#include <algorithm>
#include <iterator>
#include <optional>

namespace magnetar::autorecovery {

namespace {

// The first and last entries of [first, last] stored at `position`, if any.
std::optional<std::pair<std::int64_t, std::int64_t>> share_of(const ledger::ledger_metadata& m, std::size_t position,
                                                              std::int64_t first, std::int64_t last) {
  // Write sets repeat every E entries: the share's ends are within E of the range's.
  const auto stores = [&](std::int64_t e) { return (m.write_set_positions(entry_id(e)) >> position) & 1ULL; };
  std::optional<std::int64_t> low, high;
  for (auto e = first; e <= last && e < first + m.ensemble_size; ++e) {
    if (stores(e)) {
      low = e;
      break;
    }
  }
  for (auto e = last; e >= first && e > last - m.ensemble_size; --e) {
    if (stores(e)) {
      high = e;
      break;
    }
  }
  if (!low || !high) return std::nullopt;
  return std::pair{*low, *high};
}

bool says_missing(const error& e) {
  return e == bookie::errc::entry_not_found || e == bookie::errc::ledger_not_found || e == bookie::errc::ledger_deleted;
}

}  // namespace

awaitable<std::set<std::string>> bookies_missing_entries(ledger::bookie_directory& bookies,
                                                         const ledger::ledger_metadata& m, std::int64_t segment_first,
                                                         std::int64_t last) {
  std::set<std::string> missing;
  const auto& ensemble = m.ensembles.at(segment_first);
  for (std::size_t position = 0; position < ensemble.size(); ++position) {
    auto share = share_of(m, position, segment_first, last);
    auto* client = bookies.client(ensemble[position]);
    if (!share || client == nullptr) continue;
    for (const auto e : {share->first, share->second}) {
      auto read = co_await client->read_entry(m.id, entry_id(e));
      if (!read && says_missing(read.error())) {
        missing.insert(ensemble[position]);
        break;
      }
    }
  }
  co_return missing;
}

awaitable<std::set<std::string>> bookies_missing_entries(ledger::bookie_directory& bookies,
                                                         const ledger::ledger_metadata& m) {
  std::set<std::string> missing;
  if (m.state != ledger::ledger_state::closed) co_return missing;
  const auto end = m.last_entry.value();
  for (auto it = m.ensembles.begin(); it != m.ensembles.end() && it->first <= end; ++it) {
    const auto next = std::next(it);
    const auto last = next == m.ensembles.end() ? end : std::min(end, next->first - 1);
    if (last < it->first) continue;
    auto found = co_await bookies_missing_entries(bookies, m, it->first, last);
    missing.insert(found.begin(), found.end());
  }
  co_return missing;
}

}  // namespace magnetar::autorecovery
