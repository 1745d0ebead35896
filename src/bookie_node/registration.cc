#include "bookie_node/registration.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::bookie_node {

awaitable<result<void>> registration::publish(bool read_only) {
  if (_session) {
    // Gone already when the session was lost; either way the old node goes with it.
    auto closed = co_await _store.close_session(*_session);
    (void)closed;
    _session.reset();
  }
  MAGNETAR_CO_TRY(session, co_await _store.open_session());
  _session = session;
  const auto path = fmt::format("/ledgers/available/{}{}", read_only ? "readonly/" : "", _id);
  const auto info = fmt::format(R"({{"bookieId": "{}", "readOnly": {}}})", _id, read_only);
  // A node left by this bookie's previous (crashed) process may still be there
  // until that session times out: replace it.
  auto removed = co_await _store.remove(path, std::nullopt);
  (void)removed;
  MAGNETAR_CO_TRY(co_await _store.put(path, info, -1, {.ephemeral = session}));
  spdlog::info("bookie {} registered at {}", _id, path);
  co_return success();
}

}  // namespace magnetar::bookie_node
