// server_context_source: a renewed certificate is served to the next connection without a
// restart, not before the refresh interval, and a broken renewal keeps the last good one.
#include "tls/server_context_source.h"

#include "io/temp_directory.h"
#include "tls/errc.h"
#include "tls/test_certificates.h"
#include "tls/tests/loopback_handshake.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace magnetar::tls {
namespace {

namespace fs = std::filesystem;

class server_context_source_test : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::create_directories(root / "old");
    fs::create_directories(root / "new");
    old_ca.emplace(certificate_authority::create(root / "old").value());
    new_ca.emplace(certificate_authority::create(root / "new").value());
    auto first = old_ca->issue("server", "localhost", {"127.0.0.1"}).value();
    fs::copy_file(first.certificate_file, served.certificate_file);
    fs::copy_file(first.key_file, served.key_file);
  }
  // What a renewal does: the new CA's certificate and key written over the served files.
  void renew() {
    auto next = new_ca->issue("server", "localhost", {"127.0.0.1"}).value();
    fs::copy_file(next.certificate_file, served.certificate_file, fs::copy_options::overwrite_existing);
    fs::copy_file(next.key_file, served.key_file, fs::copy_options::overwrite_existing);
  }
  bool new_ca_client_connects(server_context_source& source) {
    return loopback_handshake::run(source.current(), {.trust_certs_file = new_ca->certificate_file()}).client_ok;
  }

  io::temp_directory dir{"tls-reload-test"};
  fs::path root{dir.path()};
  std::optional<certificate_authority> old_ca, new_ca;
  server_settings served{.certificate_file = (root / "served.cert.pem").string(),
                         .key_file = (root / "served.key.pem").string()};
};

TEST_F(server_context_source_test, a_renewed_certificate_is_served_to_the_next_connection) {
  auto source = server_context_source::create(served, std::chrono::seconds(0)).value();
  EXPECT_FALSE(new_ca_client_connects(*source));
  renew();
  EXPECT_TRUE(new_ca_client_connects(*source));
  EXPECT_EQ(source->reloads(), 1u);
}

TEST_F(server_context_source_test, files_are_not_checked_again_before_the_refresh_interval) {
  auto source = server_context_source::create(served, std::chrono::seconds(3600)).value();
  const auto first = source->current();
  renew();
  EXPECT_EQ(source->current(), first);
  EXPECT_FALSE(new_ca_client_connects(*source));
  EXPECT_EQ(source->reloads(), 0u);
}

TEST_F(server_context_source_test, a_broken_renewal_keeps_the_last_good_context_until_it_is_mended) {
  auto source = server_context_source::create(served, std::chrono::seconds(0)).value();
  const auto first = source->current();
  std::ofstream(served.key_file, std::ios::trunc) << "half a key";
  EXPECT_EQ(source->current(), first);
  EXPECT_TRUE(loopback_handshake::run(source->current(), {.trust_certs_file = old_ca->certificate_file()}).client_ok);
  renew();
  EXPECT_TRUE(new_ca_client_connects(*source));
  EXPECT_EQ(source->reloads(), 1u);
}

TEST_F(server_context_source_test, bad_settings_fail_at_creation) {
  served.certificate_file = (root / "missing.pem").string();
  auto made = server_context_source::create(served, std::chrono::seconds(0));
  ASSERT_FALSE(made);
  EXPECT_EQ(made.error(), errc::bad_settings);
}

}  // namespace
}  // namespace magnetar::tls
