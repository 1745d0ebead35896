// The ledger client and bookies over TLS (upstream's bookkeeperTLSClientAuthentication
// and BookKeeper's tlsProviderFactoryClass): a ledger written and read back through
// TLS connections, a bookie requiring client certificates refusing plaintext clients and
// clients without a certificate, a client refusing a bookie it doesn't trust, and a
// bookie without the requirement taking both kinds.
#include "bookie/bookie_server.h"
#include "io/temp_directory.h"
#include "ledger/remote_bookie_client.h"
#include "ledger/tests/ledger_test_cluster.h"
#include "tls/test_certificates.h"

#include <gmock/gmock.h>

#include <filesystem>

#include <sys/socket.h>

namespace magnetar::ledger::testing {
namespace {

using ::testing::HasSubstr;

class remote_bookie_tls : public ::testing::Test {
 protected:
  void SetUp() override {
    ca.emplace(tls::certificate_authority::create(root).value());
    const auto server = ca->issue("bookie", "bookie", {"127.0.0.1"}).value();
    broker_cert = ca->issue("broker", "broker", {}).value();
    server_tls = {.certificate_file = server.certificate_file,
                  .key_file = server.key_file,
                  .trust_certs_file = ca->certificate_file(),
                  .require_trusted_client_cert = true};
  }
  void TearDown() override {
    client.reset();
    for (auto& s : servers) s->stop();
  }
  // Three bookies behind TLS servers; the test's client dials them with `to_bookies`.
  void start(bool require_tls, std::optional<tls::client_settings> to_bookies) {
    server_tls.require_trusted_client_cert = require_tls;
    for (int i = 0; i < 3; ++i) {
      bookie::bookie_server_options options{.bind_address = "127.0.0.1", .port = 0};
      options.tls = tls::server_context_source::create(server_tls, std::chrono::seconds(300)).value();
      options.require_tls = require_tls;
      options.tls_handshake_timeout = std::chrono::seconds(2);
      servers.push_back(std::make_unique<bookie::bookie_server>(cluster.bookie_at(i), cluster.shards.set(), options));
      ASSERT_TRUE(servers.back()->start());
    }
    client = client_of(directory, to_bookies);
  }
  // A ledger client whose bookie connections (through `bookies`) use `to_bookies`.
  std::unique_ptr<ledger_client> client_of(static_bookie_directory& bookies,
                                           std::optional<tls::client_settings> to_bookies) {
    for (const auto& server : servers) {
      const auto address = fmt::format("127.0.0.1:{}", server->port());
      bookies.add(address,
                  std::make_unique<remote_bookie_client>(
                      cluster.shards[1].executor(), remote_bookie_options{.address = address,
                                                                          .timeout = std::chrono::seconds(5),
                                                                          .connect_timeout = std::chrono::seconds(5),
                                                                          .tls = to_bookies}));
    }
    return std::make_unique<ledger_client>(*cluster.store, bookies, cluster.clock);
  }
  tls::client_settings presenting_the_broker_certificate() const {
    return {.trust_certs_file = ca->certificate_file(),
            .hostname_verification = true,
            .certificate_file = broker_cert.certificate_file,
            .key_file = broker_cert.key_file};
  }
  // A closed ledger of three entries at 3/3/2; the failure of the first step that fails.
  result<ledger_id> write() {
    auto writer = cluster.run(client->create({.ensemble_size = 3, .write_quorum = 3, .ack_quorum = 2}));
    if (!writer) return fail(writer.error());
    for (int i = 0; i < 3; ++i) {
      auto added = cluster.run(writer.value()->add(bytes_of(fmt::format("secret-{}", i))));
      if (!added) return fail(added.error());
    }
    if (auto closed = cluster.run(writer.value()->close()); !closed) return fail(closed.error());
    return writer.value()->id();
  }
  // The entries of `ledger` as `reader_client` reads them.
  result<std::vector<std::string>> read(ledger_client& reader_client, ledger_id ledger) {
    auto reader = cluster.run(reader_client.open(ledger, false));
    if (!reader) return fail(reader.error());
    auto entries = cluster.run(reader.value()->read(entry_id(0), reader.value()->last_entry()));
    if (!entries) return fail(entries.error());
    std::vector<std::string> out;
    for (const auto& e : entries.value()) out.push_back(text_of(e));
    return out;
  }
  result<std::vector<std::string>> write_and_read() {
    MAGNETAR_TRY(ledger, write());
    return read(*client, ledger);
  }

