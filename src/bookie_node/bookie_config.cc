#include "bookie_node/bookie_config.h"

#include "base/errc.h"
#include "base/properties.h"
#include "meta/store_url.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <charconv>

namespace magnetar::bookie_node {

namespace {

auto bad(std::string_view key, std::string detail) {
  return fail(base::errc::invalid_argument, fmt::format("{}: {}", key, detail));
}

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> items;
  while (!value.empty()) {
    const auto comma = value.find(',');
    const auto item = base::trim(value.substr(0, comma));
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return items;
}

result<double> fraction(std::string_view key, std::string_view value) {
  double parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size() || parsed <= 0 || parsed > 1) {
    return bad(key, fmt::format("'{}' is not a fraction in (0, 1]", value));
  }
  return parsed;
}

result<double> decimal(std::string_view key, std::string_view value, double min, double max) {
  double parsed = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
  if (ec != std::errc() || end != value.data() + value.size() || parsed < min || parsed > max) {
    return bad(key, fmt::format("'{}' is not a number in {}..{}", value, min, max));
  }
  return parsed;
}

result<std::int64_t> number(std::string_view key, std::string_view value, std::int64_t min, std::int64_t max) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < min || n > max) {
    return bad(key, fmt::format("'{}' is not a number in {}..{}", value, min, max));
  }
  return n;
}

result<bool> flag(std::string_view key, std::string_view value) {
  if (value != "true" && value != "false") return bad(key, fmt::format("'{}' is not true or false", value));
  return value == "true";
}

// Keys of upstream's conf/bookkeeper.conf that magnetar's bookie does not use.
constexpr auto upstream_keys = std::to_array<std::string_view>({
    "bookieId",
    "allowLoopback",
    "useHostNameAsBookieID",
    "useShortHostName",
    "allowEphemeralPorts",
    "enableLocalTransport",
    "disableServerSocketBind",
    "bookieDeathWatchInterval",
    "extraServerComponents",
    "ignoreExtraServerComponentsStartupFailures",
    "numAddWorkerThreads",
    "numReadWorkerThreads",
    "numHighPriorityWorkerThreads",
    "maxPendingReadRequestsPerThread",
    "maxPendingAddRequestsPerThread",
    "enableBusyWait",
    "serverTcpNoDelay",
    "serverSockKeepalive",
    "serverTcpLinger",
    "byteBufAllocatorSizeMax",
    "nettyMaxFrameSizeBytes",
    "httpServerEnabled",
    "httpServerPort",
    "httpServerHost",
    "httpServerClass",
    "journalFormatVersionToWrite",
    "journalMaxSizeMB",
    "journalMaxBackups",
    "journalPreAllocSizeMB",
    "journalWriteBufferSizeKB",
    "journalRemoveFromPageCache",
    "journalSyncData",
    "journalAdaptiveGroupWrites",
    "journalBufferedWritesThreshold",
    "numJournalCallbackThreads",
    "journalAlignmentSize",
    "journalBufferedEntriesThreshold",
    "journalFlushWhenQueueEmpty",
    "journalQueueSize",
    "ledgerStorageClass",
    "sortedLedgerStorageEnabled",
    "indexDirectories",
    "minUsableSizeForIndexFileCreation",
    "isForceGCAllowWhenNoSpace",
    "gcWaitTime",
    "gcOverreplicatedLedgerWaitTime",
    "minorCompactionInterval",
    "minorCompactionThreshold",
    "majorCompactionInterval",
    "majorCompactionThreshold",
    "compactionRateByEntries",
    "compactionRateByBytes",
    "flushInterval",
    "flushEntrylogBytes",
    "entryLogFilePreallocationEnabled",
    "logSizeLimit",
    "readBufferSizeBytes",
    "writeBufferSizeBytes",
    "dbStorage_writeCacheMaxSizeMb",
    "dbStorage_readAheadCacheMaxSizeMb",
    "dbStorage_readAheadCacheBatchSize",
    "dbStorage_rocksDB_blockCacheSize",
    "dbStorage_rocksDB_writeBufferSizeMB",
    "dbStorage_rocksDB_sstSizeInMB",
    "dbStorage_rocksDB_blockSize",
    "dbStorage_rocksDB_bloomFilterBitsPerKey",
    "dbStorage_rocksDB_numLevels",
    "dbStorage_rocksDB_numFilesInLevel0",
    "dbStorage_rocksDB_maxSizeInLevel1MB",
    "diskUsageWarnThreshold",
    "auditorPeriodicBookieCheckInterval",
    "rereplicationEntryBatchSize",
    "readOnlyModeEnabled",
    "forceReadOnlyBookie",
    "statsProviderClass",
    "enableStatistics",
    "zkEnableSecurity",
    "zkRetryBackoffStartMs",
    "zkRetryBackoffMaxMs",
    "storageserver.grpc.port",
    "dlog.bkcEnsembleSize",
    "dlog.bkcWriteQuorumSize",
    "dlog.bkcAckQuorumSize",
    "storage.range.store.dirs",
    "storage.serve.readonly.tables",
    "storage.cluster.controller.schedule.interval.ms",
    "openFileLimit",
    "pageLimit",
    "fileInfoFormatVersionToWrite",
    "numEntriesInFileInfoCache",
    "entryLogPerLedgerEnabled",
});

