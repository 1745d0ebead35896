#include "broker/api/config_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "base/errc.h"
#include "broker/api/pulsar_config_keys.h"
#include "io/temp_directory.h"

namespace magnetar::broker {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

result<parsed_broker_config> parse(std::string_view text) { return parse_broker_config(text, "broker.conf"); }

std::string error_of(std::string_view text) {
  auto parsed = parse(text);
  EXPECT_FALSE(parsed) << "parsed: " << text;
  if (parsed) return {};
  EXPECT_EQ(parsed.error(), base::errc::invalid_argument);
  return parsed.error().detail();
}

TEST(config_file, an_empty_file_keeps_every_default) {
  auto parsed = parse("");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.cluster_name, "standalone");
  EXPECT_EQ(parsed.value().config.broker_service_port, 6650);
  EXPECT_TRUE(parsed.value().not_implemented.empty());
}

TEST(config_file, sets_every_implemented_key) {
  auto parsed = parse(R"(
clusterName=east-1
bindAddress=127.0.0.1
advertisedAddress=broker-1.example.com
advertisedListeners=internal:pulsar://10.0.0.5:6650,external:pulsar://broker-1.example.com:16650
internalListenerName=internal
brokerServicePort=16650
webServicePort=18080
maxMessageSize=1048576
allowAutoTopicCreation=false
allowAutoTopicCreationType=partitioned
allowAutoSubscriptionCreation=false
maxProducersPerTopic=7
maxConsumersPerTopic=9
defaultNumPartitions=4
keepAliveIntervalSeconds=15
maxPendingPublishRequestsPerConnection=500
dispatcherMaxReadBatchSize=50
dispatcherMaxReadSizeBytes=1000000
delayedDeliveryEnabled=false
delayedDeliveryTickTimeMillis=250
managedLedgerMaxEntriesPerLedger=1000
managedLedgerMinLedgerRolloverTimeMinutes=1
managedLedgerMaxLedgerRolloverTimeMinutes=60
managedLedgerCacheSizeMB=64
managedLedgerDefaultEnsembleSize=3
managedLedgerDefaultWriteQuorum=2
managedLedgerDefaultAckQuorum=2
defaultRetentionTimeInMinutes=-1
defaultRetentionSizeInMB=1024
brokerDeduplicationEnabled=true
brokerDeduplicationEntriesInterval=50
brokerDeduplicationMaxNumberOfProducers=20
brokerDeduplicationSnapshotIntervalSeconds=30
brokerDeduplicationProducerInactivityTimeoutMinutes=60
ttlDurationDefaultInSeconds=3600
messageExpiryCheckIntervalInMinutes=2
backlogQuotaCheckEnabled=false
backlogQuotaCheckIntervalInSeconds=30
backlogQuotaDefaultLimitBytes=1048576
backlogQuotaDefaultRetentionPolicy=consumer_backlog_eviction
dataDir=/var/lib/magnetar
journalSyncData=false
bookieCheckpointIntervalMillis=250
numIOThreads=4
loadBalancerEnabled=false
loadBalancerSheddingEnabled=false
loadBalancerReportUpdateMinIntervalMillis=1000
loadBalancerSheddingIntervalMinutes=0.05
loadBalancerSheddingGracePeriodMinutes=2
loadBalancerBrokerThresholdShedderPercentage=25
loadBalancerHistoryResourcePercentage=0.5
)");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_EQ(c.cluster_name, "east-1");
  EXPECT_EQ(c.bind_address, "127.0.0.1");
  EXPECT_EQ(c.advertised_address, "broker-1.example.com");
  ASSERT_EQ(c.advertised_listeners.size(), 2u);
  EXPECT_EQ(c.advertised_listeners[1].broker_url, "pulsar://broker-1.example.com:16650");
  EXPECT_EQ(c.internal_listener_name, "internal");
  EXPECT_FALSE(c.allow_auto_subscription_creation);
  EXPECT_EQ(c.max_producers_per_topic, 7);
  EXPECT_EQ(c.max_consumers_per_topic, 9);
  EXPECT_EQ(c.broker_service_port, 16650);
  EXPECT_EQ(c.web_service_port, 18080);
  EXPECT_EQ(c.max_message_size, 1048576u);
  EXPECT_FALSE(c.allow_auto_topic_creation);
  EXPECT_EQ(c.allow_auto_topic_creation_type, "partitioned");
  EXPECT_EQ(c.default_num_partitions, 4);
  EXPECT_EQ(c.keep_alive_interval, std::chrono::seconds(15));
  EXPECT_EQ(c.max_pending_publish_requests_per_connection, 500u);
  EXPECT_EQ(c.dispatcher_max_read_batch_size, 50u);
  EXPECT_EQ(c.dispatcher_max_read_size_bytes, 1000000u);
  EXPECT_FALSE(c.delayed_delivery_enabled);
  EXPECT_EQ(c.delayed_delivery_tick, std::chrono::milliseconds(250));
  EXPECT_EQ(c.managed_ledger_max_entries_per_ledger, 1000u);
  EXPECT_EQ(c.managed_ledger_min_ledger_rollover_time, std::chrono::minutes(1));
  EXPECT_EQ(c.managed_ledger_max_ledger_rollover_time, std::chrono::minutes(60));
  EXPECT_EQ(c.managed_ledger_cache_size_mb, 64u);
  EXPECT_EQ(c.managed_ledger_default_ensemble_size, 3);
  EXPECT_EQ(c.managed_ledger_default_write_quorum, 2);
  EXPECT_EQ(c.managed_ledger_default_ack_quorum, 2);
  EXPECT_EQ(c.default_retention_time_minutes, -1);
  EXPECT_EQ(c.default_retention_size_mb, 1024);
  EXPECT_TRUE(c.broker_deduplication_enabled);
  EXPECT_EQ(c.broker_deduplication_entries_interval, 50);
  EXPECT_EQ(c.broker_deduplication_max_number_of_producers, 20);
  EXPECT_EQ(c.broker_deduplication_snapshot_interval, std::chrono::seconds(30));
  EXPECT_EQ(c.broker_deduplication_producer_inactivity_timeout, std::chrono::minutes(60));
  EXPECT_EQ(c.ttl_duration_default_in_seconds, 3600);
  EXPECT_EQ(c.message_expiry_check_interval, std::chrono::minutes(2));
  EXPECT_FALSE(c.backlog_quota_check_enabled);
  EXPECT_EQ(c.backlog_quota_check_interval, std::chrono::seconds(30));
  EXPECT_EQ(c.backlog_quota_default_limit_bytes, 1048576);
  EXPECT_EQ(c.backlog_quota_default_retention_policy, "consumer_backlog_eviction");
  EXPECT_EQ(c.data_dir, "/var/lib/magnetar");
  EXPECT_FALSE(c.journal_sync_data);
  EXPECT_EQ(c.bookie_checkpoint_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(c.num_io_threads, 4u);
  EXPECT_FALSE(c.load_balancer_enabled);
  EXPECT_FALSE(c.load_balancer_shedding_enabled);
  EXPECT_EQ(c.load_balancer_report_interval, std::chrono::milliseconds(1000));
  EXPECT_EQ(c.load_balancer_shedding_interval, std::chrono::milliseconds(3000));
  EXPECT_EQ(c.load_balancer_shedding_grace_period, std::chrono::minutes(2));
  EXPECT_EQ(c.load_balancer_threshold_percentage, 25);
  EXPECT_EQ(c.load_balancer_history_percentage, 0.5);
}

TEST(config_file, journal_max_group_wait_takes_milliseconds_with_a_fraction) {
  auto parsed = parse("journalMaxGroupWaitMSec=2\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.journal_max_group_wait, std::chrono::milliseconds(2));
  EXPECT_EQ(parse("journalMaxGroupWaitMSec=0.25").value().config.journal_max_group_wait,
            std::chrono::microseconds(250));
  EXPECT_THAT(error_of("journalMaxGroupWaitMSec=-1"), HasSubstr("out of range"));
}

TEST(config_file, a_fraction_out_of_its_range_is_refused) {
  EXPECT_THAT(error_of("loadBalancerHistoryResourcePercentage=1.5"), HasSubstr("out of range"));
  EXPECT_THAT(error_of("loadBalancerSheddingIntervalMinutes=soon"), HasSubstr("not a number"));
}

TEST(config_file, skips_comments_and_blank_lines_and_trims_whitespace) {
  auto parsed = parse("# a comment\n! another\n\n   \n  clusterName =  west \t\r\nbrokerServicePort= 7000\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.cluster_name, "west");
  EXPECT_EQ(parsed.value().config.broker_service_port, 7000);
}

TEST(config_file, an_empty_value_keeps_the_default) {
  auto parsed = parse("advertisedAddress=\nnumIOThreads=\nmanagedLedgerCacheSizeMB=");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.advertised_address, "localhost");
  EXPECT_EQ(parsed.value().config.num_io_threads, 0u);
  EXPECT_EQ(parsed.value().config.managed_ledger_cache_size_mb, 512u);
}

TEST(config_file, the_last_of_a_repeated_key_wins) {
  auto parsed = parse("webServicePort=1\nwebServicePort=2\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.web_service_port, 2);
}

TEST(config_file, upstream_keys_are_accepted_and_listed_once) {
  auto parsed = parse("tlsEnabled=false\nclusterName=a\nloadManagerClassName=x\ntlsEnabled=true\nbookieId=\n");
  ASSERT_TRUE(parsed) << parsed.error();
  // bookieId has no value: nothing was asked of it, so nothing is reported.
  EXPECT_THAT(parsed.value().not_implemented, ElementsAre("tlsEnabled", "loadManagerClassName"));
  EXPECT_EQ(not_implemented_warning("broker.conf", parsed.value().not_implemented),
            "broker.conf: 2 Pulsar settings are not implemented by magnetar, ignored: tlsEnabled, "
            "loadManagerClassName");
}

TEST(config_file, an_unknown_key_names_file_line_and_the_closest_key) {
  EXPECT_EQ(error_of("# header\nclusterName=a\nbrokerServicePrt=6650\n"),
            "broker.conf:3: unknown key 'brokerServicePrt' (did you mean 'brokerServicePort'?)");
}

TEST(config_file, a_key_in_the_wrong_case_suggests_the_right_one) {
  EXPECT_THAT(error_of("clustername=a"), HasSubstr("did you mean 'clusterName'?"));
}

TEST(config_file, a_typo_of_an_upstream_key_is_still_an_error) {
  EXPECT_THAT(error_of("tlsEnabledd=true"), HasSubstr("unknown key 'tlsEnabledd' (did you mean 'tlsEnabled'?)"));
}

TEST(config_file, an_unknown_key_far_from_any_gets_no_suggestion) {
  EXPECT_EQ(error_of("frobnicate=1"), "broker.conf:1: unknown key 'frobnicate'");
}

TEST(config_file, a_bad_number_names_the_key) {
  EXPECT_EQ(error_of("\nmaxMessageSize=5MB"), "broker.conf:2: maxMessageSize: '5MB' is not a whole number");
  EXPECT_THAT(error_of("defaultNumPartitions=1.5"), HasSubstr("'1.5' is not a whole number"));
}

TEST(config_file, bookkeeper_metadata_service_uri_names_the_bookies_to_write_to) {
  auto parsed = parse("bookkeeperMetadataServiceUri=zk://zk1:2181/ledgers\n");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.bookkeeper_metadata_service_uri, "zk://zk1:2181/ledgers");
}

TEST(config_file, a_bookkeeper_metadata_service_uri_without_ledgers_is_refused) {
  EXPECT_THAT(error_of("bookkeeperMetadataServiceUri=zk://zk1:2181/pulsar"),
              HasSubstr("bookkeeperMetadataServiceUri: 'zk://zk1:2181/pulsar': the path must end in /ledgers"));
}

TEST(config_file, a_number_out_of_range_names_the_range) {
  EXPECT_EQ(error_of("defaultNumPartitions=0"),
            "broker.conf:1: defaultNumPartitions: '0' is out of range (1..2147483647)");
  EXPECT_THAT(error_of("managedLedgerMaxEntriesPerLedger=99999999999999999999999"), HasSubstr("out of range"));
  EXPECT_THAT(error_of("dispatcherMaxReadBatchSize=-5"), HasSubstr("out of range"));
}

TEST(config_file, delayed_delivery_is_on_by_default_and_its_tick_is_at_least_a_millisecond) {
  auto parsed = parse("");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_TRUE(parsed.value().config.delayed_delivery_enabled);
  EXPECT_EQ(parsed.value().config.delayed_delivery_tick, std::chrono::milliseconds(1000));
  EXPECT_THAT(error_of("delayedDeliveryTickTimeMillis=0"), HasSubstr("delayedDeliveryTickTimeMillis"));
}

TEST(config_file, a_port_out_of_range_is_refused) {
  EXPECT_EQ(
      error_of("brokerServicePort=70000"),
      "broker.conf:1: brokerServicePort: '70000' is not a port (0..65535; 0 picks a free one, empty turns it off)");
  EXPECT_THAT(error_of("webServicePort=-1"), HasSubstr("webServicePort: '-1' is not a port"));
}

TEST(config_file, a_bad_boolean_is_refused_rather_than_read_as_false) {
  EXPECT_EQ(error_of("allowAutoTopicCreation=ture"),
            "broker.conf:1: allowAutoTopicCreation: 'ture' is not a boolean (true or false)");
  auto parsed = parse("journalSyncData=FALSE");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_FALSE(parsed.value().config.journal_sync_data);
}

TEST(config_file, auto_topic_creation_type_must_be_one_of_the_two) {
  EXPECT_EQ(error_of("allowAutoTopicCreationType=sharded"),
            "broker.conf:1: allowAutoTopicCreationType: 'sharded' is not a topic type (non-partitioned or "
            "partitioned)");
}

TEST(config_file, a_cluster_name_with_bad_characters_is_refused) {
  EXPECT_THAT(error_of("clusterName=my cluster"), HasSubstr("clusterName: 'my cluster' is not a valid cluster name"));
}

TEST(config_file, an_unknown_backlog_quota_policy_is_refused) {
  auto parsed = parse("backlogQuotaDefaultRetentionPolicy=drop_everything\n");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), ::testing::HasSubstr("backlogQuotaDefaultRetentionPolicy"));
}

