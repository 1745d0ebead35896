#include "autorecovery/auditor.h"

#include "autorecovery/ledger_checker.h"
#include "autorecovery/underreplication.h"
#include "ledger/ledger_metadata.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

namespace magnetar::autorecovery {

awaitable<result<bool>> auditor::take_part() {
  if (!_session) {
    MAGNETAR_CO_TRY(session, co_await _store.open_session());
    _session = session;
  }
  auto put = co_await _store.put(auditor_path, _id, -1, {.ephemeral = *_session});
  if (put) {
    spdlog::info("autorecovery: {} is the auditor", _id);
    co_return true;
  }
  if (put.error() == meta::errc::bad_version) co_return false;  // another bookie's
  // The session is gone (expired, or the store reconnected on a new one): next round opens another.
  _session.reset();
  co_return fail(put.error());
}

awaitable<result<void>> auditor::round() {
  if (_acting) {
    // Still ours while our session's node is there.
    MAGNETAR_CO_TRY(holder, co_await _store.get(auditor_path));
    _acting = holder && holder->value == _id && _session && holder->st.owner == *_session;
  }
  if (!_acting) {
    MAGNETAR_CO_TRY(took, co_await take_part());
    _acting = took;
    if (!_acting) co_return success();
    _last_check = _clock.now();
  }
  if (_check.bookies != nullptr && _check.interval.count() > 0 && _clock.now() - *_last_check >= _check.interval) {
    _last_check = _clock.now();
    MAGNETAR_CO_TRY(co_await check_all_ledgers());
  }
  MAGNETAR_CO_TRY(known, co_await _store.children("/ledgers/cookies"));
  MAGNETAR_CO_TRY(alive, co_await registered_bookies(_store));
  const auto now = _clock.now();
  std::set<std::string> lost;
  for (const auto& b : known) {
    if (alive.count(b)) {
      _missing_since.erase(b);
      _listed.erase(b);
      continue;
    }
    const auto since = _missing_since.try_emplace(b, now).first->second;
    if (now - since >= _delay && !_listed.count(b)) lost.insert(b);
  }
  if (lost.empty()) co_return success();
  spdlog::warn("autorecovery: bookies lost: {}; listing their ledgers", fmt::join(lost, ", "));
  MAGNETAR_CO_TRY(co_await list_ledgers_of(lost));
  _listed.insert(lost.begin(), lost.end());
  co_return success();
}

awaitable<result<void>> auditor::list_ledgers_of(const std::set<std::string>& lost) {
  MAGNETAR_CO_TRY(listed,
                  co_await list_where([&](const ledger::ledger_metadata& m) -> awaitable<std::set<std::string>> {
                    std::set<std::string> missing;
                    for (const auto& [first, ensemble] : m.ensembles) {
                      for (const auto& b : ensemble) {
                        if (lost.count(b)) missing.insert(b);
                      }
                    }
                    co_return missing;
                  }));
  spdlog::info("autorecovery: {} ledgers listed as under-replicated", listed);
  co_return success();
}

awaitable<result<void>> auditor::check_all_ledgers() {
  MAGNETAR_CO_TRY(listed, co_await list_where([&](const ledger::ledger_metadata& m) {
                    return bookies_missing_entries(*_check.bookies, m);
                  }));
  spdlog::info("autorecovery: periodic check of every ledger: {} lack entries on some bookie", listed);
  co_return success();
}

awaitable<result<std::size_t>> auditor::list_where(
    const std::function<awaitable<std::set<std::string>>(const ledger::ledger_metadata&)>& missing_of) {
  MAGNETAR_CO_TRY(names, co_await _store.children("/ledgers"));
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
  std::size_t listed = 0;
  for (const auto& name : names) {
    if (name.size() < 2 || name[0] != 'L' || name.find_first_not_of("0123456789", 1) != std::string::npos) continue;
    MAGNETAR_CO_TRY(node, co_await _store.get("/ledgers/" + name));
    if (!node) continue;
    auto m = ledger::ledger_metadata_from_json(node->value);
    if (!m) {
      spdlog::warn("autorecovery: /ledgers/{}: {}", name, m.error());
      continue;
    }
    const auto missing = co_await missing_of(m.value());
    if (missing.empty()) continue;
    MAGNETAR_CO_TRY(co_await mark_underreplicated(_store, m.value().id, missing, now_ms));
    ++listed;
  }
  co_return listed;
}

}  // namespace magnetar::autorecovery