  io::temp_directory dir{"bookie-tls-test"};
  std::filesystem::path root{dir.path()};
  std::optional<tls::certificate_authority> ca;
  tls::issued_certificate broker_cert;
  tls::server_settings server_tls;
  test_cluster cluster{3};
  static_bookie_directory directory;
  std::vector<std::unique_ptr<bookie::bookie_server>> servers;
  std::unique_ptr<ledger_client> client;
};

TEST_F(remote_bookie_tls, a_ledger_is_written_and_read_over_mutual_tls) {
  start(true, presenting_the_broker_certificate());
  auto got = write_and_read();
  ASSERT_TRUE(got) << got.error();
  EXPECT_THAT(got.value(), ::testing::ElementsAre("secret-0", "secret-1", "secret-2"));
}

TEST_F(remote_bookie_tls, a_bookie_requiring_tls_refuses_a_plaintext_client) {
  start(true, std::nullopt);
  auto got = write_and_read();
  ASSERT_FALSE(got);
}

TEST_F(remote_bookie_tls, a_bookie_requiring_client_certificates_refuses_a_client_without_one) {
  auto anonymous = presenting_the_broker_certificate();
  anonymous.certificate_file.clear();
  anonymous.key_file.clear();
  start(true, anonymous);
  EXPECT_FALSE(write_and_read());
}

TEST_F(remote_bookie_tls, a_client_refuses_a_bookie_its_ca_did_not_sign) {
  std::filesystem::create_directories(root / "other");
  auto other = tls::certificate_authority::create(root / "other").value();
  auto wrong = presenting_the_broker_certificate();
  wrong.trust_certs_file = other.certificate_file();
  start(true, wrong);
  remote_bookie_client direct(cluster.shards[1].executor(),
                              {.address = fmt::format("127.0.0.1:{}", servers[0]->port()), .tls = wrong});
  auto read = cluster.run(direct.read_last_add_confirmed(ledger_id(1)));
  ASSERT_FALSE(read);
  EXPECT_THAT(read.error().detail(), HasSubstr("TLS: handshake"));
}

TEST_F(remote_bookie_tls, without_the_requirement_a_bookie_takes_tls_and_plaintext_clients) {
  start(false, presenting_the_broker_certificate());
  auto ledger = write();
  ASSERT_TRUE(ledger) << ledger.error();
  static_bookie_directory plaintext_bookies;
  auto plaintext = client_of(plaintext_bookies, std::nullopt);
  auto got = read(*plaintext, ledger.value());
  ASSERT_TRUE(got) << got.error();
  EXPECT_THAT(got.value(), ::testing::ElementsAre("secret-0", "secret-1", "secret-2"));
}

TEST_F(remote_bookie_tls, a_client_silent_past_the_handshake_timeout_is_dropped) {
  start(true, presenting_the_broker_certificate());
  asio::io_context io;
  asio::ip::tcp::socket silent(io);
  silent.connect({asio::ip::make_address("127.0.0.1"), static_cast<std::uint16_t>(servers[0]->port())});
  const timeval bound{.tv_sec = 30, .tv_usec = 0};  // the test fails rather than hangs
  ASSERT_EQ(setsockopt(silent.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound), 0);
  char byte = 0;
  boost::system::error_code ec;
  silent.read_some(asio::buffer(&byte, 1), ec);
  EXPECT_EQ(ec, asio::error::eof) << ec.message();
  // The bookie goes on serving the others.
  auto got = write_and_read();
  ASSERT_TRUE(got) << got.error();
}

}  // namespace
}  // namespace magnetar::ledger::testing
