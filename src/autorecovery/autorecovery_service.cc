#include "autorecovery/autorecovery_service.h"

#include "io/block_on.h"
#include "io/run_on.h"

#include <spdlog/spdlog.h>

namespace magnetar::autorecovery {

autorecovery_service::autorecovery_service(meta::store& store, ledger::ledger_client& ledgers,
                                           ledger::bookie_directory& bookies, std::string bookie_id,
                                           asio::any_io_executor executor, base::clock& clock,
                                           autorecovery_options options)
    : _executor(executor),
      _options(options),
      _auditor(store, std::move(bookie_id), clock, options.lost_bookie_delay,
               periodic_check{.bookies = &bookies, .interval = options.periodic_check_interval}),
      _worker(ledgers, store, bookies, clock, options.replication),
      _timer(executor, clock) {}

autorecovery_service::~autorecovery_service() { stop(); }

result<void> autorecovery_service::start() {
  MAGNETAR_TRY(pass, _running.enter());
  _started = true;
  io::spawn(_executor, [this, held = std::make_shared<io::gate::pass>(std::move(pass))]() { return run(held); });
  return success();
}

void autorecovery_service::stop() {
  if (!_started) return;
  _started = false;
  _worker.stop();
  io::block_on(_executor, [this]() -> awaitable<void> {
    _timer.cancel();
    co_await _running.close();
  }());
}

awaitable<void> autorecovery_service::run(std::shared_ptr<io::gate::pass> /*held*/) {
  for (;;) {
    if (!co_await _timer.wait_for(_options.interval)) co_return;  // stopped
    if (auto audited = co_await _auditor.round(); !audited) {
      spdlog::warn("autorecovery: auditing: {}", audited.error());
    }
    if (auto replicated = co_await _worker.round(); !replicated) {
      spdlog::warn("autorecovery: replicating: {}", replicated.error());
    }
  }
}

}  // namespace magnetar::autorecovery
