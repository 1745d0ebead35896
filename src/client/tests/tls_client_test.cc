// The SDK over TLS against a standalone with brokerServicePortTls: pulsar+ssl:// with the
// CA trusted, refusals of an untrusted server and of a wrong host name, and mutual TLS
// where the client certificate's CN is the role (the TLS authentication provider).
#include "client/tests/client_test_fixture.h"
#include "tls/test_certificates.h"

#include <filesystem>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class tls_client_test : public client_test {
 protected:
  tls_client_test() {
    const std::filesystem::path certs = std::filesystem::path(dir.path()) / "certs";
    std::filesystem::create_directories(certs);
    ca.emplace(tls::certificate_authority::create(certs).value());
    const auto server = ca->issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
    client_cert = ca->issue("app", "app", {}).value();
    broker.broker_service_port_tls = 0;
    broker.tls.certificate_file = server.certificate_file;
    broker.tls.key_file = server.key_file;
    broker.tls.trust_certs_file = ca->certificate_file();
    config.tls_trust_certs_file_path = ca->certificate_file();
  }

  std::string tls_url(const std::string& host = "127.0.0.1") const {
    return fmt::format("pulsar+ssl://{}:{}", host, server->broker_tls_port());
  }
  result<client> tls_client(client_config c, const std::string& host = "127.0.0.1") const {
    c.connection_timeout = 5s;
    c.operation_timeout = 5s;
    return client::create(tls_url(host), c);
  }

  std::optional<tls::certificate_authority> ca;
  tls::issued_certificate client_cert;
};

TEST_F(tls_client_test, produces_and_consumes_over_tls) {
  auto c = tls_client(config).value();
  auto consumer = c.subscribe(topic(), "sub");
  ASSERT_TRUE(consumer) << consumer.error();
  auto producer = c.create_producer(topic());
  ASSERT_TRUE(producer) << producer.error();
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(producer.value().send(text("m" + std::to_string(i))));
  for (int i = 0; i < 100; ++i) {
    auto got = consumer.value().receive(10s);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(got.value().payload(), "m" + std::to_string(i));
  }
  (void)c.close();
}

TEST_F(tls_client_test, an_untrusted_server_is_refused) {
  auto untrusting = config;
  untrusting.tls_trust_certs_file_path.clear();  // the system's CAs, which never signed it
  auto c = tls_client(untrusting).value();
  auto producer = c.create_producer(topic());
  ASSERT_FALSE(producer);
  EXPECT_NE(producer.error().detail().find("TLS handshake"), std::string::npos) << producer.error();
  (void)c.close();
}

TEST_F(tls_client_test, hostname_verification_refuses_a_name_the_certificate_lacks) {
  auto verifying = config;
  verifying.tls_validate_hostname = true;
  auto good = tls_client(verifying, "localhost").value();
  EXPECT_TRUE(good.create_producer(topic())) << "the certificate names localhost";
  (void)good.close();
  // 127.0.0.2 reaches the same loopback listener, but the certificate doesn't name it.
  auto bad = tls_client(verifying, "127.0.0.2").value();
  EXPECT_FALSE(bad.create_producer(topic()));
  (void)bad.close();
}

// Mutual TLS: the broker asks for a trusted client certificate, and the TLS provider
// takes its CN as the role that authorization checks.
class mutual_tls_client_test : public tls_client_test {
 protected:
  mutual_tls_client_test() {
    broker.tls.require_trusted_client_cert = true;
    broker.authentication_enabled = true;
    broker.authentication.providers = {"org.apache.pulsar.broker.authentication.AuthenticationProviderTls"};
    broker.authorization_enabled = true;
    broker.super_user_roles = {"app"};
  }
  client_config presenting(const tls::issued_certificate& cert) const {
    auto c = config;
    c.auth_plugin = "org.apache.pulsar.client.impl.auth.AuthenticationTls";
    c.auth_params = fmt::format("tlsCertFile:{},tlsKeyFile:{}", cert.certificate_file.string(), cert.key_file.string());
    return c;
  }
};

TEST_F(mutual_tls_client_test, the_client_certificates_cn_is_its_role) {
  auto c = tls_client(presenting(client_cert)).value();
  auto producer = c.create_producer(topic());
  EXPECT_TRUE(producer) << producer.error();
  (void)c.close();

  const auto other = ca->issue("other", "other", {}).value();
  auto stranger = tls_client(presenting(other)).value();
  auto refused = stranger.create_producer(topic());
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error(), client_errc::authorization_error) << "trusted, authenticated as 'other', not granted";
  (void)stranger.close();

  auto without = tls_client(config).value();
  EXPECT_FALSE(without.create_producer(topic())) << "no client certificate: the handshake fails";
  (void)without.close();
}

}  // namespace
}  // namespace magnetar::client_testing