TEST(config_file, a_line_without_equals_is_refused) {
  EXPECT_EQ(error_of("clusterName standalone"), "broker.conf:1: expected key=value, found 'clusterName standalone'");
}

TEST(config_file, quorums_must_fit_the_ensemble) {
  EXPECT_EQ(error_of("managedLedgerDefaultWriteQuorum=2"),
            "broker.conf: managedLedgerDefaultWriteQuorum (2) is larger than managedLedgerDefaultEnsembleSize (1)");
  EXPECT_THAT(error_of("managedLedgerDefaultEnsembleSize=3\nmanagedLedgerDefaultWriteQuorum=2\n"
                       "managedLedgerDefaultAckQuorum=3"),
              HasSubstr("managedLedgerDefaultAckQuorum (3) is larger than managedLedgerDefaultWriteQuorum (2)"));
}

TEST(config_file, an_internal_listener_name_must_be_one_of_the_listeners) {
  auto parsed = parse("advertisedListeners=a:pulsar://h:1\ninternalListenerName=b\n");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("internalListenerName 'b'"));
}

TEST(config_file, apply_config_setting_reports_what_it_did) {
  broker_config config;
  EXPECT_EQ(apply_config_setting(config, "numIOThreads", "2").value(), setting_outcome::applied);
  EXPECT_EQ(apply_config_setting(config, "numIOThreads", "").value(), setting_outcome::kept_default);
  EXPECT_EQ(apply_config_setting(config, "tlsEnabled", "true").value(), setting_outcome::not_implemented);
  EXPECT_EQ(config.num_io_threads, 2u);
  auto bad = apply_config_setting(config, "numIOThreads", "x");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().detail(), "numIOThreads: 'x' is not a whole number");
}

