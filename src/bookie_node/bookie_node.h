// bookie_node: one networked bookie process (`magnetar bookie`): the bookie
// engine behind a bookie_server, its cookie checked against the metadata
// store (ZooKeeper), and its registration there.
//
// Registration is upstream's layout (registration.h); when its session is
// lost the bookie registers again on a new one. A full disk or a failed write
// turns the bookie read-only (disk_monitor.h): adds are refused with
// EREADONLY, reads are served, and the registration moves to readonly/. Its
// HTTP port answers /metrics and the health endpoints (bookie_status.h). With
// autoRecoveryDaemonEnabled it runs an auditor and a replication worker
// (autorecovery/), which copy a lost bookie's entries to the others.
// Thread-safety: start and stop from one thread, off the shards.
#pragma once

#include "base/result.h"
#include "bookie_node/bookie_config.h"
#include "bookie_node/bookie_status.h"
#include "io/asio.h"
#include "io/gate.h"

#include <memory>
#include <string>
#include <vector>

namespace magnetar::bookie_node {

class bookie_node {
 public:
  explicit bookie_node(bookie_config config);
  ~bookie_node();
  bookie_node(const bookie_node&) = delete;
  bookie_node& operator=(const bookie_node&) = delete;

  // Connects to the metadata store (retrying while it is down), checks the
  // cookies, opens and replays the bookie, serves and registers.
  result<void> start();
  // Unregisters, stops serving, stops the bookie (a clean shutdown).
  void stop();

  std::uint16_t port() const;
  std::uint16_t http_port() const;
  const std::string& id() const { return _id; }

 private:
  result<void> start_autorecovery();
  bookie_status status() const;
  std::vector<directory_usage> measure_directories() const;
  // Every diskCheckInterval: read-only or back (disk_monitor.h), and the
  // registration moved to match.
  awaitable<void> watch_disks(std::shared_ptr<io::gate::pass> held);

  struct parts;
  bookie_config _config;
  std::string _id;
  std::unique_ptr<parts> _parts;
};

}  // namespace magnetar::bookie_node
