#include "broker/api/config_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <limits>
#include <system_error>
#include <type_traits>

#include "base/errc.h"
#include "base/properties.h"
#include "broker/api/pulsar_config_keys.h"
#include "meta/store_url.h"
#include "wire/topic_name.h"

namespace magnetar::broker {
namespace {

// Pulsar reads most of these settings into Java ints; the same bound here means a value
// Pulsar takes is taken, and one it refuses is refused.
constexpr std::int64_t java_int_max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

auto bad_value(std::string detail) { return fail(base::errc::invalid_argument, std::move(detail)); }

using base::trim;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

result<std::int64_t> parse_integer(std::string_view value, std::int64_t min, std::int64_t max) {
  std::string_view digits = value;
  if (digits.starts_with('+')) digits.remove_prefix(1);  // Java's Long.parseLong takes it too
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), number);
  const bool whole = !digits.empty() && end == digits.data() + digits.size();
  if (ec == std::errc::result_out_of_range || (whole && ec == std::errc() && (number < min || number > max))) {
    return bad_value(fmt::format("'{}' is out of range ({}..{})", value, min, max));
  }
  if (ec != std::errc() || !whole) return bad_value(fmt::format("'{}' is not a whole number", value));
  return number;
}

result<double> parse_fraction(std::string_view value, double min, double max) {
  double number = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (ec != std::errc() || value.empty() || end != value.data() + value.size()) {
    return bad_value(fmt::format("'{}' is not a number", value));
  }
  if (number < min || number > max) return bad_value(fmt::format("'{}' is out of range ({}..{})", value, min, max));
  return number;
}

template <class T>
constexpr bool is_duration = requires {
  typename T::rep;
  typename T::period;
};

// A numeric field of broker_config (an integer or a std::chrono duration in the key's unit).
template <auto Member, std::int64_t Min, std::int64_t Max>
result<void> set_number(broker_config& config, std::string_view value) {
  using field = std::remove_cvref_t<decltype(config.*Member)>;
  MAGNETAR_TRY(number, parse_integer(value, Min, Max));
  if constexpr (is_duration<field>) {
    config.*Member = field(number);
  } else {
    config.*Member = static_cast<field>(number);
  }
  return success();
}

template <auto Member>
result<void> set_port(broker_config& config, std::string_view value) {
  auto port = parse_integer(value, 0, 65535);
  if (!port) return bad_value(fmt::format("'{}' is not a port (0..65535; 0 picks a free one)", value));
  config.*Member = static_cast<std::uint16_t>(port.value());
  return success();
}

// Pulsar's Boolean.parseBoolean takes anything but "true" as false; a typo such as
// "ture" would then silently turn a feature off, so anything else is refused here.
result<bool> parse_bool(std::string_view value) {
  const std::string word = lower(value);
  if (word != "true" && word != "false") {
    return bad_value(fmt::format("'{}' is not a boolean (true or false)", value));
  }
  return word == "true";
}

template <auto Member>
result<void> set_bool(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(flag, parse_bool(value));
  config.*Member = flag;
  return success();
}

// A host name or address: one word, checked by whoever binds or resolves it.
template <auto Member>
result<void> set_host(broker_config& config, std::string_view value) {
  if (std::any_of(value.begin(), value.end(), [](unsigned char c) { return std::isspace(c); })) {
    return bad_value(fmt::format("'{}' is not a host name or address (it has spaces)", value));
  }
  config.*Member = std::string(value);
  return success();
}

// A comma-separated list; blanks around the items and empty items are dropped.
std::vector<std::string> list_of(std::string_view value) {
  std::vector<std::string> items;
  while (!value.empty()) {
    const auto comma = value.find(',');
    auto item = value.substr(0, comma);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.front()))) item.remove_prefix(1);
    while (!item.empty() && std::isspace(static_cast<unsigned char>(item.back()))) item.remove_suffix(1);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
  return items;
}