TEST(config_file, no_implemented_key_is_in_the_upstream_only_list) {
  for (auto key : implemented_config_keys()) EXPECT_FALSE(is_upstream_only_config_key(key)) << key;
}

TEST(config_file, the_upstream_only_list_names_each_key_once) {
  std::set<std::string_view> seen;
  for (auto key : upstream_only_config_keys()) EXPECT_TRUE(seen.insert(key).second) << key;
}

// The settings of upstream's standalone.conf that matter to a first start, with values
// as upstream ships them: such a file starts magnetar as it is.
TEST(config_file, an_upstream_standalone_conf_is_accepted) {
  auto parsed = parse(R"(
### --- General broker settings --- ###
metadataStoreUrl=
brokerServicePort=6650
webServicePort=8080
bindAddress=0.0.0.0
bindAddresses=
advertisedAddress=
haProxyProtocolEnabled=false
numIOThreads=
numOrderedExecutorThreads=8
clusterName=standalone
maxPendingPublishRequestsPerConnection=1000
managedLedgerDefaultEnsembleSize=1
managedLedgerDefaultWriteQuorum=1
managedLedgerDefaultAckQuorum=1
managedLedgerCacheSizeMB=
managedLedgerMaxEntriesPerLedger=50000
managedLedgerMinLedgerRolloverTimeMinutes=10
managedLedgerMaxLedgerRolloverTimeMinutes=240
loadManagerClassName=org.apache.pulsar.broker.loadbalance.NoopLoadManager
defaultRetentionTimeInMinutes=0
defaultRetentionSizeInMB=0
keepAliveIntervalSeconds=30
dbStorage_rocksDB_numLevels=-1
flushInterval=60000
journalSyncData=false
allowAutoTopicCreation=true
allowAutoTopicCreationType=non-partitioned
defaultNumPartitions=1
transactionCoordinatorEnabled=false
)");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_FALSE(parsed.value().config.journal_sync_data);
  // Upstream's minute would bring back the checkpoint stalls: warned about, not obeyed.
  EXPECT_EQ(parsed.value().config.bookie_checkpoint_interval, std::chrono::milliseconds(50));
  EXPECT_THAT(parsed.value().not_implemented,
              ElementsAre("haProxyProtocolEnabled", "numOrderedExecutorThreads", "loadManagerClassName",
                          "dbStorage_rocksDB_numLevels", "flushInterval", "transactionCoordinatorEnabled"));
}

