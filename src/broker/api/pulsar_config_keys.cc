#include "broker/api/pulsar_config_keys.h"

#include <algorithm>
#include <array>

namespace magnetar::broker {
namespace {

// Grouped as upstream's conf/standalone.conf groups them, then the broker.conf-only
// keys. Implemented keys (config_file.cc's table) must not appear here; a test checks.
constexpr auto upstream_keys = std::to_array<std::string_view>({
    // General broker settings
    "metadataStoreUrl", "metadataStoreConfigPath", "configurationMetadataStoreUrl", "bindAddresses",
    "haProxyProtocolEnabled", "numOrderedExecutorThreads", "numHttpServerThreads",
    "numExecutorThreadPoolSize", "numCacheExecutorThreadPoolSize", "maxConcurrentHttpRequests",
    "failureDomainsEnabled", "metadataStoreSessionTimeoutMillis", "metadataStoreOperationTimeoutSeconds",
    "metadataStoreCacheExpirySeconds", "brokerShutdownTimeoutMs", "skipBrokerShutdownOnOOM",
    "backlogQuotaDefaultLimitGB", "backlogQuotaDefaultLimitSecond", "brokerDeleteInactiveTopicsEnabled",
    "brokerDeleteInactiveTopicsFrequencySeconds", "forceDeleteTenantAllowed", "forceDeleteNamespaceAllowed",
    "maxMessageSizeCheckIntervalInSeconds",
    "activeConsumerFailoverDelayTimeMillis", "subscriptionExpirationTimeMinutes",
    "subscriptionRedeliveryTrackerEnabled", "subscriptionKeySharedUseConsistentHashing",
    "subscriptionExpiryCheckIntervalInMinutes",
    "defaultNumberOfNamespaceBundles", "maxTopicsPerNamespace", "isAllowAutoUpdateSchemaEnabled",
    "clientLibraryVersionCheckEnabled", "statusFilePath", "maxUnackedMessagesPerBroker",
    "maxUnackedMessagesPerSubscriptionOnBrokerBlocked", "topicPublisherThrottlingTickTimeMillis",
    "preciseTopicPublishRateLimiterEnable", "brokerPublisherThrottlingTickTimeMillis",
    "brokerPublisherThrottlingMaxMessageRate", "brokerPublisherThrottlingMaxByteRate",
    "dispatchThrottlingRatePerTopicInMsg", "dispatchThrottlingRatePerTopicInByte",
    "dispatchThrottlingOnBatchMessageEnabled", "dispatchThrottlingRateRelativeToPublishRate",
    "dispatchThrottlingOnNonBacklogConsumerEnabled", "dispatcherReadFailureBackoffInitialTimeInMs",
    "dispatcherReadFailureBackoffMaxTimeInMs", "dispatcherReadFailureBackoffMandatoryStopTimeInMs",
    "preciseDispatcherFlowControl", "maxConcurrentLookupRequest", "maxConcurrentTopicLoadRequest",
    "maxConcurrentNonPersistentMessagePerConnection", "numWorkerThreadsForNonPersistentTopic",
    "enablePersistentTopics", "enableNonPersistentTopics", "maxProducersPerTopic",
    "maxSameAddressProducersPerTopic", "encryptionRequireOnProducer", "maxConsumersPerTopic",
    "maxSameAddressConsumersPerTopic", "maxSubscriptionsPerTopic", "maxConsumersPerSubscription",
    "maxNumPartitionsPerPartitionedTopic",
    // Metadata store
    "metadataStoreBatchingEnabled", "metadataStoreBatchingMaxDelayMillis",
    "metadataStoreBatchingMaxOperations", "metadataStoreBatchingMaxSizeKb",
    // TLS
    "tlsEnabled", "tlsCertRefreshCheckDurationSec", "tlsCertificateFilePath", "tlsKeyFilePath",
    "tlsTrustCertsFilePath", "tlsAllowInsecureConnection", "tlsProtocols", "tlsCiphers",
    "tlsRequireTrustedClientCertOnConnect", "tlsProvider", "webServiceTlsProvider",
    "tlsEnabledWithKeyStore", "tlsKeyStoreType", "tlsKeyStore", "tlsKeyStorePassword",
    "tlsTrustStoreType", "tlsTrustStore", "tlsTrustStorePassword", "brokerClientTlsEnabled",
    "brokerClientTlsEnabledWithKeyStore", "brokerClientSslProvider", "brokerClientTrustCertsFilePath",
    "brokerClientKeyFilePath", "brokerClientCertificateFilePath", "brokerClientTlsKeyStoreType",
    "brokerClientTlsKeyStore", "brokerClientTlsKeyStorePassword", "brokerClientTlsTrustStoreType",
    "brokerClientTlsTrustStore", "brokerClientTlsTrustStorePassword", "brokerClientTlsCiphers",
    "brokerClientTlsProtocols",
    // System topics and schemas
    "systemTopicEnabled", "schemaRegistryCompatibilityCheckers", "systemTopicSchemaCompatibilityStrategy",
    "topicLevelPoliciesEnabled", "topicFencingTimeoutSeconds",
    // Authentication and authorization
    "proxyRoles", "authenticateOriginalAuthData", "authenticationEnabled", "authenticationProviders",
    "authorizationEnabled", "authorizationProvider", "authorizationAllowWildcardsMatching",
    "superUserRoles", "brokerClientAuthenticationPlugin", "brokerClientAuthenticationParameters",
    "athenzDomainNames", "anonymousUserRole", "basicAuthConf", "tokenSecretKey", "tokenPublicKey",
    "tokenAuthClaim", "tokenAudienceClaim", "tokenAudience",
    // BookKeeper client
    "bookkeeperClientAuthenticationPlugin", "bookkeeperClientAuthenticationParametersName",
    "bookkeeperClientAuthenticationParameters", "bookkeeperClientTimeoutInSeconds",
    "bookkeeperClientNumWorkerThreads", "bookkeeperClientNumIoThreads",
    "bookkeeperClientSeparatedIoThreadsEnabled", "bookkeeperClientSpeculativeReadTimeoutInMillis",
    "bookkeeperNumberOfChannelsPerBookie", "bookkeeperClientHealthCheckEnabled",
    "bookkeeperClientHealthCheckIntervalSeconds", "bookkeeperClientHealthCheckErrorThresholdPerInterval",
    "bookkeeperClientHealthCheckQuarantineTimeInSeconds", "bookkeeperClientQuarantineRatio",
    "bookkeeperClientRackawarePolicyEnabled", "bookkeeperClientRegionawarePolicyEnabled",
    "bookkeeperClientMinNumRacksPerWriteQuorum", "bookkeeperClientEnforceMinNumRacksPerWriteQuorum",
    "bookkeeperClientReorderReadSequenceEnabled", "bookkeeperClientIsolationGroups",
    "bookkeeperClientSecondaryIsolationGroups", "bookkeeperClientMinAvailableBookiesInIsolationGroups",
    "bookkeeperTLSProviderFactoryClass", "bookkeeperTLSClientAuthentication", "bookkeeperTLSKeyFileType",
    "bookkeeperTLSTrustCertTypes", "bookkeeperTLSKeyStorePasswordPath",
    "bookkeeperTLSTrustStorePasswordPath", "bookkeeperTLSKeyFilePath", "bookkeeperTLSCertificateFilePath",
    "bookkeeperTLSTrustCertsFilePath", "bookkeeperDiskWeightBasedPlacementEnabled",
    "bookkeeperExplicitLacIntervalInMills", "bookkeeperUseV2WireProtocol",
    "bookkeeperClientExposeStatsToPrometheus", "bookkeeperMetadataServiceUri",
    // Managed ledger
    "managedLedgerCursorPositionFlushSeconds", "managedLedgerDigestType",
    "managedLedgerNumSchedulerThreads", "managedLedgerCacheCopyEntries",
    "managedLedgerCacheEvictionWatermark", "managedLedgerCacheEvictionFrequency",
    "managedLedgerCacheEvictionTimeThresholdMillis", "managedLedgerCursorBackloggedThreshold",
    "managedLedgerDefaultMarkDeleteRateLimit", "managedLedgerCursorMaxEntriesPerLedger",
    "managedLedgerCursorRolloverTimeInSeconds", "managedLedgerMaxSizePerLedgerMbytes",
    "managedLedgerMaxUnackedRangesToPersist", "managedLedgerMaxUnackedRangesToPersistInMetadataStore",
    "autoSkipNonRecoverableData", "managedLedgerMetadataOperationsTimeoutSeconds",
    "managedLedgerReadEntryTimeoutSeconds", "managedLedgerAddEntryTimeoutSeconds",
    "managedLedgerNewEntriesCheckDelayInMillis", "managedLedgerMinimumBacklogCursorsForCaching",
    "managedLedgerMinimumBacklogEntriesForCaching", "managedLedgerMaxBacklogBetweenCursorsForCaching",
    "managedLedgerUnackedRangesOpenCacheSetEnabled", "managedLedgerPrometheusStatsLatencyRolloverSeconds",
    "managedLedgerTraceTaskExecution", "managedLedgerOffloadDriver", "bookieId",
    // Load balancer
    "loadManagerClassName", "loadBalancerEnabled", "loadBalancerReportUpdateThresholdPercentage",
    "loadBalancerReportUpdateMinIntervalMillis", "loadBalancerReportUpdateMaxIntervalMinutes",
    "loadBalancerHostUsageCheckIntervalMinutes", "loadBalancerSheddingIntervalMinutes",
    "loadBalancerSheddingGracePeriodMinutes", "loadBalancerBrokerMaxTopics",
    "loadBalancerResourceQuotaUpdateIntervalMinutes", "loadBalancerAutoBundleSplitEnabled",
    "loadBalancerAutoUnloadSplitBundlesEnabled", "loadBalancerNamespaceBundleMaxTopics",
    "loadBalancerNamespaceBundleMaxSessions", "loadBalancerNamespaceBundleMaxMsgRate",
    "loadBalancerNamespaceBundleMaxBandwidthMbytes", "loadBalancerNamespaceMaximumBundles",
    "loadBalancerBrokerThresholdShedderPercentage", "loadBalancerHistoryResourcePercentage",
    "loadBalancerBandwithInResourceWeight", "loadBalancerBandwithOutResourceWeight",
    "loadBalancerCPUResourceWeight", "loadBalancerMemoryResourceWeight",
    "loadBalancerDirectMemoryResourceWeight", "loadBalancerBundleUnloadMinThroughputThreshold",
    "namespaceBundleUnloadingTimeoutMs",
    // Replication
    "replicationMetricsEnabled", "replicationConnectionsPerBroker", "replicationProducerQueueSize",
    "replicationPolicyCheckDurationSeconds",
    // WebSocket
    "webSocketServiceEnabled", "webSocketNumIoThreads", "webSocketConnectionsPerBroker",
    "webSocketSessionIdleTimeoutMillis", "webSocketMaxTextFrameSize",
    // Metrics and stats
    "exposeTopicLevelMetricsInPrometheus", "metricsServletTimeoutMs", "jvmGCMetricsLoggerClassName",
    "exposePublisherStats", "exposePreciseBacklogInPrometheus", "splitTopicAndPartitionLabelInPrometheus",
    "aggregatePublisherStatsByProducerName",
    // Schema storage
    "schemaRegistryStorageClassName", "isSchemaValidationEnforced", "schemaCompatibilityStrategy",
    "narExtractionDirectory",
    // Deprecated
    "globalZookeeperServers", "brokerServicePurgeInactiveFrequencyInSeconds",
    "zooKeeperSessionTimeoutMillis", "zooKeeperOperationTimeoutSeconds", "zooKeeperCacheExpirySeconds",
    "zookeeperServers", "configurationStoreServers", "managedLedgerMaxUnackedRangesToPersistInZooKeeper",
    // The embedded bookie (standalone.conf's BookKeeper section)
    "ledgerStorageClass", "nettyMaxFrameSizeBytes", "dbStorage_writeCacheMaxSizeMb",
    "dbStorage_readAheadCacheMaxSizeMb", "dbStorage_readAheadCacheBatchSize", "flushInterval",
    "dbStorage_rocksDB_blockCacheSize", "dbStorage_rocksDB_writeBufferSizeMB",
    "dbStorage_rocksDB_sstSizeInMB", "dbStorage_rocksDB_blockSize", "dbStorage_rocksDB_bloomFilterBitsPerKey",
    "dbStorage_rocksDB_numLevels", "dbStorage_rocksDB_numFilesInLevel0",
    "dbStorage_rocksDB_maxSizeInLevel1MB", "journalMaxGroupWaitMSec", "diskUsageThreshold",
    "diskUsageWarnThreshold", "allowLoopback", "gcWaitTime",
    // Topic and subscription creation
    "allowAutoSubscriptionCreation",
    // Transactions
    "transactionCoordinatorEnabled", "transactionMetadataStoreProviderClassName",
    "transactionBufferSnapshotMaxTransactionCount", "transactionBufferSnapshotMinTimeInMillis",
    "transactionBufferClientOperationTimeoutInMills", "transactionLogBatchedWriteEnabled",
    "transactionLogBatchedWriteMaxRecords", "transactionLogBatchedWriteMaxSize",
    "transactionLogBatchedWriteMaxDelayInMillis", "transactionPendingAckBatchedWriteEnabled",
    "transactionPendingAckBatchedWriteMaxRecords", "transactionPendingAckBatchedWriteMaxSize",
    "transactionPendingAckBatchedWriteMaxDelayInMillis",
    // Packages management
    "enablePackagesManagement", "packagesManagementStorageProvider", "packagesReplicas",
    "packagesManagementLedgerRootPath", "functionsWorkerEnablePackageManagement",
    // broker.conf keys that standalone.conf does not carry
    "brokerServicePortTls", "webServicePortTls", "isRunningStandalone", "advertisedListeners",
    "internalListenerName", "brokerDeleteInactiveTopicsMode",
    "brokerDeleteInactiveTopicsMaxInactiveDurationSeconds", "subscriptionKeySharedEnable",
    "subscriptionTypesEnabled", "preferLaterVersions", "subscribeThrottlingRatePerConsumer",
    "subscribeRatePeriodPerConsumerInSecond", "dispatchThrottlingRatePerSubscriptionInMsg",
    "dispatchThrottlingRatePerSubscriptionInByte", "dispatchThrottlingRatePerReplicatorInMsg",
    "dispatchThrottlingRatePerReplicatorInByte", "dispatcherMinReadBatchSize",
    "dispatcherMaxRoundRobinBatchSize", "enableRunBookieTogether", "enableRunBookieAutoRecoveryTogether",
    "brokerServiceCompactionMonitorIntervalInSeconds", "enableReplicatedSubscriptions",
    "replicatedSubscriptionsSnapshotFrequencyMillis", "replicatedSubscriptionsSnapshotTimeoutSeconds",
    "replicatedSubscriptionsSnapshotMaxCachedPerSubscription", "maxMessagePublishBufferSizeInMB",
    "messagePublishBufferCheckIntervalInMillis", "retentionCheckIntervalInSeconds",
    "brokerEntryMetadataInterceptors", "exposingBrokerEntryMetadataToClientEnabled",
    "acknowledgmentAtBatchIndexLevelEnabled", "brokerMaxConnections", "brokerMaxConnectionsPerIp",
    "functionsWorkerEnabled",
    // Older broker.conf files spell it this way; upstream ignored it, and so do we (with the warning).
    "maxPendingPublishdRequestsPerConnection",
});

}  // namespace

std::span<const std::string_view> upstream_only_config_keys() { return upstream_keys; }

bool is_upstream_only_config_key(std::string_view key) {
  return std::find(upstream_keys.begin(), upstream_keys.end(), key) != upstream_keys.end();
}

}  // namespace magnetar::broker
