// Producers and consumers across broker restarts, with the client's real reconnects.
#include "client/tests/client_test_fixture.h"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <future>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class reconnect : public client_test {};

TEST_F(reconnect, a_producer_goes_on_after_the_broker_restarts) {
  producer_config pc;
  pc.batching_enabled = false;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("before")));
  const auto name = p.value().producer_name();
  restart_broker();
  auto after = p.value().send(text("after"));
  ASSERT_TRUE(after) << after.error();
  EXPECT_EQ(p.value().producer_name(), name);
  consumer_config cc;
  cc.position = initial_position::earliest;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  auto first = c.value().receive(10s);
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first.value().payload(), "before");
  auto second = c.value().receive(10s);
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(second.value().payload(), "after");
}

TEST_F(reconnect, messages_sent_while_the_broker_is_down_are_sent_when_it_is_back) {
  producer_config pc;
  pc.batching_enabled = false;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  stop_broker();
  ASSERT_TRUE(eventually([&] { return !p.value().is_connected(); }));
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 3; ++i) sent.push_back(p.value().send_future(text(std::to_string(i))));
  start_broker();
  message_id previous = message_id::earliest();
  for (auto& f : sent) {
    auto id = f.get();
    ASSERT_TRUE(id) << id.error();
    EXPECT_LT(previous, id.value());
    previous = id.value();
  }
}

TEST_F(reconnect, a_consumer_goes_on_after_the_broker_restarts) {
  auto c = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(c) << c.error();
  restart_broker();
  ASSERT_TRUE(eventually([&] { return c.value().is_connected(); }));
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("after")));
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "after");
}

TEST_F(reconnect, a_reader_goes_on_after_the_last_message_read) {
  producer_config pc;
  pc.batching_enabled = false;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  reader_config rc;
  rc.start = message_id::earliest();
  auto r = sdk->create_reader(topic(), rc);
  ASSERT_TRUE(r) << r.error();
  auto m = r.value().read_next(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "0");
  restart_broker();
  for (int i = 1; i < 4; ++i) {
    auto next = r.value().read_next(20s);
    ASSERT_TRUE(next) << next.error();
    EXPECT_EQ(next.value().payload(), std::to_string(i));
  }
}

TEST_F(reconnect, a_full_pending_queue_refuses_sends) {
  producer_config pc;
  pc.batching_enabled = false;
  pc.max_pending_messages = 1;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  stop_broker();  // nothing is receipted from here on
  auto first = p.value().send_future(text("1"));
  auto second = p.value().send(text("2"));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error(), client_errc::producer_queue_is_full);
}

TEST_F(reconnect, a_full_pending_queue_blocks_sends_until_there_is_room) {
  producer_config pc;
  pc.batching_enabled = false;
  pc.max_pending_messages = 1;
  pc.block_if_queue_full = true;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  stop_broker();
  auto first = p.value().send_future(text("1"));
  auto second = std::async(std::launch::async, [&] { return p.value().send(text("2")); });
  start_broker();
  auto a = first.get();
  auto b = second.get();
  ASSERT_TRUE(a) << a.error();
  ASSERT_TRUE(b) << b.error();
  EXPECT_LT(a.value(), b.value());
}

TEST_F(reconnect, sends_time_out_while_the_broker_is_away) {
  producer_config pc;
  pc.batching_enabled = false;
  pc.send_timeout = 200ms;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  stop_broker();
  auto r = p.value().send(text("lost"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::timeout);
}

TEST_F(reconnect, a_client_without_a_broker_fails_to_connect) {
  stop_broker();
  client_config cc = config;
  cc.operation_timeout = 2s;
  cc.connection_timeout = 2s;
  auto c = client::create(service_url(), cc);
  ASSERT_TRUE(c) << c.error();
  auto p = c.value().create_producer(topic());
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::connect_error);
}

// A service URL's dead host costs a refused connect, not a back-off: with a back-off
// longer than the operation timeout, only trying the next host at once succeeds.
TEST_F(reconnect, a_dead_host_in_the_service_url_is_skipped_at_once) {
  std::uint16_t dead_port = 0;
  {
    boost::asio::io_context context;
    boost::asio::ip::tcp::acceptor closed(context, {boost::asio::ip::make_address("127.0.0.1"), 0});
    dead_port = closed.local_endpoint().port();
  }  // closed: connects are refused
  client_config cc = config;
  cc.initial_backoff = 60s;
  cc.max_backoff = 60s;
  cc.operation_timeout = 5s;
  auto c =
      client::create(fmt::format("pulsar://127.0.0.1:{},127.0.0.1:{}", dead_port, *broker.broker_service_port), cc);
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 2; ++i) {  // the dead host first, then second, in the rotation
    auto p = c.value().create_producer(topic() + std::to_string(i));
    ASSERT_TRUE(p) << p.error();
    EXPECT_TRUE(p.value().send(text("through the live host")));
  }
}

}  // namespace
}  // namespace magnetar::client_testing