// Keys of upstream's own client test configuration (test-conf/standalone-ssl.conf) that
// newer standalone.conf files no longer list; an operator's older file has them too.
TEST(config_file, older_upstream_keys_are_accepted) {
  auto parsed = parse(R"(
clientLibraryVersionCheckAllowUnversioned=true
loadBalancerBrokerComfortLoadLevelPercentage=65
loadBalancerBrokerOverloadedThresholdPercentage=85
loadBalancerBrokerUnderloadedThresholdPercentage=1
loadBalancerNamespaceBundleSplitIntervalMinutes=15
loadBalancerPlacementStrategy=weightedRandomSelection
)");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().not_implemented.size(), 6u);
}

TEST(config_file, load_reads_a_file_and_names_it_in_errors) {
  io::temp_directory dir;
  const std::string path = dir / "broker.conf";
  {
    std::ofstream out(path);
    out << "clusterName=from-file\nbrokerServicePort=abc\n";
  }
  auto loaded = load_broker_config(path);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().detail(),
            path + ":2: brokerServicePort: 'abc' is not a port (0..65535; 0 picks a free one, empty turns it off)");
  {
    std::ofstream out(path);
    out << "clusterName=from-file\ntlsEnabled=false\n";
  }
  loaded = load_broker_config(path);
  ASSERT_TRUE(loaded) << loaded.error();
  EXPECT_EQ(loaded.value().cluster_name, "from-file");
}