result<void> apply(bookie_config& c, std::string_view key, std::string_view value) {
  if (key == "bookiePort") {
    MAGNETAR_TRY(port, number(key, value, 0, 65535));
    c.bookie_port = static_cast<std::uint16_t>(port);
  } else if (key == "listeningInterface") {
    c.listening_address = std::string(value);
  } else if (key == "advertisedAddress") {
    c.advertised_address = std::string(value);
  } else if (key == "journalDirectories" || key == "journalDirectory") {
    c.journal_directories = split_list(value);
    if (c.journal_directories.empty()) return bad(key, "names no directory");
  } else if (key == "ledgerDirectories") {
    c.ledger_directories = split_list(value);
    if (c.ledger_directories.size() != 1) {
      return bad(key, fmt::format("names {} directories; magnetar's bookie keeps its ledgers in one",
                                  c.ledger_directories.size()));
    }
  } else if (key == "metadataServiceUri") {
    return apply_metadata_service_uri(c, value);
  } else if (key == "zkServers") {
    c.zookeeper_servers = std::string(value);
  } else if (key == "zkLedgersRootPath") {
    if (!std::string_view(value).ends_with("/ledgers"))
      return bad(key, fmt::format("'{}' does not end in /ledgers", value));
    c.chroot = std::string(value.substr(0, value.size() - std::string_view("/ledgers").size()));
  } else if (key == "zkTimeout") {
    MAGNETAR_TRY(ms, number(key, value, 1, 3'600'000));
    c.zookeeper_session_timeout = std::chrono::milliseconds(ms);
  } else if (key == "prometheusStatsHttpPort") {
    MAGNETAR_TRY(port, number(key, value, 0, 65535));
    c.http_port = static_cast<std::uint16_t>(port);
  } else if (key == "prometheusStatsHttpAddress") {
    c.http_address = std::string(value);
  } else if (key == "diskUsageThreshold" || key == "diskUsageLwmThreshold") {
    MAGNETAR_TRY(ratio, fraction(key, value));
    (key == "diskUsageThreshold" ? c.disk_usage_threshold : c.disk_usage_lwm_threshold) = ratio;
  } else if (key == "autoRecoveryDaemonEnabled") {
    MAGNETAR_TRY(on, flag(key, value));
    c.auto_recovery = on;
  } else if (key == "lostBookieRecoveryDelay") {
    MAGNETAR_TRY(s, number(key, value, 0, 7 * 86'400));
    c.lost_bookie_recovery_delay = std::chrono::seconds(s);
  } else if (key == "auditorPeriodicCheckInterval") {
    MAGNETAR_TRY(s, number(key, value, 0, 365 * 86'400));
    c.auditor_periodic_check_interval = std::chrono::seconds(s);
  } else if (key == "openLedgerRereplicationGracePeriod") {
    MAGNETAR_TRY(ms, number(key, value, 0, 86'400'000));
    c.open_ledger_grace = std::chrono::milliseconds(ms);
  } else if (key == "journalMaxGroupWaitMSec") {
    MAGNETAR_TRY(ms, decimal(key, value, 0, 60'000));
    c.journal_max_group_wait = std::chrono::microseconds(static_cast<std::int64_t>(ms * 1000));
  } else if (key == "diskCheckInterval") {
    MAGNETAR_TRY(ms, number(key, value, 1, 3'600'000));
    c.disk_check_interval = std::chrono::milliseconds(ms);
  } else if (key == "tlsProviderFactoryClass") {
    c.tls_enabled = true;
  } else if (key == "tlsCertificatePath") {
    c.tls.certificate_file = std::string(value);
  } else if (key == "tlsKeyStore") {
    c.tls.key_file = std::string(value);
  } else if (key == "tlsTrustStore") {
    c.tls.trust_certs_file = std::string(value);
  } else if (key == "tlsKeyStoreType" || key == "tlsTrustStoreType") {
    if (value != "PEM") return bad(key, fmt::format("'{}': magnetar reads PEM files only", value));
  } else if (key == "tlsClientAuthentication") {
    MAGNETAR_TRY(on, flag(key, value));
    c.tls.require_trusted_client_cert = on;
  } else if (key == "tlsCertFilesRefreshDurationSeconds") {
    MAGNETAR_TRY(s, number(key, value, 0, 86'400));
    c.tls_cert_refresh = std::chrono::seconds(s);
  } else if (key == "serverNumIOThreads") {
    MAGNETAR_TRY(n, number(key, value, 0, 1024));
    c.num_io_threads = static_cast<unsigned>(n);
  } else {
    return fail(base::errc::not_found, std::string(key));
  }
  return success();
}

}  // namespace

result<void> apply_metadata_service_uri(bookie_config& config, std::string_view uri) {
  auto parsed = meta::parse_metadata_service_uri(uri);
  if (!parsed) return bad("metadataServiceUri", std::string(parsed.error().detail()));
  config.zookeeper_servers = std::move(parsed.value().servers);
  config.chroot = std::move(parsed.value().chroot);
  return success();
}

result<parsed_bookie_config> parse_bookie_config(std::string_view text, std::string_view source) {
  parsed_bookie_config parsed;
  MAGNETAR_TRY(base::parse_properties(text, source, [&](std::string_view key, std::string_view value) -> result<void> {
    if (value.empty()) return success();  // as upstream: an empty value keeps the default
    auto applied = apply(parsed.config, key, value);
    if (applied) return success();
    if (applied.error() != base::errc::not_found) return applied;
    if (std::find(upstream_keys.begin(), upstream_keys.end(), key) == upstream_keys.end()) {
      return fail(base::errc::invalid_argument, fmt::format("{}: not a bookie setting", key));
    }
    parsed.not_implemented.emplace_back(key);
    return success();
  }));
  if (parsed.config.disk_usage_lwm_threshold > parsed.config.disk_usage_threshold) {
    return fail(base::errc::invalid_argument,
                fmt::format("{}: diskUsageLwmThreshold {} is above diskUsageThreshold {}", source,
                            parsed.config.disk_usage_lwm_threshold, parsed.config.disk_usage_threshold));
  }
  if (parsed.config.tls_enabled && (parsed.config.tls.certificate_file.empty() || parsed.config.tls.key_file.empty())) {
    return fail(base::errc::invalid_argument,
                fmt::format("{}: tlsProviderFactoryClass needs tlsCertificatePath and tlsKeyStore", source));
  }
  if (parsed.config.tls.require_trusted_client_cert && parsed.config.tls.trust_certs_file.empty()) {
    return fail(base::errc::invalid_argument, fmt::format("{}: tlsClientAuthentication needs tlsTrustStore", source));
  }
  if (parsed.config.zookeeper_servers.empty()) {
    return fail(base::errc::invalid_argument, fmt::format("{}: metadataServiceUri (or zkServers) is required", source));
  }
  return parsed;
}

result<bookie_config> load_bookie_config(std::string_view path) {
  MAGNETAR_TRY(text, base::read_text_file(path));
  MAGNETAR_TRY(parsed, parse_bookie_config(text, path));
  if (!parsed.not_implemented.empty()) {
    spdlog::warn("{}: magnetar's bookie ignores these BookKeeper settings: {}", path,
                 fmt::join(parsed.not_implemented, ", "));
  }
  return std::move(parsed.config);
}

}  // namespace magnetar::bookie_node
