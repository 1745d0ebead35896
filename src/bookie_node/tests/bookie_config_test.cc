// bookie_config: bookkeeper.conf keys as upstream names them.
#include "bookie_node/bookie_config.h"

#include <gmock/gmock.h>

namespace magnetar::bookie_node {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(bookie_config, metadata_service_uri_gives_servers_and_chroot) {
  auto parsed = parse_bookie_config("metadataServiceUri=zk+null://zk1:2181;zk2:2181/pulsar/ledgers\n", "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.zookeeper_servers, "zk1:2181,zk2:2181");
  EXPECT_EQ(parsed.value().config.chroot, "/pulsar");
}

TEST(bookie_config, directories_port_and_address_are_applied) {
  auto parsed = parse_bookie_config(
      "zkServers=127.0.0.1:2181\nbookiePort=3182\nadvertisedAddress=10.0.0.5\n"
      "journalDirectories=/d/j1,/d/j2\nledgerDirectories=/d/l\n",
      "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_EQ(c.bookie_id(), "10.0.0.5:3182");
  EXPECT_THAT(c.journal_directories, ElementsAre("/d/j1", "/d/j2"));
  EXPECT_THAT(c.ledger_directories, ElementsAre("/d/l"));
}

TEST(bookie_config, an_upstream_key_is_accepted_and_listed) {
  auto parsed = parse_bookie_config("zkServers=h:1\nauditorPeriodicBookieCheckInterval=60\n", "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_THAT(parsed.value().not_implemented, ElementsAre("auditorPeriodicBookieCheckInterval"));
}

TEST(bookie_config, auto_recovery_and_disk_keys_are_applied) {
  auto parsed = parse_bookie_config(
      "zkServers=h:1\nautoRecoveryDaemonEnabled=false\nlostBookieRecoveryDelay=60\n"
      "openLedgerRereplicationGracePeriod=5000\ndiskUsageThreshold=0.8\ndiskUsageLwmThreshold=0.7\n"
      "diskCheckInterval=250\nprometheusStatsHttpPort=8100\nauditorPeriodicCheckInterval=3600\n",
      "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_FALSE(c.auto_recovery);
  EXPECT_EQ(c.lost_bookie_recovery_delay, std::chrono::seconds(60));
  EXPECT_EQ(c.open_ledger_grace, std::chrono::milliseconds(5000));
  EXPECT_DOUBLE_EQ(c.disk_usage_threshold, 0.8);
  EXPECT_DOUBLE_EQ(c.disk_usage_lwm_threshold, 0.7);
  EXPECT_EQ(c.disk_check_interval, std::chrono::milliseconds(250));
  EXPECT_EQ(c.http_port, 8100);
  EXPECT_EQ(c.auditor_periodic_check_interval, std::chrono::seconds(3600));
}

TEST(bookie_config, journal_max_group_wait_takes_milliseconds_with_a_fraction) {
  auto parsed = parse_bookie_config("zkServers=h:1\njournalMaxGroupWaitMSec=0.25\n", "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().config.journal_max_group_wait, std::chrono::microseconds(250));
  EXPECT_THAT(parsed.value().not_implemented, IsEmpty());
  EXPECT_FALSE(parse_bookie_config("zkServers=h:1\njournalMaxGroupWaitMSec=-1\n", "b.conf"));
}

TEST(bookie_config, a_low_water_mark_above_the_threshold_is_refused) {
  auto parsed = parse_bookie_config("zkServers=h:1\ndiskUsageThreshold=0.8\ndiskUsageLwmThreshold=0.9\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("diskUsageLwmThreshold 0.9 is above diskUsageThreshold 0.8"));
}

TEST(bookie_config, an_unknown_key_is_an_error_naming_file_and_line) {
  auto parsed = parse_bookie_config("zkServers=h:1\nbookiPort=3181\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("b.conf:2: bookiPort: not a bookie setting"));
}

TEST(bookie_config, several_ledger_directories_are_refused) {
  auto parsed = parse_bookie_config("zkServers=h:1\nledgerDirectories=/a,/b\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("names 2 directories"));
}

TEST(bookie_config, a_metadata_service_uri_without_ledgers_is_refused) {
  auto parsed = parse_bookie_config("metadataServiceUri=zk://h:2181/other\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("must end in /ledgers"));
}

TEST(bookie_config, the_metadata_store_is_required) {
  auto parsed = parse_bookie_config("bookiePort=3181\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("metadataServiceUri"));
}

TEST(bookie_config, tls_keys_fill_its_server_settings) {
  auto parsed = parse_bookie_config(
      "zkServers=h:1\ntlsProviderFactoryClass=org.apache.bookkeeper.tls.TLSContextFactory\n"
      "tlsCertificatePath=/b.pem\ntlsKeyStoreType=PEM\ntlsKeyStore=/b.key\ntlsTrustStoreType=PEM\n"
      "tlsTrustStore=/ca.pem\ntlsClientAuthentication=true\ntlsCertFilesRefreshDurationSeconds=60\n",
      "b.conf");
  ASSERT_TRUE(parsed) << parsed.error();
  const auto& c = parsed.value().config;
  EXPECT_TRUE(c.tls_enabled);
  EXPECT_EQ(c.tls.certificate_file, "/b.pem");
  EXPECT_EQ(c.tls.key_file, "/b.key");
  EXPECT_EQ(c.tls.trust_certs_file, "/ca.pem");
  EXPECT_TRUE(c.tls.require_trusted_client_cert);
  EXPECT_EQ(c.tls_cert_refresh, std::chrono::seconds(60));
}

TEST(bookie_config, tls_without_certificate_and_key_is_refused) {
  auto parsed = parse_bookie_config("zkServers=h:1\ntlsProviderFactoryClass=x\ntlsCertificatePath=/b.pem\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("needs tlsCertificatePath and tlsKeyStore"));
}

TEST(bookie_config, client_authentication_without_a_trust_store_is_refused) {
  auto parsed = parse_bookie_config(
      "zkServers=h:1\ntlsProviderFactoryClass=x\ntlsCertificatePath=/b.pem\ntlsKeyStore=/b.key\n"
      "tlsClientAuthentication=true\n",
      "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("tlsClientAuthentication needs tlsTrustStore"));
}

TEST(bookie_config, a_key_store_other_than_pem_is_refused) {
  auto parsed = parse_bookie_config("zkServers=h:1\ntlsKeyStoreType=JKS\n", "b.conf");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("PEM files only"));
}

}  // namespace
}  // namespace magnetar::bookie_node
