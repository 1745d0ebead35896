// bookie_config: a networked bookie's settings, read from a BookKeeper-style
// bookkeeper.conf (base/properties.h) with BookKeeper's key names.
//
// Keys magnetar implements are checked and applied; keys of upstream's
// bookkeeper.conf that it doesn't are accepted and listed in one warning;
// anything else is an error naming the file, line and key.
// Thread-safety: pure functions.
#pragma once

#include "base/result.h"
#include "tls/settings.h"

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::bookie_node {

struct bookie_config {
  std::uint16_t bookie_port = 3181;              // bookiePort
  std::string listening_address = "0.0.0.0";     // listeningInterface's address (magnetar: an IP)
  std::string advertised_address = "127.0.0.1";  // advertisedAddress: the host part of the bookie id
  std::vector<std::string> journal_directories{"data/bookkeeper/journal"};  // journalDirectories
  std::vector<std::string> ledger_directories{"data/bookkeeper/ledgers"};   // ledgerDirectories (one)
  // metadataServiceUri, e.g. zk+null://zk1:2181;zk2:2181/ledgers (or zkServers and
  // zkLedgersRootPath): parsed into the ZooKeeper servers and the chroot above /ledgers.
  std::string zookeeper_servers;
  std::string chroot;
  std::chrono::milliseconds zookeeper_session_timeout{30'000};  // zkTimeout
  unsigned num_io_threads = 0;                                  // serverNumIOThreads; 0: one per core
  // prometheusStatsHttpPort: /metrics and the health endpoints (one port serves
  // what BookKeeper splits between it and httpServerPort); 0: any free port.
  std::uint16_t http_port = 8000;
  std::string http_address;                               // prometheusStatsHttpAddress; empty: the listening address
  double disk_usage_threshold = 0.95;                     // diskUsageThreshold: read-only past it
  double disk_usage_lwm_threshold = 0.90;                 // diskUsageLwmThreshold: writable again below it
  std::chrono::milliseconds disk_check_interval{10'000};  // diskCheckInterval
  bool auto_recovery = true;                              // autoRecoveryDaemonEnabled (as Pulsar's conf)
  std::chrono::seconds lost_bookie_recovery_delay{0};     // lostBookieRecoveryDelay
  // auditorPeriodicCheckInterval: how often the auditor checks that every closed
  // ledger's bookies hold their entries (BookKeeper's default, a week; 0: never).
  std::chrono::seconds auditor_periodic_check_interval{604'800};
  std::chrono::milliseconds open_ledger_grace{30'000};  // openLedgerRereplicationGracePeriod
  // journalMaxGroupWaitMSec (a fraction allowed): how long a journal holds a group back
  // for more records; 0 (magnetar's default): sync as soon as the last sync is done.
  std::chrono::microseconds journal_max_group_wait{0};
  // TLS for its clients (tlsProviderFactoryClass set): tlsCertificatePath, tlsKeyStore
  // (PEM: the key), tlsTrustStore (the CA of client certificates); with
  // tlsClientAuthentication clients must present one, and plaintext clients are refused.
  // The bookie's own calls to other bookies (auto-recovery) use the same files.
  bool tls_enabled = false;
  tls::server_settings tls;
  std::chrono::seconds tls_cert_refresh{300};  // tlsCertFilesRefreshDurationSeconds

  // host:port, how clients and the metadata store name this bookie.
  std::string bookie_id() const { return advertised_address + ":" + std::to_string(bookie_port); }
};

struct parsed_bookie_config {
  bookie_config config;
  std::vector<std::string> not_implemented;  // upstream keys given a value and ignored
};

// metadataServiceUri into servers and chroot: zk://, zk+null://, zk+hierarchical://
// and zk+longhierarchical:// with ';' or ',' between servers and a path ending in /ledgers.
result<void> apply_metadata_service_uri(bookie_config& config, std::string_view uri);

result<parsed_bookie_config> parse_bookie_config(std::string_view text, std::string_view source);
// Reads, parses and logs one warning listing the upstream keys it ignored.
result<bookie_config> load_bookie_config(std::string_view path);

}  // namespace magnetar::bookie_node
