#include "autorecovery/replication_worker.h"

#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::autorecovery {

awaitable<result<std::size_t>> replication_worker::round() {
  MAGNETAR_CO_TRY(listed, co_await list_underreplicated(_store));
  if (listed.empty()) co_return std::size_t{0};
  if (!_session) {
    MAGNETAR_CO_TRY(session, co_await _store.open_session());
    _session = session;
  }
  std::size_t done = 0;
  for (const auto& ledger : listed) {
    if (_stopping.load()) break;
    const auto lock = fmt::format("{}/L{:010}", locks_path, ledger.id.value());
    auto locked = co_await _store.put(lock, "", -1, {.ephemeral = *_session});
    if (!locked) {
      if (locked.error() == meta::errc::bad_version) continue;  // another worker's
      _session.reset();
      co_return fail(locked.error());
    }
    const auto now_ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(_clock.wall_now().time_since_epoch()).count();
    auto outcome = co_await replicate_ledger(_ledgers, _store, _bookies, ledger, now_ms, _options);
    if (!outcome) {
      spdlog::warn("autorecovery: ledger {}: {}; trying again later", ledger.id, outcome.error());
    } else if (outcome.value() == replicate_outcome::done) {
      auto unlisted = co_await mark_replicated(_store, ledger.id);
      if (unlisted) ++done;
    }
    auto released = co_await _store.remove(lock, std::nullopt);
    (void)released;  // gone with the session otherwise
  }
  co_return done;
}

}  // namespace magnetar::autorecovery