TEST(config_file, a_missing_file_is_an_error_naming_it) {
  auto loaded = load_broker_config("/nonexistent/broker.conf");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error(), std::errc::no_such_file_or_directory);
  EXPECT_THAT(loaded.error().message(), HasSubstr("/nonexistent/broker.conf"));
}

TEST(config_file, an_empty_port_turns_it_off_for_a_tls_only_broker) {
  auto parsed = parse(
      "brokerServicePort=\nwebServicePort=\nbrokerServicePortTls=6651\nwebServicePortTls=8443\n"
      "tlsCertificateFilePath=/c.pem\ntlsKeyFilePath=/k.pem\ntlsCertRefreshCheckDurationSec=0\n");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_FALSE(c.broker_service_port);
  EXPECT_FALSE(c.web_service_port);
  EXPECT_EQ(c.broker_service_port_tls, 6651);
  EXPECT_EQ(c.web_service_port_tls, 8443);
  EXPECT_EQ(c.tls_cert_refresh_check, std::chrono::seconds(0));
}

TEST(config_file, both_ports_of_a_pair_off_is_refused) {
  EXPECT_THAT(error_of("brokerServicePort=\n"), HasSubstr("brokerServicePort and brokerServicePortTls are both empty"));
  EXPECT_THAT(error_of("webServicePort=\n"), HasSubstr("webServicePort and webServicePortTls are both empty"));
}

