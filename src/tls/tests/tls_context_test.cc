// TLS contexts over a real loopback socket: handshakes that should succeed and those that
// must not (an untrusted server, a wrong host name, a missing client certificate).
#include "tls/tls_context.h"

#include "io/net.h"
#include "io/temp_directory.h"
#include "tls/errc.h"
#include "tls/test_certificates.h"
#include "tls/tests/loopback_handshake.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace magnetar::tls {
namespace {

class tls_context_test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto made = certificate_authority::create(std::filesystem::path(dir.path()));
    ASSERT_TRUE(made) << made.error();
    ca.emplace(std::move(made).value());
    server_cert = ca->issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
    client_cert = ca->issue("app", "app", {}).value();
  }
  server_settings server() const {
    return {.certificate_file = server_cert.certificate_file, .key_file = server_cert.key_file};
  }
  client_settings trusting() const { return {.trust_certs_file = ca->certificate_file()}; }

  loopback_handshake::outcome handshake(const server_settings& s, const client_settings& c,
                                        const std::string& host = "127.0.0.1") {
    return loopback_handshake::run(make_server_context(s).value(), c, host);
  }

  io::temp_directory dir{"tls-test"};
  std::optional<certificate_authority> ca;
  issued_certificate server_cert, client_cert;
};

TEST_F(tls_context_test, a_client_trusting_the_ca_connects) {
  auto r = handshake(server(), trusting());
  EXPECT_TRUE(r.client_ok);
  EXPECT_TRUE(r.server_ok);
  EXPECT_FALSE(r.client_name_seen_by_server) << "no client certificate was sent";
}

TEST_F(tls_context_test, a_client_that_does_not_trust_the_server_refuses_it_unless_insecure) {
  const auto elsewhere = std::filesystem::path(dir.path()) / "other";
  std::filesystem::create_directories(elsewhere);
  auto other = certificate_authority::create(elsewhere).value();  // another CA's trust
  client_settings wrong{.trust_certs_file = other.certificate_file()};
  EXPECT_FALSE(handshake(server(), wrong).client_ok);
  wrong.allow_insecure_connection = true;
  EXPECT_TRUE(handshake(server(), wrong).client_ok);
}

TEST_F(tls_context_test, hostname_verification_checks_the_name_dialled) {
  auto c = trusting();
  c.hostname_verification = true;
  EXPECT_TRUE(handshake(server(), c, "127.0.0.1").client_ok);
  EXPECT_TRUE(handshake(server(), c, "localhost").client_ok);
  EXPECT_FALSE(handshake(server(), c, "broker.example").client_ok);
  c.hostname_verification = false;
  EXPECT_TRUE(handshake(server(), c, "broker.example").client_ok);
}

TEST_F(tls_context_test, mutual_tls_names_the_client_and_refuses_a_client_without_a_certificate) {
  auto s = server();
  s.trust_certs_file = ca->certificate_file();
  s.require_trusted_client_cert = true;
  auto c = trusting();
  EXPECT_FALSE(handshake(s, c).server_ok);
  c.certificate_file = client_cert.certificate_file;
  c.key_file = client_cert.key_file;
  auto r = handshake(s, c);
  EXPECT_TRUE(r.server_ok);
  EXPECT_EQ(r.client_name_seen_by_server, "app");
}

TEST_F(tls_context_test, protocols_can_be_limited_to_tls_1_3) {
  auto s = server();
  s.protocols = {"TLSv1.3"};
  EXPECT_TRUE(handshake(s, trusting()).server_ok);
  s.protocols = {"SSLv3"};
  auto bad = make_server_context(s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().detail().find("'SSLv3'"), std::string::npos);
}

TEST_F(tls_context_test, unreadable_or_mismatched_files_name_themselves) {
  auto s = server();
  s.key_file = "/nonexistent/key.pem";
  auto missing = make_server_context(s);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), errc::bad_settings);
  EXPECT_NE(missing.error().detail().find("/nonexistent/key.pem"), std::string::npos);
  s.key_file = client_cert.key_file;  // another certificate's key
  auto mismatched = make_server_context(s);
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().detail().find(client_cert.key_file.string()), std::string::npos) << mismatched.error();
}

}  // namespace
}  // namespace magnetar::tls
