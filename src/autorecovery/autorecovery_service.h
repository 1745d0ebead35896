// autorecovery_service: the auditor and a replication worker of one bookie
// (BookKeeper's AutoRecoveryMain with autoRecoveryDaemonEnabled), each round
// every `interval`: the auditor lists what lost bookies held (when this bookie
// is the one auditing), the worker copies what is listed.
// Threading: start and stop from one thread, off `executor`; the rounds run
// on `executor`.
#pragma once

#include "autorecovery/auditor.h"
#include "autorecovery/replication_worker.h"
#include "io/gate.h"
#include "io/timer.h"

#include <memory>
#include <optional>
#include <string>

namespace magnetar::autorecovery {

struct autorecovery_options {
  std::chrono::milliseconds lost_bookie_delay{0};        // lostBookieRecoveryDelay
  std::chrono::milliseconds periodic_check_interval{0};  // auditorPeriodicCheckInterval (0: none)
  std::chrono::milliseconds interval{1'000};
  replicate_options replication;
};

class autorecovery_service {
 public:
  autorecovery_service(meta::store& store, ledger::ledger_client& ledgers, ledger::bookie_directory& bookies,
                       std::string bookie_id, asio::any_io_executor executor, base::clock& clock,
                       autorecovery_options options);
  ~autorecovery_service();

  result<void> start();
  // Ends the rounds, after the one under way.
  void stop();

 private:
  awaitable<void> run(std::shared_ptr<io::gate::pass> held);

  asio::any_io_executor _executor;
  autorecovery_options _options;
  auditor _auditor;
  replication_worker _worker;
  io::timer _timer;
  io::gate _running{"autorecovery"};
  bool _started = false;
};

}  // namespace magnetar::autorecovery