// A string setting of the authentication settings (the key material is read and
// checked when the broker starts: a key file may be put in place after the file is read).
template <std::string auth::authentication_settings::*Member>
result<void> set_authentication(broker_config& config, std::string_view value) {
  config.authentication.*Member = std::string(value);
  return success();
}

result<void> set_authentication_providers(broker_config& config, std::string_view value) {
  config.authentication.providers = list_of(value);
  return success();
}

result<void> set_super_user_roles(broker_config& config, std::string_view value) {
  config.super_user_roles = list_of(value);
  return success();
}

result<void> set_advertised_listeners(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(listeners, parse_advertised_listeners(value));
  config.advertised_listeners = std::move(listeners);
  return success();
}

result<void> set_cluster_name(broker_config& config, std::string_view value) {
  if (!wire::is_valid_name_part(value)) {
    return bad_value(fmt::format("'{}' is not a valid cluster name (letters, digits and -=:._)", value));
  }
  config.cluster_name = std::string(value);
  return success();
}

result<void> set_auto_topic_creation_type(broker_config& config, std::string_view value) {
  const std::string type = lower(value);
  if (type != "non-partitioned" && type != "partitioned") {
    return bad_value(fmt::format("'{}' is not a topic type (non-partitioned or partitioned)", value));
  }
  config.allow_auto_topic_creation_type = type;
  return success();
}

// A duration field of broker_config set from a number in the key's unit (`Unit`), which
// may be coarser than the field's (tests set the field directly in finer units).
template <auto Member, class Unit, std::int64_t Min, std::int64_t Max>
result<void> set_duration(broker_config& config, std::string_view value) {
  using field = std::remove_cvref_t<decltype(config.*Member)>;
  MAGNETAR_TRY(number, parse_integer(value, Min, Max));
  config.*Member = std::chrono::duration_cast<field>(Unit(number));
  return success();
}

