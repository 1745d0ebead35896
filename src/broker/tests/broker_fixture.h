// A standalone (broker, bookie, metadata store) in the test's process, on a fresh data
// directory and ephemeral ports, plus builders of the commands tests send.
#pragma once

#include "broker/standalone/standalone.h"
#include "broker/tests/raw_client.h"
#include "http/client.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace magnetar::broker::testing {

class broker_test : public ::testing::Test {
 protected:
  broker_test() {
    config.data_dir = dir / "data";
    config.broker_service_port = 0;
    config.web_service_port = 0;
    config.bind_address = "127.0.0.1";
    config.num_io_threads = 2;
  }
  void SetUp() override { start(); }
  void TearDown() override { server.reset(); }

  void start() {
    server = std::make_unique<standalone>(config);
    auto started = server->start();
    ASSERT_TRUE(started) << started.error();
  }
  void restart() {
    server.reset();
    start();
  }

  std::unique_ptr<raw_client> connected_client() {
    auto c = std::make_unique<raw_client>(server->broker_port());
    c->connect();
    return c;
  }

  // One admin REST call to the standalone's web port (status -1 when it failed to connect).
  magnetar::http::reply call(std::string_view method, const std::string& target, std::string_view body = {}) {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, method, target,
                                  body);
    EXPECT_TRUE(r) << r.error();
    return r ? std::move(r).value() : magnetar::http::reply{.status = -1};
  }

  static proto::BaseCommand producer_command(const std::string& topic, std::uint64_t producer_id,
                                             std::uint64_t request_id, const std::string& name = "") {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::PRODUCER);
    auto& p = *c.mutable_producer();
    p.set_topic(topic);
    p.set_producer_id(producer_id);
    p.set_request_id(request_id);
    if (!name.empty()) p.set_producer_name(name);
    return c;
  }

  static proto::BaseCommand with_mode(proto::BaseCommand producer, proto::ProducerAccessMode mode) {
    producer.mutable_producer()->set_producer_access_mode(mode);
    return producer;
  }

  static proto::BaseCommand close_producer_command(std::uint64_t producer_id, std::uint64_t request_id) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::CLOSE_PRODUCER);
    c.mutable_close_producer()->set_producer_id(producer_id);
    c.mutable_close_producer()->set_request_id(request_id);
    return c;
  }

  static proto::BaseCommand close_consumer_command(std::uint64_t consumer_id, std::uint64_t request_id) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::CLOSE_CONSUMER);
    c.mutable_close_consumer()->set_consumer_id(consumer_id);
    c.mutable_close_consumer()->set_request_id(request_id);
    return c;
  }

  static proto::BaseCommand send_command(std::uint64_t producer_id, std::uint64_t sequence_id) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::SEND);
    c.mutable_send()->set_producer_id(producer_id);
    c.mutable_send()->set_sequence_id(sequence_id);
    return c;
  }

  static proto::MessageMetadata metadata(const std::string& producer, std::uint64_t sequence_id) {
    proto::MessageMetadata m;
    m.set_producer_name(producer);
    m.set_sequence_id(sequence_id);
    m.set_publish_time(1'700'000'000'000 + sequence_id);
    return m;
  }

  static proto::BaseCommand subscribe_command(
      const std::string& topic, const std::string& subscription, std::uint64_t consumer_id, std::uint64_t request_id,
      proto::CommandSubscribe::SubType type = proto::CommandSubscribe::Exclusive,
      const std::string& consumer_name = "c") {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::SUBSCRIBE);
    auto& s = *c.mutable_subscribe();
    s.set_topic(topic);
    s.set_subscription(subscription);
    s.set_subtype(type);
    s.set_consumer_id(consumer_id);
    s.set_request_id(request_id);
    s.set_consumer_name(consumer_name);
    s.set_initialposition(proto::CommandSubscribe::Earliest);
    return c;
  }

  static proto::BaseCommand flow_command(std::uint64_t consumer_id, std::uint32_t permits) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::FLOW);
    c.mutable_flow()->set_consumer_id(consumer_id);
    c.mutable_flow()->set_messagepermits(permits);
    return c;
  }

  static proto::BaseCommand ack_command(std::uint64_t consumer_id, const proto::MessageIdData& id,
                                        proto::CommandAck::AckType type = proto::CommandAck::Individual) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::ACK);
    c.mutable_ack()->set_consumer_id(consumer_id);
    c.mutable_ack()->set_ack_type(type);
    *c.mutable_ack()->add_message_id() = id;
    return c;
  }

  // Returns once every command sent before on this connection was handled: a PING's
  // PONG comes after their answers (and tells that nothing else was sent meanwhile).
  static void sync(raw_client& client) {
    proto::BaseCommand ping;
    ping.set_type(proto::BaseCommand::PING);
    ping.mutable_ping();
    client.send(ping);
    client.expect(proto::BaseCommand::PONG);
  }

  // Creates a producer and publishes `count` messages "m0".."m<count-1>", each receipted.
  void publish(raw_client& client, const std::string& topic, int count, std::uint64_t producer_id = 1) {
    client.send(producer_command(topic, producer_id, 1000 + producer_id, "p" + std::to_string(producer_id)));
    client.expect(proto::BaseCommand::PRODUCER_SUCCESS);
    for (int i = 0; i < count; ++i) {
      client.send_payload(send_command(producer_id, i), metadata("p", i), "m" + std::to_string(i));
    }
    for (int i = 0; i < count; ++i) client.expect(proto::BaseCommand::SEND_RECEIPT);
  }

  io::temp_directory dir{"broker-test"};
  broker_config config;
  std::unique_ptr<standalone> server;
};

}  // namespace magnetar::broker::testing
