// http_server: requests over a real loopback socket, keep-alive, limits, clean stop.
#include "http/server.h"

#include "http/client.h"
#include "io/block_on.h"
#include "io/running_shards.h"

#include <gmock/gmock.h>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <future>
#include <stdexcept>
#include <thread>

namespace magnetar::http {
namespace {

namespace beast_http = boost::beast::http;
using tcp = asio::ip::tcp;
using ::testing::HasSubstr;

class http_server_test : public ::testing::Test {
 protected:
  void start(http_server::request_handler handler, http_server::options opts = {}) {
    opts.address = "127.0.0.1";
    opts.port = 0;
    server = std::make_unique<http_server>(shards[0], opts, std::move(handler));
    auto started = server->start();
    ASSERT_TRUE(started) << started.error();
  }
  void TearDown() override {
    if (server) io::block_on(shards[1], server->stop());
  }
  static http_server::request_handler echo() {
    return [](incoming_request r) -> awaitable<http_response> {
      co_return text_response(200, r.method + " " + r.target + " " + r.body);
    };
  }
  // A client connection that the test drives by hand (keep-alive, half-written requests).
  struct raw_connection {
    asio::io_context context;
    tcp::socket socket{context};
    boost::beast::flat_buffer buffer;

    explicit raw_connection(std::uint16_t port) { socket.connect({asio::ip::make_address("127.0.0.1"), port}); }
    void send(const std::string& method, const std::string& target, const std::string& body = {}) {
      beast_http::request<beast_http::string_body> request{beast_http::string_to_verb(method), target, 11};
      request.set(beast_http::field::host, "localhost");
      request.body() = body;
      request.prepare_payload();
      beast_http::write(socket, request);
    }
    beast_http::response<beast_http::string_body> receive() {
      beast_http::response<beast_http::string_body> response;
      beast_http::read(socket, buffer, response);
      return response;
    }
    // True when the server closed the connection.
    bool closed_by_peer() {
      boost::system::error_code ec;
      char byte;
      socket.read_some(asio::buffer(&byte, 1), ec);
      return ec == asio::error::eof || ec == asio::error::connection_reset;
    }
  };

  io::running_shards shards{2};
  std::unique_ptr<http_server> server;
};

TEST_F(http_server_test, ephemeral_port_is_reported) {
  start(echo());
  EXPECT_NE(server->port(), 0);
}

TEST_F(http_server_test, answers_a_request_with_the_handlers_response) {
  start(echo());
  auto r =
      magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, "PUT", "/x?y=1", "body");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
  EXPECT_EQ(r.value().body, "PUT /x?y=1 body");
}

TEST_F(http_server_test, keeps_the_connection_alive_between_requests) {
  start(echo());
  raw_connection c(server->port());
  c.send("GET", "/one");
  EXPECT_EQ(c.receive().body(), "GET /one ");
  c.send("GET", "/two");
  auto second = c.receive();
  EXPECT_EQ(second.body(), "GET /two ");
  EXPECT_TRUE(second.keep_alive());
}

TEST_F(http_server_test, body_over_the_limit_is_413) {
  start(echo(), {.max_body_bytes = 16});
  auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, "PUT", "/x",
                                std::string(100, 'a'));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 413);
  EXPECT_THAT(r.value().body, HasSubstr("\"reason\""));
}

TEST_F(http_server_test, header_over_the_limit_is_431) {
  start(echo(), {.max_header_bytes = 1024});
  raw_connection c(server->port());
  asio::write(c.socket, asio::buffer("GET /x HTTP/1.1\r\nHost: h\r\nX-Big: " + std::string(4096, 'a') + "\r\n\r\n"));
  EXPECT_EQ(c.receive().result_int(), 431u);
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(http_server_test, a_request_dribbled_slower_than_the_idle_timeout_is_cut) {
  // Slowloris: a byte now and then keeps a connection open only as long as the whole
  // request may take, not forever.
  start(echo(), {.idle_timeout = std::chrono::seconds(1)});
  raw_connection c(server->port());
  const struct timeval bound { 10, 0 };  // a hung server fails the test instead of hanging it
  ::setsockopt(c.socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
  asio::write(c.socket, asio::buffer(std::string("GET /x HTTP/1.1\r\nHost: h\r\n")));
  const auto sent = std::chrono::steady_clock::now();
  boost::system::error_code ec;
  for (int i = 0; i < 40 && !ec; ++i) {  // a header line every 100 ms: never a complete request
    asio::write(c.socket, asio::buffer(std::string("X: y\r\n")), ec);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(c.closed_by_peer());
  EXPECT_LT(std::chrono::steady_clock::now() - sent, std::chrono::seconds(4)) << "cut at the idle timeout, not later";
}

TEST_F(http_server_test, malformed_request_is_400_and_the_server_keeps_serving) {
  start(echo());
  {
    raw_connection c(server->port());
    asio::write(c.socket, asio::buffer(std::string("NOT HTTP AT ALL\r\n\r\n")));
    EXPECT_EQ(c.receive().result_int(), 400u);
  }
  auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, "GET", "/after");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 200);
}

TEST_F(http_server_test, a_handler_that_throws_gets_500) {
  start([](incoming_request) -> awaitable<http_response> {
    throw std::runtime_error("boom");
    co_return no_content();
  });
  auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->port()}, "GET", "/x");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().status, 500);
  EXPECT_THAT(r.value().body, HasSubstr("boom"));
}

TEST_F(http_server_test, taken_port_fails_to_start) {
  start(echo());
  http_server second(shards[0], {.address = "127.0.0.1", .port = server->port()}, echo());
  auto started = second.start();
  ASSERT_FALSE(started);
  EXPECT_THAT(started.error().detail(), HasSubstr("127.0.0.1"));
}

TEST_F(http_server_test, stop_closes_idle_keep_alive_connections) {
  start(echo());
  raw_connection c(server->port());
  c.send("GET", "/one");
  c.receive();
  io::block_on(shards[1], server->stop());
  EXPECT_TRUE(c.closed_by_peer());
}

TEST_F(http_server_test, stop_waits_for_the_request_in_flight) {
  auto hold = std::make_shared<asio::steady_timer>(shards[0].executor(), std::chrono::hours(1));
  std::promise<void> entered;
  start([hold, &entered](incoming_request) -> awaitable<http_response> {
    entered.set_value();
    boost::system::error_code ec;
    co_await hold->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    co_return text_response(200, "finished");
  });
  auto response = std::async(std::launch::async, [port = server->port()] {
    return magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = port}, "GET", "/slow");
  });
  entered.get_future().wait();
  auto stopped = std::async(std::launch::async, [this] { io::block_on(shards[1], server->stop()); });
  // The handler is parked on the timer, so stop cannot have finished; release it.
  EXPECT_NE(stopped.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  asio::post(shards[0].executor(), [hold] { hold->cancel(); });
  auto r = response.get();
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().body, "finished");
  stopped.get();
}

TEST_F(http_server_test, refuses_connections_after_stop) {
  start(echo());
  auto port = server->port();
  io::block_on(shards[1], server->stop());
  EXPECT_FALSE(magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = port}, "GET", "/x"));
}

}  // namespace
}  // namespace magnetar::http
