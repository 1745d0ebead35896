// End to end: a cluster whose brokers serve pulsar+ssl:// and https://, call each
// other over TLS (brokerClientTlsEnabled) and write to bookies that take only TLS
// clients with a certificate (tlsClientAuthentication on the bookies,
// bookkeeperTLSClientAuthentication on the brokers). A client that knows one broker's
// TLS URL reaches a topic the other one owns; lookups, registrations and 307s name the TLS URLs;
// an admin call that one broker makes to another goes over https.
#include "magnetar/client.h"
#include "tests/e2e/cluster_fixture.h"
#include "tls/test_certificates.h"

namespace magnetar::e2e {
namespace {

using namespace std::chrono_literals;

class cluster_tls : public cluster {
 protected:
  void SetUp() override {
    const auto certs = std::filesystem::path(dir.path()) / "certs";
    std::filesystem::create_directories(certs);
    ca.emplace(tls::certificate_authority::create(certs).value());
    server = ca->issue("broker", "localhost", {"localhost", "127.0.0.1"}).value();
    bookie = ca->issue("bookie", "bookie", {"127.0.0.1"}).value();
    cluster::SetUp();
  }
  std::string extra_config() override {
    return fmt::format(
        "brokerServicePortTls=0\nwebServicePortTls=0\ntlsCertificateFilePath={}\ntlsKeyFilePath={}\n"
        "brokerClientTlsEnabled=true\nbrokerClientTrustCertsFilePath={}\n"
        // To the bookies with the broker's own certificate.
        "bookkeeperTLSClientAuthentication=true\nbookkeeperTLSKeyFileType=PEM\nbookkeeperTLSTrustCertTypes=PEM\n"
        "bookkeeperTLSCertificateFilePath={}\nbookkeeperTLSKeyFilePath={}\nbookkeeperTLSTrustCertsFilePath={}\n",
        server.certificate_file.string(), server.key_file.string(), ca->certificate_file().string(),
        server.certificate_file.string(), server.key_file.string(), ca->certificate_file().string());
  }
  // Bookies that take TLS clients with a certificate of the cluster's CA only.
  std::string bookie_extra_config() override {
    return fmt::format(
        "tlsProviderFactoryClass=org.apache.bookkeeper.tls.TLSContextFactory\ntlsCertificatePath={}\n"
        "tlsKeyStoreType=PEM\ntlsKeyStore={}\ntlsTrustStoreType=PEM\ntlsTrustStore={}\n"
        "tlsClientAuthentication=true\n",
        bookie.certificate_file.string(), bookie.key_file.string(), ca->certificate_file().string());
  }
  result<http::reply> https_call(int broker, const std::string& method, const std::string& target,
                                 int max_redirects = 0) {
    http::call_options options{.max_redirects = max_redirects};
    options.tls = {.trust_certs_file = ca->certificate_file(), .hostname_verification = true};
    return http::call(http::url::parse(brokers[broker]->web_url_tls()).value(), method, target, {}, options);
  }
  // A topic that broker `owner` serves (the first lookup places it, by the cluster's hash).
  std::string topic_owned_by(int owner) {
    for (int i = 0; i < 64; ++i) {
      const auto name = fmt::format("tls-{}", i);
      if (owner_of(name) == owner) return name;
    }
    ADD_FAILURE() << "no topic of 64 landed on broker " << owner;
    return {};
  }

