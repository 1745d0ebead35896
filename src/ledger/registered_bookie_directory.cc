#include "ledger/registered_bookie_directory.h"

#include "io/run_on.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace magnetar::ledger {

namespace {

constexpr const char* available_path = "/ledgers/available";

}  // namespace

registered_bookie_directory::registered_bookie_directory(meta::store& store, asio::any_io_executor executor,
                                                         remote_bookie_options defaults)
    : _store(store), _executor(std::move(executor)), _defaults(std::move(defaults)) {}

awaitable<result<void>> registered_bookie_directory::start() {
  _changes =
      _store.register_listener(_executor, [this, alive = std::weak_ptr<bool>(_alive)](const meta::notification& n) {
        if (n.path != available_path || alive.expired()) return;
        io::spawn(_executor, [this, alive]() { return refresh(alive); });
      });
  auto children = co_await _store.children(available_path);
  if (!children) co_return fail(children.error());
  std::erase(children.value(), "readonly");
  std::lock_guard lock(_mutex);
  _writable = std::move(children).value();
  co_return success();
}

awaitable<void> registered_bookie_directory::refresh(std::weak_ptr<bool> alive) {
  auto children = co_await _store.children(available_path);
  if (alive.expired()) co_return;  // destroyed while reading
  if (!children) {
    spdlog::warn("bookie directory: reading {}: {}", available_path, children.error());
    co_return;
  }
  std::erase(children.value(), "readonly");
  std::lock_guard lock(_mutex);
  if (children.value() != _writable) {
    spdlog::info("bookie directory: {} writable bookies", children.value().size());
    _writable = std::move(children).value();
  }
}

std::vector<std::string> registered_bookie_directory::writable_bookies() const {
  std::lock_guard lock(_mutex);
  return _writable;
}

bookie_client* registered_bookie_directory::client(const std::string& bookie_id) {
  if (bookie_id.rfind(':') == std::string::npos) return nullptr;
  std::lock_guard lock(_mutex);
  auto& slot = _clients[bookie_id];
  if (!slot) {
    auto options = _defaults;
    options.address = bookie_id;
    slot = std::make_unique<remote_bookie_client>(_executor, std::move(options));
  }
  return slot.get();
}

}  // namespace magnetar::ledger
