// broker_config: the settings of a broker (and of the standalone around it), named as
// Pulsar's broker.conf / standalone.conf name them where a setting exists there, so a
// Pulsar operator's file carries over (see config_file.h for the loader).
// A plain value type.
#pragma once

#include "auth/authenticator.h"
#include "broker/api/advertised_listeners.h"
#include "tls/settings.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::broker {

struct broker_config {
  std::string cluster_name = "standalone";  // clusterName
  // Where metadata lives (metadataStoreUrl; zookeeperServers is the older form):
  // zk:host:port[,...][/chroot], or rocksdb:/path; empty: the standalone's embedded
  // store under dataDir. configurationMetadataStoreUrl: the store that clusters share
  // (empty: the same as metadataStoreUrl, as upstream).
  std::string metadata_store_url;
  std::string configuration_metadata_store_url;
  // The bookies to write ledgers to (bookkeeperMetadataServiceUri, as
  // zk://servers[/chroot]/ledgers): those registered there, over the network, at
  // managedLedgerDefault* E/W/A. Empty: the broker runs its own embedded bookie
  // under dataDir (the standalone's way).
  std::string bookkeeper_metadata_service_uri;
  std::chrono::milliseconds metadata_store_session_timeout{30'000};    // metadataStoreSessionTimeoutMillis
  std::chrono::milliseconds metadata_store_operation_timeout{30'000};  // metadataStoreOperationTimeoutSeconds
  std::string bind_address = "0.0.0.0";                                // bindAddress
  std::string advertised_address = "localhost";                        // advertisedAddress: what lookups answer
  // Named addresses for clients in other networks (advertisedListeners); a LOOKUP that
  // names one is answered with its URLs. The internal one (internalListenerName, else
  // the first) is the broker's own service URL.
  std::vector<advertised_listener> advertised_listeners;
  std::string internal_listener_name;
  // The ports (0: any free port). An empty value in the file turns a port off (a
  // TLS-only broker: brokerServicePort= and webServicePort=); one of each pair must stay.
  std::optional<std::uint16_t> broker_service_port = 6650;  // brokerServicePort
  std::optional<std::uint16_t> web_service_port = 8080;     // webServicePort
  // pulsar+ssl:// (brokerServicePortTls) and https:// (webServicePortTls) with the
  // certificate, key and trust of `tls` (tlsCertificateFilePath, tlsKeyFilePath,
  // tlsTrustCertsFilePath, tlsRequireTrustedClientCertOnConnect, tlsProtocols, tlsCiphers).
  std::optional<std::uint16_t> broker_service_port_tls;
  std::optional<std::uint16_t> web_service_port_tls;
  tls::server_settings tls;
  // How often the files of `tls` are checked for a renewal that new connections then get
  // (tlsCertRefreshCheckDurationSec; 0: at every new connection).
  std::chrono::seconds tls_cert_refresh_check{300};
  // How long a client has from its TCP connect to the end of its handshake before the
  // connection is closed: the TLS handshake of a TLS port (binary protocol or HTTPS) and,
  // on the binary protocol, CONNECT answered by CONNECTED (authentication included). A
  // slowloris bound. Not an upstream key (upstream leaves it to Netty's and Jetty's idle
  // timeouts); tests shorten it.
  std::chrono::seconds handshake_timeout{10};
  std::size_t max_message_size = 5 * 1024 * 1024;                  // maxMessageSize: the largest frame taken
  bool allow_auto_topic_creation = true;                           // allowAutoTopicCreation
  std::string allow_auto_topic_creation_type = "non-partitioned";  // allowAutoTopicCreationType
  // A durable subscription that does not exist is created by the first SUBSCRIBE (and by
  // a producer's initial_subscription_name); off, SUBSCRIBE gets SubscriptionNotFound.
  bool allow_auto_subscription_creation = true;  // allowAutoSubscriptionCreation
  int default_num_partitions = 1;                // defaultNumPartitions
  std::chrono::seconds keep_alive_interval{30};  // keepAliveIntervalSeconds
  // How long a producer's name stays taken by a connection that may be dead: a producer
  // coming back under it (after its client lost the connection without a FIN) makes the
  // broker ping the old connection and close it when no answer comes within this
  // (connectionLivenessCheckTimeoutMillis; 0: no check, the name waits for keep-alive).
  std::chrono::milliseconds connection_liveness_check_timeout{5000};
  // Publishes a connection may have awaiting their receipt before the broker stops
  // reading from it (maxPendingPublishRequestsPerConnection).
  std::size_t max_pending_publish_requests_per_connection = 1000;
  // Entries a dispatcher reads at once (dispatcherMaxReadBatchSize).
  std::size_t dispatcher_max_read_batch_size = 100;
  std::size_t dispatcher_max_read_size_bytes = 5 * 1024 * 1024;  // dispatcherMaxReadSizeBytes
  // Shared and Key_Shared: a consumer (a subscription) holding this many messages
  // unacknowledged gets no more until it acknowledges some; 0: no limit.
  std::uint64_t max_unacked_messages_per_consumer = 50'000;       // maxUnackedMessagesPerConsumer
  std::uint64_t max_unacked_messages_per_subscription = 200'000;  // maxUnackedMessagesPerSubscription
  // Key_Shared AUTO_SPLIT: marks per consumer on the hash ring
  // (subscriptionKeySharedConsistentHashingReplicaPoints).
  int key_shared_consistent_hashing_replica_points = 100;
  // Key_Shared: entries held back for busy consumers before reading ahead stops
  // (keySharedLookAheadMsgInReplayThresholdPerSubscription).
  std::size_t key_shared_look_ahead_entries = 20'000;
  // Shared and Key_Shared: entries wait for their deliver_at_time
  // (delayedDeliveryEnabled); the dispatcher wakes for due entries at most once per
  // tick (delayedDeliveryTickTimeMillis), so a delivery may be up to a tick late.
  bool delayed_delivery_enabled = true;
  std::chrono::milliseconds delayed_delivery_tick{1000};

  // Managed ledgers (managedLedger*).
  std::uint64_t managed_ledger_max_entries_per_ledger = 50'000;
  std::chrono::minutes managed_ledger_min_ledger_rollover_time{10};
  std::chrono::minutes managed_ledger_max_ledger_rollover_time{240};
  std::size_t managed_ledger_cache_size_mb = 512;  // managedLedgerCacheSizeMB
  int managed_ledger_default_ensemble_size = 1;
  int managed_ledger_default_write_quorum = 1;
  int managed_ledger_default_ack_quorum = 1;
  std::int64_t default_retention_time_minutes = 0;  // defaultRetentionTimeInMinutes
  std::int64_t default_retention_size_mb = 0;       // defaultRetentionSizeInMB

  // Producer deduplication (brokerDeduplication*): on for topics whose namespace says
  // nothing; a snapshot of the sequence ids every this many entries; at most this many
  // producers in a snapshot.
  bool broker_deduplication_enabled = false;
  std::int64_t broker_deduplication_entries_interval = 1000;
  std::int64_t broker_deduplication_max_number_of_producers = 10'000;
  // A snapshot at least this often while entries came in (brokerDeduplicationSnapshot-
  // IntervalSeconds; 0: by entries only), so that a quiet topic's deduplication cursor
  // does not hold back trimming for long.
  std::chrono::milliseconds broker_deduplication_snapshot_interval = std::chrono::seconds(120);
  // A producer name not connected for this long is forgotten
  // (brokerDeduplicationProducerInactivityTimeoutMinutes).
  std::chrono::milliseconds broker_deduplication_producer_inactivity_timeout = std::chrono::hours(6);

  // Geo-replication: entries a replicator has sent and the remote cluster not yet
  // receipted, at most (replicationProducerQueueSize).
  std::size_t replication_producer_queue_size = 1000;

  // Producers and consumers a topic takes at most, where its namespace sets no
  // max_producers_per_topic / max_consumers_per_topic (maxProducersPerTopic,
  // maxConsumersPerTopic; 0: no limit).
  int max_producers_per_topic = 0;
  int max_consumers_per_topic = 0;

  // Message TTL for namespaces without messageTTL (ttlDurationDefaultInSeconds; 0: none),
  // and how often topics expire messages (messageExpiryCheckIntervalInMinutes in the
  // file; a duration here so that tests can make it seconds).
  std::int64_t ttl_duration_default_in_seconds = 0;
  std::chrono::milliseconds message_expiry_check_interval = std::chrono::minutes(5);

  // Scalable topics: how long a disconnected stream consumer keeps its segments
  // (scalableTopicConsumerSessionGracePeriodSeconds), and how often a sealed segment's
  // drain is checked for a subscription (first check, then doubling up to the max;
  // magnetar's own settings, in milliseconds in the file).
  std::chrono::milliseconds scalable_topic_consumer_session_grace_period = std::chrono::seconds(60);
  std::chrono::milliseconds scalable_topic_drain_check_initial = std::chrono::milliseconds(100);
  std::chrono::milliseconds scalable_topic_drain_check_max = std::chrono::seconds(5);

  // Backlog quotas (backlogQuota*): the check and its period (a duration here, seconds in
  // the file), and the quota of namespaces that set none (-1 bytes: no quota).
  bool backlog_quota_check_enabled = true;
  std::chrono::milliseconds backlog_quota_check_interval = std::chrono::seconds(60);
  std::int64_t backlog_quota_default_limit_bytes = -1;
  std::string backlog_quota_default_retention_policy = "producer_request_hold";

  // How often a loaded topic reads its namespace's policies again (magnetar's own, no
  // key: upstream watches them in ZooKeeper). The admin API of this broker also pushes
  // a change to its topics at once.
  std::chrono::milliseconds namespace_policies_refresh_interval = std::chrono::seconds(5);

  // A cluster's load balancing (broker/cluster/load_manager.h): each broker reports its
  // load every report interval; the leader sheds a bundle off a broker whose message
  // rate stays above the brokers' mean by more than the threshold.
  bool load_balancer_enabled = true;                                  // loadBalancerEnabled
  bool load_balancer_shedding_enabled = true;                         // loadBalancerSheddingEnabled
  std::chrono::milliseconds load_balancer_report_interval{5000};      // loadBalancerReportUpdateMinIntervalMillis
  std::chrono::milliseconds load_balancer_shedding_interval{60'000};  // loadBalancerSheddingIntervalMinutes
  std::chrono::milliseconds load_balancer_shedding_grace_period{30 * 60'000};  // ...SheddingGracePeriodMinutes
  double load_balancer_threshold_percentage = 10;  // loadBalancerBrokerThresholdShedderPercentage
  double load_balancer_history_percentage = 0.9;   // loadBalancerHistoryResourcePercentage

  // Standalone only: where the bookie's journal, entry logs and the metadata live
  // (magnetar's own key: dataDir), and whether the journal syncs (journalSyncData).
  std::string data_dir = "data/standalone";
  bool journal_sync_data = true;
  // How often the bookie checkpoints (magnetar's own key: bookieCheckpointIntervalMillis;
  // why it is short: bookie_options::checkpoint_interval).
  std::chrono::milliseconds bookie_checkpoint_interval{50};
  // How long the embedded bookie's journal holds a group back to gather more records
  // for one sync (journalMaxGroupWaitMSec, BookKeeper's key, in milliseconds; here a
  // fraction is allowed). 0, magnetar's default: sync as soon as the last sync is done.
  // A wait trades latency for fewer syncs and wake-ups: issue 28's figures in
  // docs/performance.md.
  std::chrono::microseconds journal_max_group_wait{0};
  // Threads serving connections and topics (numIOThreads); 0: one per core.
  unsigned num_io_threads = 0;

  // Security (docs/security.md). With authenticationEnabled, a client must present
  // credentials that one of authenticationProviders takes (or get anonymousUserRole);
  // with authorizationEnabled, the role they name needs a permission for what it does
  // (superUserRoles may do everything).
  bool authentication_enabled = false;  // authenticationEnabled
  // authenticationProviders, tokenSecretKey, tokenPublicKey, tokenAuthClaim,
  // tokenAudienceClaim, tokenAudience, anonymousUserRole.
  auth::authentication_settings authentication;
  // How often a connection's credentials are checked for expiry; an expired token is
  // then refreshed with an AUTH_CHALLENGE (authenticationRefreshCheckSeconds).
  std::chrono::seconds authentication_refresh_check{60};
  bool authorization_enabled = false;         // authorizationEnabled
  std::vector<std::string> super_user_roles;  // superUserRoles
  // Granted roles "pre*" and "*suf" match by prefix and suffix
  // (authorizationAllowWildcardsMatching).
  bool authorization_allow_wildcards = false;
  // What this broker presents to other brokers (its own admin API, a cluster's peers,
  // a replication's remote cluster): brokerClientAuthenticationPlugin and
  // brokerClientAuthenticationParameters, as a client's auth_plugin/auth_params. With
  // authorization, the role must be one of superUserRoles.
  std::string broker_client_auth_plugin;
  std::string broker_client_auth_params;
  // The same calls over TLS (brokerClientTlsEnabled): to peers' https:// admin URLs and
  // remote clusters' pulsar+ssl:// URLs, trusting brokerClientTrustCertsFilePath,
  // presenting brokerClientCertificateFilePath/brokerClientKeyFilePath when set, with
  // tlsAllowInsecureConnection and tlsHostnameVerificationEnabled.
  bool broker_client_tls_enabled = false;
  tls::client_settings broker_client_tls;
  // TLS to the bookies, as upstream's (bookkeeperTLSClientAuthentication): the broker
  // presents bookkeeperTLSCertificateFilePath/bookkeeperTLSKeyFilePath and trusts
  // bookkeeperTLSTrustCertsFilePath (PEM: bookkeeperTLSKeyFileType, bookkeeperTLSTrustCertTypes).
  bool bookkeeper_tls_enabled = false;
  tls::client_settings bookkeeper_tls;
};

}  // namespace magnetar::broker