// A duration in minutes that may have a fraction (upstream's keys are whole minutes;
// "0.05" lets a test shed every 3 s).
template <auto Member>
result<void> set_minutes(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(minutes, parse_fraction(value, 0, 1e6));
  config.*Member = std::chrono::milliseconds(static_cast<std::int64_t>(minutes * 60'000));
  return success();
}

// Milliseconds that may have a fraction, into a finer field ("0.25": 250 us).
template <auto Member>
result<void> set_fractional_millis(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(millis, parse_fraction(value, 0, 60'000));
  config.*Member = std::chrono::microseconds(static_cast<std::int64_t>(millis * 1000));
  return success();
}

template <auto Member, int Min, int Max>
result<void> set_fraction(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(number, parse_fraction(value, Min, Max));
  config.*Member = number;
  return success();
}

result<void> set_backlog_quota_policy(broker_config& config, std::string_view value) {
  if (value != "producer_request_hold" && value != "producer_exception" && value != "consumer_backlog_eviction") {
    return bad_value(fmt::format(
        "'{}' is not a backlog quota policy (producer_request_hold, producer_exception, consumer_backlog_eviction)",
        value));
  }
  config.backlog_quota_default_retention_policy = std::string(value);
  return success();
}

result<void> set_data_dir(broker_config& config, std::string_view value) {
  config.data_dir = std::string(value);
  return success();
}

// A port that an empty value turns off.
template <auto Member>
result<void> set_optional_port(broker_config& config, std::string_view value) {
  if (value.empty()) {
    (config.*Member).reset();
    return success();
  }
  auto port = parse_integer(value, 0, 65535);
  if (!port)
    return bad_value(fmt::format("'{}' is not a port (0..65535; 0 picks a free one, empty turns it off)", value));
  config.*Member = static_cast<std::uint16_t>(port.value());
  return success();
}

template <std::string tls::server_settings::*Field>
result<void> set_tls_text(broker_config& config, std::string_view value) {
  config.tls.*Field = std::string(value);
  return success();
}

template <std::vector<std::string> tls::server_settings::*Field>
result<void> set_tls_list(broker_config& config, std::string_view value) {
  config.tls.*Field = list_of(value);
  return success();
}

result<void> set_tls_require_client_cert(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(flag, parse_bool(value));
  config.tls.require_trusted_client_cert = flag;
  return success();
}

template <std::string tls::client_settings::*Field>
result<void> set_client_tls_text(broker_config& config, std::string_view value) {
  config.broker_client_tls.*Field = std::string(value);
  return success();
}

template <std::string tls::client_settings::*Field>
result<void> set_bookkeeper_tls_text(broker_config& config, std::string_view value) {
  config.bookkeeper_tls.*Field = std::string(value);
  return success();
}

// bookkeeperTLSKeyFileType, bookkeeperTLSTrustCertTypes: magnetar reads PEM only.
result<void> set_pem_only(broker_config&, std::string_view value) {
  if (value != "PEM") return bad_value(fmt::format("'{}': magnetar reads PEM files only", value));
  return success();
}

template <bool tls::client_settings::*Field>
result<void> set_client_tls_flag(broker_config& config, std::string_view value) {
  MAGNETAR_TRY(flag, parse_bool(value));
  config.broker_client_tls.*Field = flag;
  return success();
}

template <std::string broker_config::*Field>
result<void> set_text(broker_config& config, std::string_view value) {
  config.*Field = std::string(value);
  return success();
}

// A URL that parse_store_url takes (checked here, so a typo fails at start-up).
template <std::string broker_config::*Field>
result<void> set_store_url(broker_config& config, std::string_view value) {
  if (auto parsed = meta::parse_store_url(value); !parsed) return bad_value(parsed.error().detail());
  config.*Field = std::string(value);
  return success();
}

result<void> set_metadata_service_uri(broker_config& config, std::string_view value) {
  if (auto parsed = meta::parse_metadata_service_uri(value); !value.empty() && !parsed) {
    return bad_value(parsed.error().detail());
  }
  config.bookkeeper_metadata_service_uri = std::string(value);
  return success();
}

struct setting {
  std::string_view key;
  result<void> (*apply)(broker_config&, std::string_view value);
  bool empty_value_applies = false;  // an empty value means something (a port off), not "the default"
};

using c = broker_config;

// In the order of broker_config's fields.
constexpr auto settings = std::to_array<setting>({
    {"clusterName", &set_cluster_name},
    {"metadataStoreUrl", &set_store_url<&c::metadata_store_url>},
    {"zookeeperServers", &set_store_url<&c::metadata_store_url>},
    {"configurationMetadataStoreUrl", &set_store_url<&c::configuration_metadata_store_url>},
    {"bookkeeperMetadataServiceUri", &set_metadata_service_uri},
    {"metadataStoreSessionTimeoutMillis",
     &set_duration<&c::metadata_store_session_timeout, std::chrono::milliseconds, 1, java_int_max>},
    {"metadataStoreOperationTimeoutSeconds",
     &set_duration<&c::metadata_store_operation_timeout, std::chrono::seconds, 1, java_int_max>},
    {"bindAddress", &set_host<&c::bind_address>},
    {"advertisedAddress", &set_host<&c::advertised_address>},
    {"advertisedListeners", &set_advertised_listeners},
    {"internalListenerName", &set_host<&c::internal_listener_name>},
    {"brokerServicePort", &set_optional_port<&c::broker_service_port>, true},
    {"webServicePort", &set_optional_port<&c::web_service_port>, true},
    {"brokerServicePortTls", &set_optional_port<&c::broker_service_port_tls>, true},
    {"webServicePortTls", &set_optional_port<&c::web_service_port_tls>, true},
    {"tlsCertificateFilePath", &set_tls_text<&tls::server_settings::certificate_file>},
    {"tlsKeyFilePath", &set_tls_text<&tls::server_settings::key_file>},
    {"tlsTrustCertsFilePath", &set_tls_text<&tls::server_settings::trust_certs_file>},
    {"tlsRequireTrustedClientCertOnConnect", &set_tls_require_client_cert},
    {"tlsProtocols", &set_tls_list<&tls::server_settings::protocols>},
    {"tlsCiphers", &set_tls_list<&tls::server_settings::ciphers>},
    {"tlsCertRefreshCheckDurationSec",
     &set_duration<&c::tls_cert_refresh_check, std::chrono::seconds, 0, java_int_max>},
    {"maxMessageSize", &set_number<&c::max_message_size, 1, java_int_max>},
    {"allowAutoTopicCreation", &set_bool<&c::allow_auto_topic_creation>},
    {"allowAutoSubscriptionCreation", &set_bool<&c::allow_auto_subscription_creation>},
    {"allowAutoTopicCreationType", &set_auto_topic_creation_type},
    {"defaultNumPartitions", &set_number<&c::default_num_partitions, 1, java_int_max>},
    // 0 turns keep-alive probes off, as in Pulsar.
    {"keepAliveIntervalSeconds", &set_number<&c::keep_alive_interval, 0, java_int_max>},
    {"connectionLivenessCheckTimeoutMillis",
     &set_duration<&c::connection_liveness_check_timeout, std::chrono::milliseconds, 0, java_int_max>},
    {"maxPendingPublishRequestsPerConnection",
     &set_number<&c::max_pending_publish_requests_per_connection, 1, java_int_max>},
    {"dispatcherMaxReadBatchSize", &set_number<&c::dispatcher_max_read_batch_size, 1, java_int_max>},
    {"dispatcherMaxReadSizeBytes", &set_number<&c::dispatcher_max_read_size_bytes, 1, java_int_max>},
    {"maxUnackedMessagesPerConsumer", &set_number<&c::max_unacked_messages_per_consumer, 0, java_int_max>},
    {"maxUnackedMessagesPerSubscription", &set_number<&c::max_unacked_messages_per_subscription, 0, java_int_max>},
    {"subscriptionKeySharedConsistentHashingReplicaPoints",
     &set_number<&c::key_shared_consistent_hashing_replica_points, 1, 10'000>},
    {"keySharedLookAheadMsgInReplayThresholdPerSubscription",
     &set_number<&c::key_shared_look_ahead_entries, 1, java_int_max>},
    {"delayedDeliveryEnabled", &set_bool<&c::delayed_delivery_enabled>},
    // At least 1 ms: the tick is what keeps a clock step from spinning the timer.
    {"delayedDeliveryTickTimeMillis", &set_number<&c::delayed_delivery_tick, 1, java_int_max>},
    {"managedLedgerMaxEntriesPerLedger", &set_number<&c::managed_ledger_max_entries_per_ledger, 1, java_int_max>},
    {"managedLedgerMinLedgerRolloverTimeMinutes",
     &set_number<&c::managed_ledger_min_ledger_rollover_time, 0, java_int_max>},
    {"managedLedgerMaxLedgerRolloverTimeMinutes",
     &set_number<&c::managed_ledger_max_ledger_rollover_time, 0, java_int_max>},
    // Bounded so that the size in bytes fits 64 bits.
    {"managedLedgerCacheSizeMB", &set_number<&c::managed_ledger_cache_size_mb, 0, int64_max / (1 << 20)>},
    {"managedLedgerDefaultEnsembleSize", &set_number<&c::managed_ledger_default_ensemble_size, 1, java_int_max>},
    {"managedLedgerDefaultWriteQuorum", &set_number<&c::managed_ledger_default_write_quorum, 1, java_int_max>},
    {"managedLedgerDefaultAckQuorum", &set_number<&c::managed_ledger_default_ack_quorum, 1, java_int_max>},
    // -1: unbounded, 0: none (Pulsar's meaning).
    {"defaultRetentionTimeInMinutes", &set_number<&c::default_retention_time_minutes, -1, java_int_max>},
    {"defaultRetentionSizeInMB", &set_number<&c::default_retention_size_mb, -1, int64_max / (1 << 20)>},
    {"brokerDeduplicationEnabled", &set_bool<&c::broker_deduplication_enabled>},
    {"brokerDeduplicationEntriesInterval", &set_number<&c::broker_deduplication_entries_interval, 1, java_int_max>},
    {"replicationProducerQueueSize", &set_number<&c::replication_producer_queue_size, 1, java_int_max>},
    {"brokerDeduplicationMaxNumberOfProducers",
     &set_number<&c::broker_deduplication_max_number_of_producers, 1, java_int_max>},
    {"brokerDeduplicationSnapshotIntervalSeconds",
     &set_duration<&c::broker_deduplication_snapshot_interval, std::chrono::seconds, 0, java_int_max>},
    {"brokerDeduplicationProducerInactivityTimeoutMinutes",
     &set_duration<&c::broker_deduplication_producer_inactivity_timeout, std::chrono::minutes, 1, java_int_max>},
    {"maxProducersPerTopic", &set_number<&c::max_producers_per_topic, 0, java_int_max>},
    {"maxConsumersPerTopic", &set_number<&c::max_consumers_per_topic, 0, java_int_max>},
    {"ttlDurationDefaultInSeconds", &set_number<&c::ttl_duration_default_in_seconds, 0, java_int_max>},
    {"messageExpiryCheckIntervalInMinutes",
     &set_duration<&c::message_expiry_check_interval, std::chrono::minutes, 1, java_int_max>},
    {"scalableTopicConsumerSessionGracePeriodSeconds",
     &set_duration<&c::scalable_topic_consumer_session_grace_period, std::chrono::seconds, 0, java_int_max>},
    {"scalableTopicDrainCheckInitialMillis",
     &set_duration<&c::scalable_topic_drain_check_initial, std::chrono::milliseconds, 1, java_int_max>},
    {"scalableTopicDrainCheckMaxMillis",
     &set_duration<&c::scalable_topic_drain_check_max, std::chrono::milliseconds, 1, java_int_max>},
    {"backlogQuotaCheckEnabled", &set_bool<&c::backlog_quota_check_enabled>},
    {"backlogQuotaCheckIntervalInSeconds",
     &set_duration<&c::backlog_quota_check_interval, std::chrono::seconds, 1, java_int_max>},
    {"backlogQuotaDefaultLimitBytes", &set_number<&c::backlog_quota_default_limit_bytes, -1, int64_max>},
    {"backlogQuotaDefaultRetentionPolicy", &set_backlog_quota_policy},
    {"dataDir", &set_data_dir},
    {"journalSyncData", &set_bool<&c::journal_sync_data>},
    // magnetar's own key: upstream's flushInterval has the same meaning, but its
    // standalone.conf ships a minute, which here would bring back the stalls (see
    // bookie_options::checkpoint_interval); it stays an ignored key.
    {"journalMaxGroupWaitMSec", &set_fractional_millis<&c::journal_max_group_wait>},
    {"bookieCheckpointIntervalMillis",
     &set_duration<&c::bookie_checkpoint_interval, std::chrono::milliseconds, 1, java_int_max>},
    {"loadBalancerEnabled", &set_bool<&c::load_balancer_enabled>},
    {"loadBalancerSheddingEnabled", &set_bool<&c::load_balancer_shedding_enabled>},
    {"loadBalancerReportUpdateMinIntervalMillis",
     &set_duration<&c::load_balancer_report_interval, std::chrono::milliseconds, 1, java_int_max>},
    {"loadBalancerSheddingIntervalMinutes", &set_minutes<&c::load_balancer_shedding_interval>},
    {"loadBalancerSheddingGracePeriodMinutes", &set_minutes<&c::load_balancer_shedding_grace_period>},
    {"loadBalancerBrokerThresholdShedderPercentage", &set_fraction<&c::load_balancer_threshold_percentage, 0, 100>},
    {"loadBalancerHistoryResourcePercentage", &set_fraction<&c::load_balancer_history_percentage, 0, 1>},
    // 0: one per core. Far beyond any core count is a typo, not a wish.
    {"numIOThreads", &set_number<&c::num_io_threads, 0, 1024>},
    {"authenticationEnabled", &set_bool<&c::authentication_enabled>},
    {"authenticationProviders", &set_authentication_providers},
    {"tokenSecretKey", &set_authentication<&auth::authentication_settings::token_secret_key>},
    {"tokenPublicKey", &set_authentication<&auth::authentication_settings::token_public_key>},
    {"tokenAuthClaim", &set_authentication<&auth::authentication_settings::token_auth_claim>},
    {"tokenAudienceClaim", &set_authentication<&auth::authentication_settings::token_audience_claim>},
    {"tokenAudience", &set_authentication<&auth::authentication_settings::token_audience>},
    {"anonymousUserRole", &set_authentication<&auth::authentication_settings::anonymous_user_role>},
    {"authenticationRefreshCheckSeconds",
     &set_duration<&c::authentication_refresh_check, std::chrono::seconds, 1, java_int_max>},
    {"authorizationEnabled", &set_bool<&c::authorization_enabled>},
    {"superUserRoles", &set_super_user_roles},
    {"authorizationAllowWildcardsMatching", &set_bool<&c::authorization_allow_wildcards>},
    {"brokerClientAuthenticationPlugin", &set_text<&c::broker_client_auth_plugin>},
    {"brokerClientAuthenticationParameters", &set_text<&c::broker_client_auth_params>},
    {"brokerClientTlsEnabled", &set_bool<&c::broker_client_tls_enabled>},
    {"brokerClientTrustCertsFilePath", &set_client_tls_text<&tls::client_settings::trust_certs_file>},
    {"brokerClientCertificateFilePath", &set_client_tls_text<&tls::client_settings::certificate_file>},
    {"brokerClientKeyFilePath", &set_client_tls_text<&tls::client_settings::key_file>},
    {"tlsAllowInsecureConnection", &set_client_tls_flag<&tls::client_settings::allow_insecure_connection>},
    {"tlsHostnameVerificationEnabled", &set_client_tls_flag<&tls::client_settings::hostname_verification>},
    {"bookkeeperTLSClientAuthentication", &set_bool<&c::bookkeeper_tls_enabled>},
    {"bookkeeperTLSCertificateFilePath", &set_bookkeeper_tls_text<&tls::client_settings::certificate_file>},
    {"bookkeeperTLSKeyFilePath", &set_bookkeeper_tls_text<&tls::client_settings::key_file>},
    {"bookkeeperTLSTrustCertsFilePath", &set_bookkeeper_tls_text<&tls::client_settings::trust_certs_file>},
    {"bookkeeperTLSKeyFileType", &set_pem_only},
    {"bookkeeperTLSTrustCertTypes", &set_pem_only},
});

const setting* find_setting(std::string_view key) {
  auto it = std::find_if(settings.begin(), settings.end(), [&](const setting& s) { return s.key == key; });
  return it == settings.end() ? nullptr : &*it;
}

// Levenshtein distance, ignoring case: a key typed with the wrong case is the likeliest
// typo of all (clustername for clusterName).
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string_view> implemented_config_keys() {
  std::vector<std::string_view> keys;
  for (const auto& s : settings) keys.push_back(s.key);
  return keys;
}

std::string_view closest_config_key(std::string_view key) {
  std::string_view best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  auto consider = [&](std::string_view candidate) {
    const std::size_t distance = edit_distance(key, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  };
  for (const auto& s : settings) consider(s.key);
  for (const auto candidate : upstream_only_config_keys()) consider(candidate);
  // Long keys tolerate more slips; beyond that the "suggestion" would be noise.
  const std::size_t tolerated = std::max<std::size_t>(2, key.size() / 5);
  return best_distance <= tolerated ? best : std::string_view();
}

result<setting_outcome> apply_config_setting(broker_config& config, std::string_view key, std::string_view value) {
  key = trim(key);
  value = trim(value);
  if (const auto* s = find_setting(key)) {
    if (value.empty() && !s->empty_value_applies) return setting_outcome::kept_default;
    if (auto applied = s->apply(config, value); !applied) {
      return fail(applied.error().code(), fmt::format("{}: {}", key, applied.error().detail()));
    }
    return setting_outcome::applied;
  }
  if (is_upstream_only_config_key(key)) return setting_outcome::not_implemented;
  if (key.empty()) return bad_value("a line has a value but no key");
  const auto suggestion = closest_config_key(key);
  if (suggestion.empty()) return bad_value(fmt::format("unknown key '{}'", key));
  return bad_value(fmt::format("unknown key '{}' (did you mean '{}'?)", key, suggestion));
}

result<void> validate_broker_config(const broker_config& config) {
  if (!config.internal_listener_name.empty() &&
      internal_listener(config.advertised_listeners, config.internal_listener_name) == nullptr) {
    return bad_value(
        fmt::format("internalListenerName '{}' is not one of advertisedListeners", config.internal_listener_name));
  }
  if (!config.broker_service_port && !config.broker_service_port_tls) {
    return bad_value("brokerServicePort and brokerServicePortTls are both empty: the broker would serve no client");
  }
  if (!config.web_service_port && !config.web_service_port_tls) {
    return bad_value("webServicePort and webServicePortTls are both empty: the broker would have no admin API");
  }
  if ((config.broker_service_port_tls || config.web_service_port_tls) &&
      (config.tls.certificate_file.empty() || config.tls.key_file.empty())) {
    return bad_value("a TLS port needs tlsCertificateFilePath and tlsKeyFilePath");
  }
  // BookKeeper's rule, which Pulsar checks when it creates a ledger: E >= W >= A.
  if (config.managed_ledger_default_write_quorum > config.managed_ledger_default_ensemble_size) {
    return bad_value(
        fmt::format("managedLedgerDefaultWriteQuorum ({}) is larger than managedLedgerDefaultEnsembleSize ({})",
                    config.managed_ledger_default_write_quorum, config.managed_ledger_default_ensemble_size));
  }
  if (config.managed_ledger_default_ack_quorum > config.managed_ledger_default_write_quorum) {
    return bad_value(
        fmt::format("managedLedgerDefaultAckQuorum ({}) is larger than managedLedgerDefaultWriteQuorum ({})",
                    config.managed_ledger_default_ack_quorum, config.managed_ledger_default_write_quorum));
  }
  return success();
}

result<parsed_broker_config> parse_broker_config(std::string_view text, std::string_view source) {
  parsed_broker_config parsed;
  MAGNETAR_TRY(base::parse_properties(text, source, [&](std::string_view key, std::string_view value) -> result<void> {
    MAGNETAR_TRY(outcome, apply_config_setting(parsed.config, key, value));
    if (outcome == setting_outcome::not_implemented && !value.empty() &&
        std::find(parsed.not_implemented.begin(), parsed.not_implemented.end(), key) == parsed.not_implemented.end()) {
      parsed.not_implemented.emplace_back(key);
    }
    return success();
  }));
  if (auto valid = validate_broker_config(parsed.config); !valid) {
    return fail(valid.error().code(), fmt::format("{}: {}", source, valid.error().detail()));
  }
  return parsed;
}

result<parsed_broker_config> read_broker_config(std::string_view path) {
  MAGNETAR_TRY(text, base::read_text_file(path));
  return parse_broker_config(text, path);
}

std::string not_implemented_warning(std::string_view source, const std::vector<std::string>& keys) {
  if (keys.empty()) return {};
  return fmt::format("{}: {} Pulsar setting{} not implemented by magnetar, ignored: {}", source, keys.size(),
                     keys.size() == 1 ? " is" : "s are", fmt::join(keys, ", "));
}

result<broker_config> load_broker_config(std::string_view path) {
  MAGNETAR_TRY(parsed, read_broker_config(path));
  if (auto warning = not_implemented_warning(path, parsed.not_implemented); !warning.empty()) {
    spdlog::warn("{}", warning);
  }
  return std::move(parsed.config);
}

}  // namespace magnetar::broker