TEST(config_file, a_tls_port_without_certificate_and_key_is_refused) {
  EXPECT_THAT(error_of("webServicePortTls=8443\n"), HasSubstr("needs tlsCertificateFilePath and tlsKeyFilePath"));
}

TEST(config_file, the_broker_client_tls_keys_fill_its_client_settings) {
  auto parsed = parse(
      "brokerClientTlsEnabled=true\nbrokerClientTrustCertsFilePath=/ca.pem\nbrokerClientCertificateFilePath=/b.pem\n"
      "brokerClientKeyFilePath=/b.key\ntlsAllowInsecureConnection=false\ntlsHostnameVerificationEnabled=true\n");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_TRUE(c.broker_client_tls_enabled);
  EXPECT_EQ(c.broker_client_tls.trust_certs_file, "/ca.pem");
  EXPECT_EQ(c.broker_client_tls.certificate_file, "/b.pem");
  EXPECT_EQ(c.broker_client_tls.key_file, "/b.key");
  EXPECT_FALSE(c.broker_client_tls.allow_insecure_connection);
  EXPECT_TRUE(c.broker_client_tls.hostname_verification);
}

TEST(config_file, the_bookkeeper_tls_keys_fill_the_settings_for_bookies) {
  auto parsed = parse(
      "bookkeeperTLSClientAuthentication=true\nbookkeeperTLSKeyFileType=PEM\nbookkeeperTLSTrustCertTypes=PEM\n"
      "bookkeeperTLSCertificateFilePath=/b.pem\nbookkeeperTLSKeyFilePath=/b.key\n"
      "bookkeeperTLSTrustCertsFilePath=/ca.pem\n");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_TRUE(c.bookkeeper_tls_enabled);
  EXPECT_EQ(c.bookkeeper_tls.certificate_file, "/b.pem");
  EXPECT_EQ(c.bookkeeper_tls.key_file, "/b.key");
  EXPECT_EQ(c.bookkeeper_tls.trust_certs_file, "/ca.pem");
}

TEST(config_file, a_bookkeeper_key_file_type_other_than_pem_is_refused) {
  EXPECT_THAT(error_of("bookkeeperTLSKeyFileType=JKS\n"), HasSubstr("PEM files only"));
}

}  // namespace
}  // namespace magnetar::broker
