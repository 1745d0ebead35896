// loopback_handshake: one TLS handshake over a real loopback socket between a server
// context and a client configured with client_settings, for the tls tests.
#pragma once

#include "tls/tls_context.h"

#include <gtest/gtest.h>
#include <boost/asio/ip/tcp.hpp>

#include <optional>
#include <string>
#include <thread>

namespace magnetar::tls::loopback_handshake {

struct outcome {
  bool client_ok = false;
  bool server_ok = false;
  std::optional<std::string> client_name_seen_by_server;
};

// The client dials `host` (127.0.0.1 always answers; the name matters to SNI and
// hostname verification).
inline outcome run(const std::shared_ptr<ssl::context>& server_context, const client_settings& c,
                   const std::string& host = "127.0.0.1") {
  using tcp = asio::ip::tcp;
  asio::io_context io;
  tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  auto client_context = make_client_context(c).value();
  outcome out;
  std::thread server_side([&] {
    ssl::stream<tcp::socket> stream(acceptor.accept(), *server_context);
    boost::system::error_code ec;
    stream.handshake(ssl::stream_base::server, ec);
    out.server_ok = !ec;
    if (!ec) out.client_name_seen_by_server = peer_common_name(stream.native_handle());
    if (!ec) stream.shutdown(ec);
  });
  ssl::stream<tcp::socket> stream(io, *client_context);
  stream.next_layer().connect(acceptor.local_endpoint());
  EXPECT_TRUE(prepare_client(stream.native_handle(), c, host));
  boost::system::error_code ec;
  stream.handshake(ssl::stream_base::client, ec);
  out.client_ok = !ec;
  if (ec)
    stream.next_layer().close();  // the server's handshake then fails too
  else
    stream.shutdown(ec);
  server_side.join();
  return out;
}

}  // namespace magnetar::tls::loopback_handshake
