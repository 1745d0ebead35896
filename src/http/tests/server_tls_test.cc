// http_server over TLS (webServicePortTls) and the client's https:// calls: a request
// answered over a verified handshake, an untrusted server refused, and clients that never
// finish a handshake dropped at its timeout.
#include "http/client.h"
#include "http/server.h"
#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "tls/test_certificates.h"

#include <gmock/gmock.h>
#include <boost/asio/ip/tcp.hpp>

#include <filesystem>
#include <thread>

namespace magnetar::http {
namespace {

using tcp = asio::ip::tcp;
using ::testing::HasSubstr;

class http_server_tls_test : public ::testing::Test {
 protected:
  void SetUp() override {
    ca.emplace(tls::certificate_authority::create(root).value());
    auto issued = ca->issue("server", "localhost", {"localhost", "127.0.0.1"}).value();
    server_tls = {.certificate_file = issued.certificate_file, .key_file = issued.key_file};
  }
  void start(std::chrono::seconds handshake_timeout = std::chrono::seconds(10)) {
    http_server::options opts{.address = "127.0.0.1", .port = 0};
    opts.tls = tls::server_context_source::create(server_tls, std::chrono::seconds(300)).value();
    opts.handshake_timeout = handshake_timeout;
    server = std::make_unique<http_server>(shards[0], opts, [](incoming_request r) -> awaitable<http_response> {
      co_return text_response(200, fmt::format("{} {} secure={}", r.method, r.target, r.secure));
    });
    auto started = server->start();
    ASSERT_TRUE(started) << started.error();
  }
  void TearDown() override {
    if (server) io::block_on(shards[1], server->stop());
  }
  url https() const { return url{.host = "127.0.0.1", .port = server->port(), .prefix = {}, .tls = true}; }
  // A plain TCP connection to the TLS port, with reads bounded so that a server that
  // never closes fails the test instead of hanging it.
  tcp::socket raw_connection(asio::io_context& context) const {
    tcp::socket socket(context);
    socket.connect({asio::ip::make_address("127.0.0.1"), server->port()});
    const struct timeval bound { 10, 0 };
    ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    return socket;
  }
  static bool closed_by_peer(tcp::socket& socket) {
    boost::system::error_code ec;
    char bytes[512];
    while (!ec) socket.read_some(asio::buffer(bytes), ec);  // whatever TLS alert came first
    return ec == asio::error::eof || ec == asio::error::connection_reset;
  }

  io::temp_directory dir{"http-tls-test"};
  std::filesystem::path root{dir.path()};
  std::optional<tls::certificate_authority> ca;
  tls::server_settings server_tls;
  io::running_shards shards{2};
  std::unique_ptr<http_server> server;
};

TEST_F(http_server_tls_test, an_https_call_trusting_the_ca_is_answered) {
  start();
  call_options options;
  options.tls = {.trust_certs_file = ca->certificate_file(), .hostname_verification = true};
  auto r = call(https(), "GET", "/admin/v2/clusters", {}, options);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
  EXPECT_EQ(r.value().body, "GET /admin/v2/clusters secure=true");
}

TEST_F(http_server_tls_test, a_client_that_does_not_trust_the_server_fails_its_handshake) {
  start();
  std::filesystem::create_directories(root / "other");
  auto other = tls::certificate_authority::create(root / "other").value();
  call_options options;
  options.tls = {.trust_certs_file = other.certificate_file()};
  auto r = call(https(), "GET", "/x", {}, options);
  ASSERT_FALSE(r);
  EXPECT_THAT(r.error().detail(), HasSubstr("cannot complete a TLS handshake with https://127.0.0.1:"));
}

TEST_F(http_server_tls_test, a_client_that_never_starts_its_handshake_is_dropped_at_the_timeout) {
  start(std::chrono::seconds(1));
  asio::io_context context;
  auto silent = raw_connection(context);
  const auto connected = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_by_peer(silent));
  EXPECT_LT(std::chrono::steady_clock::now() - connected, std::chrono::seconds(5));
  // The server still serves others.
  call_options options;
  options.tls = {.trust_certs_file = ca->certificate_file()};
  auto r = call(https(), "GET", "/after", {}, options);
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
}

TEST_F(http_server_tls_test, plaintext_http_on_the_tls_port_gets_no_answer) {
  start();
  asio::io_context context;
  auto plain = raw_connection(context);
  asio::write(plain, asio::buffer(std::string("GET /admin/v2/clusters HTTP/1.1\r\nHost: h\r\n\r\n")));
  std::string seen;
  boost::system::error_code ec;
  char bytes[512];
  while (!ec) {
    const auto n = plain.read_some(asio::buffer(bytes), ec);
    seen.append(bytes, n);
  }
  EXPECT_EQ(seen.find("HTTP/1.1 200"), std::string::npos) << "a plaintext request must not be served";
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
}

}  // namespace
}  // namespace magnetar::http
