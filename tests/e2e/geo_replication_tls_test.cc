// End to end: geo-replication secured as Pulsar users secure it. Every broker serves
// pulsar+ssl:// and https://, takes only token-authenticated clients and authorizes them
// (authenticationEnabled, authorizationEnabled), and reaches the other cluster's brokers
// over TLS with a token of its own (brokerClientTlsEnabled,
// brokerClientAuthenticationPlugin/Parameters). The clusters are registered with a
// plaintext brokerServiceUrl that leads nowhere, so what arrives in the other cluster
// can only have crossed over TLS.
#include "auth/jwt_token.h"
#include "auth/key_generation.h"
#include "auth/key_value.h"
#include "tests/e2e/geo_fixture.h"
#include "tls/test_certificates.h"

namespace magnetar::e2e {
namespace {

using namespace std::chrono_literals;

class geo_replication_tls : public geo_replication {
 protected:
  void SetUp() override {
    const auto certs = std::filesystem::path(dir.path()) / "certs";
    std::filesystem::create_directories(certs);
    ca.emplace(tls::certificate_authority::create(certs).value());
    server = ca->issue("broker", "localhost", {"localhost", "127.0.0.1"}).value();
    secret = auth::generate_secret_key("HS256").value();
    geo_replication::SetUp();
  }

  std::string token(std::string_view role) const { return auth::create_token("HS256", secret, role, {}).value(); }

  std::string broker_extra_config() override {
    return fmt::format(
        "brokerServicePortTls=0\nwebServicePortTls=0\ntlsCertificateFilePath={}\ntlsKeyFilePath={}\n"
        "brokerClientTlsEnabled=true\nbrokerClientTrustCertsFilePath={}\n"
        "authenticationEnabled=true\nauthorizationEnabled=true\n"
        "authenticationProviders=org.apache.pulsar.broker.authentication.AuthenticationProviderToken\n"
        "tokenSecretKey=data:;base64,{}\nsuperUserRoles=admin,broker\n"
        "brokerClientAuthenticationPlugin=org.apache.pulsar.client.impl.auth.AuthenticationToken\n"
        "brokerClientAuthenticationParameters=token:{}\n",
        server.certificate_file.string(), server.key_file.string(), ca->certificate_file().string(),
        auth::base64_encoded(secret), token("broker"));
  }
  json cluster_data(const region& r) override {
    return json{{"serviceUrl", r.brokers[0]->web_url()},
                {"serviceUrlTls", r.brokers[0]->web_url_tls()},
                {"brokerServiceUrl", "pulsar://127.0.0.1:1"},
                {"brokerServiceUrlTls", r.service_url(true)}};
  }
  std::string client_url(const region& r) override { return r.service_url(true); }
  client_config client_settings() override {
    client_config config;
    config.tls_trust_certs_file_path = ca->certificate_file().string();
    config.tls_validate_hostname = true;
    config.auth_params = "token:" + token("app");
    config.operation_timeout = 30s;
    return config;
  }
  std::string admin_url(const region& r) override { return r.any_broker().web_url_tls(); }
  http::call_options admin_options() override {
    http::call_options options;
    options.authorization = "Bearer " + token("admin");
    options.tls = {.trust_certs_file = ca->certificate_file(), .hostname_verification = true};
    return options;
  }

  std::optional<tls::certificate_authority> ca;
  tls::issued_certificate server;
  std::string secret;
};

TEST_F(geo_replication_tls, both_ways_over_tls_with_tokens_every_message_arrives_once_in_each_cluster) {
  // The application's role may produce and consume in the namespace (a policy of the
  // shared configuration store: granted once for both clusters).
  admin(east, "POST", "/admin/v2/namespaces/public/default/permissions/app", json{"produce", "consume"});
  const auto topic = "persistent://public/default/secured";
  ASSERT_NO_FATAL_FAILURE(produce(east, topic, "east-", 300));
  ASSERT_NO_FATAL_FAILURE(produce(west, topic, "west-", 300));
  expect_both_ways_in_each_cluster(topic, 300);
  // The sending side's stats show a connected replicator, read over https with a token.
  const auto out = admin(east, "GET", "/admin/v2/persistent/public/default/secured/stats");
  ASSERT_TRUE(out.contains("replication") && out["replication"].contains("west")) << out;
  EXPECT_EQ(out["replication"]["west"]["connected"], true) << out;
  EXPECT_EQ(out["replication"]["west"]["replicationBacklog"], 0) << out;
}

}  // namespace
}  // namespace magnetar::e2e
