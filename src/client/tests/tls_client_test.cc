// The SDK over TLS against a standalone with brokerServicePortTls: pulsar+ssl:// with the
// CA trusted, refusals of an untrusted server and of a wrong host name, and mutual TLS
// where the client certificate's CN is the role (the TLS authentication provider).
#include "client/tests/client_test_fixture.h"
#include "http/client.h"
#include "tls/test_certificates.h"

#include <boost/asio/ip/tcp.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;

class tls_client_test : public client_test {
 protected:
  tls_client_test() {
    const std::filesystem::path certs = std::filesystem::path(dir.path()) / "certs";
    std::filesystem::create_directories(certs);
    ca.emplace(tls::certificate_authority::create(certs).value());
    server_cert = ca->issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
    const auto& server = server_cert;
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
  tls::issued_certificate server_cert, client_cert;
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

// A TLS-only broker: brokerServicePort and webServicePort off, pulsar+ssl:// and https://
// on, and everything it answers names its TLS URLs.
class tls_only_client_test : public tls_client_test {
 protected:
  tls_only_client_test() {
    broker.broker_service_port.reset();
    broker.web_service_port.reset();
    broker.web_service_port_tls = 0;
  }
  void SetUp() override { start_broker(); }  // no plaintext client: there is no pulsar:// port
  result<http::reply> https_get(const std::string& path) const {
    http::call_options options;
    options.tls = {.trust_certs_file = ca->certificate_file()};
    return http::call(http::url{.host = "127.0.0.1", .port = server->web_tls_port(), .prefix = {}, .tls = true}, "GET",
                      path, {}, options);
  }
};

TEST_F(tls_only_client_test, serves_pulsar_ssl_and_https_with_the_plaintext_ports_off) {
  EXPECT_EQ(server->broker_port(), 0);
  EXPECT_EQ(server->web_port(), 0);
  auto c = tls_client(config).value();
  auto consumer = c.subscribe(topic(), "sub");
  ASSERT_TRUE(consumer) << consumer.error();
  auto producer = c.create_producer(topic());
  ASSERT_TRUE(producer) << producer.error();
  ASSERT_TRUE(producer.value().send(text("over tls only")));
  auto got = consumer.value().receive(10s);
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got.value().payload(), "over tls only");
  (void)c.close();

  auto lookup = https_get("/lookup/v2/topic/persistent/public/default/x");
  ASSERT_TRUE(lookup) << lookup.error();
  ASSERT_EQ(lookup.value().status, 200) << lookup.value().body;
  const auto data = nlohmann::json::parse(lookup.value().body);
  EXPECT_EQ(data.value("brokerUrlTls", ""), tls_url());
  EXPECT_EQ(data.value("httpUrlTls", ""), fmt::format("https://127.0.0.1:{}", server->web_tls_port()));
  auto cluster = https_get("/admin/v2/clusters/standalone");
  ASSERT_TRUE(cluster) << cluster.error();
  const auto cluster_data = nlohmann::json::parse(cluster.value().body);
  EXPECT_EQ(cluster_data.value("brokerServiceUrlTls", ""), tls_url());
  EXPECT_EQ(cluster_data.value("serviceUrlTls", ""), fmt::format("https://127.0.0.1:{}", server->web_tls_port()));
}

// tlsCertRefreshCheckDurationSec: certificate files renewed in place reach new
// connections without a restart, and connections already open carry on.
class tls_reload_client_test : public tls_client_test {
 protected:
  tls_reload_client_test() { broker.tls_cert_refresh_check = 0s; }
};

TEST_F(tls_reload_client_test, a_renewed_certificate_reaches_new_connections_and_open_ones_carry_on) {
  auto before = tls_client(config).value();
  auto open_producer = before.create_producer(topic());
  ASSERT_TRUE(open_producer) << open_producer.error();

  const auto renewed_dir = std::filesystem::path(dir.path()) / "renewed";
  std::filesystem::create_directories(renewed_dir);
  auto next_ca = tls::certificate_authority::create(renewed_dir).value();
  const auto renewed = next_ca.issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
  auto trusting_next = config;
  trusting_next.tls_trust_certs_file_path = next_ca.certificate_file();
  {
    auto early = tls_client(trusting_next).value();
    EXPECT_FALSE(early.create_producer(topic())) << "not renewed yet: the old CA's certificate is served";
    (void)early.close();
  }
  const auto overwrite = std::filesystem::copy_options::overwrite_existing;
  std::filesystem::copy_file(renewed.certificate_file, server_cert.certificate_file, overwrite);
  std::filesystem::copy_file(renewed.key_file, server_cert.key_file, overwrite);

  auto after = tls_client(trusting_next).value();
  auto producer = after.create_producer(topic());
  EXPECT_TRUE(producer) << producer.error();
  EXPECT_TRUE(open_producer.value().send(text("still open")));
  (void)after.close();
  (void)before.close();
}

class tls_handshake_timeout_test : public tls_client_test {
 protected:
  tls_handshake_timeout_test() { broker.handshake_timeout = 1s; }
};

TEST_F(tls_handshake_timeout_test, a_client_that_never_completes_its_handshake_is_dropped) {
  asio::io_context context;
  asio::ip::tcp::socket silent(context);
  silent.connect({asio::ip::make_address("127.0.0.1"), server->broker_tls_port()});
  const struct timeval bound { 15, 0 };  // a server that never closes fails the test, not hangs it
  ::setsockopt(silent.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  const auto connected = std::chrono::steady_clock::now();
  boost::system::error_code ec;
  char byte;
  silent.read_some(asio::buffer(&byte, 1), ec);
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
  EXPECT_LT(std::chrono::steady_clock::now() - connected, 10s);
  auto c = tls_client(config).value();
  EXPECT_TRUE(c.create_producer(topic())) << "the broker serves others meanwhile";
  (void)c.close();
}

}  // namespace
}  // namespace magnetar::client_testing