  std::optional<tls::certificate_authority> ca;
  tls::issued_certificate server;
  tls::issued_certificate bookie;
};

TEST_F(cluster_tls, lookups_and_registrations_name_each_brokers_tls_urls) {
  ASSERT_FALSE(brokers[0]->service_url_tls().empty());
  ASSERT_FALSE(brokers[1]->web_url_tls().empty());
  const auto topic = topic_owned_by(1);
  // Asked over https of broker 0: the owner's TLS URLs.
  auto lookup = https_call(0, "GET", "/lookup/v2/topic/persistent/public/default/" + topic, 3);
  ASSERT_TRUE(lookup) << lookup.error();
  ASSERT_EQ(lookup.value().status, 200) << lookup.value().body;
  const auto data = nlohmann::json::parse(lookup.value().body);
  EXPECT_EQ(data.value("brokerUrlTls", ""), brokers[1]->service_url_tls());
  EXPECT_EQ(data.value("httpUrlTls", ""), brokers[1]->web_url_tls());
  EXPECT_EQ(data.value("brokerUrl", ""), brokers[1]->service_url());
}

TEST_F(cluster_tls, a_tls_client_of_one_broker_produces_and_consumes_on_the_other) {
  const auto topic = "persistent://public/default/" + topic_owned_by(1);
  client_config config;
  config.tls_trust_certs_file_path = ca->certificate_file().string();
  config.tls_validate_hostname = true;
  config.operation_timeout = 30s;
  auto c = client::create(brokers[0]->service_url_tls(), config);
  ASSERT_TRUE(c) << c.error();
  auto consumer = c.value().subscribe(topic, "sub");
  ASSERT_TRUE(consumer) << consumer.error();
  auto producer = c.value().create_producer(topic);
  ASSERT_TRUE(producer) << producer.error();
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(producer.value().send(message_builder().payload(fmt::format("m{}", i)).build()));
  }
  for (int i = 0; i < 20; ++i) {
    auto got = consumer.value().receive(10s);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(got.value().payload(), fmt::format("m{}", i));
  }
  (void)c.value().close();
}

TEST_F(cluster_tls, admin_calls_between_brokers_go_over_https) {
  // The body is the partition count (http::call sends a body as JSON).
  http::call_options options;
  options.tls = {.trust_certs_file = ca->certificate_file()};
  auto made = http::call(http::url::parse(brokers[0]->web_url_tls()).value(), "PUT",
                         "/admin/v2/persistent/public/default/tls-parts/partitions", "4", options);
  ASSERT_TRUE(made) << made.error();
  ASSERT_EQ(made.value().status, 204) << made.value().body;
  const auto topic = topic_owned_by(1);
  {
    // Loads the partitions (on both brokers) and the topic (on broker 1).
    client_config config;
    config.tls_trust_certs_file_path = ca->certificate_file().string();
    auto c = client::create(brokers[0]->service_url_tls(), config).value();
    auto parts = c.create_producer("persistent://public/default/tls-parts");
    ASSERT_TRUE(parts) << parts.error();
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(parts.value().send(message_builder().key(fmt::format("k{}", i)).build()));
    auto single = c.create_producer("persistent://public/default/" + topic);
    ASSERT_TRUE(single) << single.error();
    ASSERT_TRUE(single.value().send(message_builder().payload("x").build()));
    (void)c.close();
  }
  // A partitioned topic's stats: broker 0 asks each partition's owner through its own
  // admin API (https: brokerClientTlsEnabled), following 307s to the other broker.
  auto stats =
      https_call(0, "GET", "/admin/v2/persistent/public/default/tls-parts/partitioned-stats?perPartition=true");
  ASSERT_TRUE(stats) << stats.error();
  ASSERT_EQ(stats.value().status, 200) << stats.value().body;
  const auto data = nlohmann::json::parse(stats.value().body);
  EXPECT_EQ(data["partitions"].size(), 4u) << stats.value().body;
  EXPECT_EQ(data.value("msgInCounter", 0), 8) << stats.value().body;
  // The owner's unload asked of the other broker: a 307 to the owner's https:// URL.
  auto moved = https_call(0, "PUT", "/admin/v2/persistent/public/default/" + topic + "/unload");
  ASSERT_TRUE(moved) << moved.error();
  EXPECT_EQ(moved.value().status, 307);
  const auto location = moved.value().header("Location");
  ASSERT_TRUE(location);
  EXPECT_TRUE(location->starts_with(brokers[1]->web_url_tls())) << *location;
  auto unloaded = https_call(0, "PUT", "/admin/v2/persistent/public/default/" + topic + "/unload", 3);
  ASSERT_TRUE(unloaded) << unloaded.error();
  EXPECT_EQ(unloaded.value().status, 204) << unloaded.value().body;
}

}  // namespace
}  // namespace magnetar::e2e
