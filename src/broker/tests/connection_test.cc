// Raw-frame tests of the connection: handshake, keep-alive, lookups, bad input.
#include "broker/tests/broker_fixture.h"
#include "wire/big_endian.h"

namespace magnetar::broker::testing {
namespace {

class connection_test : public broker_test {};

TEST_F(connection_test, ConnectAnswersConnectedWithProtocolVersionAndMaxMessageSize) {
  raw_client client(server->broker_port());
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CONNECT);
  command.mutable_connect()->set_client_version("raw-test");
  command.mutable_connect()->set_protocol_version(21);
  client.send(command);
  auto reply = client.expect(proto::BaseCommand::CONNECTED);
  EXPECT_EQ(reply.command.connected().protocol_version(), 21);
  EXPECT_EQ(reply.command.connected().max_message_size(), static_cast<int>(config.max_message_size));
  EXPECT_FALSE(reply.command.connected().server_version().empty());
}

TEST_F(connection_test, NewerProtocolVersionIsAnsweredWithOurs) {
  raw_client client(server->broker_port());
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CONNECT);
  command.mutable_connect()->set_client_version("from-the-future");
  command.mutable_connect()->set_protocol_version(99);
  client.send(command);
  EXPECT_EQ(client.expect(proto::BaseCommand::CONNECTED).command.connected().protocol_version(), 21);
}

TEST_F(connection_test, CommandBeforeConnectClosesTheConnection) {
  raw_client client(server->broker_port());
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  client.send(ping);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(connection_test, ClientWithoutConnectIsClosedAtTheHandshakeTimeout) {
  server.reset();
  config.handshake_timeout = std::chrono::seconds(1);
  start();
  raw_client silent(server->broker_port());
  auto encoded = wire::encode_command([] {
    proto::BaseCommand connect;
    connect.set_type(proto::BaseCommand::CONNECT);
    connect.mutable_connect()->set_client_version("slow");
    connect.mutable_connect()->set_protocol_version(21);
    return connect;
  }());
  encoded.resize(encoded.size() - 1);  // all of a CONNECT but its last byte, then nothing
  silent.write(encoded);
  // Keep-alive would take a minute: the handshake bound closes it.
  EXPECT_TRUE(silent.closed_by_peer(std::chrono::seconds(20)));
  // A client that connects in time is served.
  auto prompt = connected_client();
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  prompt->send(ping);
  prompt->expect(proto::BaseCommand::PONG);
}

TEST_F(connection_test, FrameOverTheConnectLimitBeforeConnectedClosesTheConnection) {
  raw_client client(server->broker_port());
  // A frame that declares 1 MiB (under maxMessageSize) before any CONNECT: refused
  // without the broker making room for it.
  std::vector<std::byte> header(8);
  wire::store_be32(header.data(), 1024 * 1024);
  wire::store_be32(header.data() + 4, 1024 * 1024 - 4);
  client.write(header);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(connection_test, PingIsAnsweredWithPong) {
  auto client = connected_client();
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  client->send(ping);
  client->expect(proto::BaseCommand::PONG);
}

TEST_F(connection_test, IdleConnectionIsPingedThenClosedWhenSilent) {
  server.reset();
  config.keep_alive_interval = std::chrono::seconds(1);
  start();
  auto client = connected_client();
  client->expect(proto::BaseCommand::PING, std::chrono::seconds(30));
  EXPECT_TRUE(client->closed_by_peer(std::chrono::seconds(30)));
}

TEST_F(connection_test, LookupAnswersConnectToThisBroker) {
  auto client = connected_client();
  proto::BaseCommand lookup;
  lookup.set_type(proto::BaseCommand::LOOKUP);
  lookup.mutable_lookuptopic()->set_topic("my-topic");
  lookup.mutable_lookuptopic()->set_request_id(7);
  client->send(lookup);
  auto reply = client->expect(proto::BaseCommand::LOOKUP_RESPONSE);
  const auto& response = reply.command.lookuptopicresponse();
  EXPECT_EQ(response.request_id(), 7u);
  EXPECT_EQ(response.response(), proto::CommandLookupTopicResponse::Connect);
  EXPECT_EQ(response.brokerserviceurl(), server->service_url());
  EXPECT_TRUE(response.authoritative());
}

TEST_F(connection_test, LookupOfInvalidNameFailsWithInvalidTopicName) {
  auto client = connected_client();
  proto::BaseCommand lookup;
  lookup.set_type(proto::BaseCommand::LOOKUP);
  lookup.mutable_lookuptopic()->set_topic("a/b");
  lookup.mutable_lookuptopic()->set_request_id(8);
  client->send(lookup);
  auto reply = client->expect(proto::BaseCommand::LOOKUP_RESPONSE);
  EXPECT_EQ(reply.command.lookuptopicresponse().response(), proto::CommandLookupTopicResponse::Failed);
  EXPECT_EQ(reply.command.lookuptopicresponse().error(), proto::InvalidTopicName);
}

TEST_F(connection_test, PartitionedMetadataOfPlainTopicIsZero) {
  auto client = connected_client();
  proto::BaseCommand request;
  request.set_type(proto::BaseCommand::PARTITIONED_METADATA);
  request.mutable_partitionmetadata()->set_topic("persistent://public/default/plain");
  request.mutable_partitionmetadata()->set_request_id(3);
  client->send(request);
  auto reply = client->expect(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE);
  EXPECT_EQ(reply.command.partitionmetadataresponse().response(),
            proto::CommandPartitionedTopicMetadataResponse::Success);
  EXPECT_EQ(reply.command.partitionmetadataresponse().partitions(), 0u);
}

TEST_F(connection_test, MissingFieldIsAnsweredWithErrorNamingIt) {
  auto client = connected_client();
  proto::BaseCommand producer;
  producer.set_type(proto::BaseCommand::PRODUCER);
  producer.mutable_producer()->set_producer_id(1);
  producer.mutable_producer()->set_request_id(11);
  client->send(producer);
  auto reply = client->expect(proto::BaseCommand::ERROR);
  EXPECT_EQ(reply.command.error().request_id(), 11u);
  EXPECT_NE(reply.command.error().message().find("topic"), std::string::npos);
}

TEST_F(connection_test, UnknownCommandClosesOnlyThatConnection) {
  auto bad = connected_client();
  auto good = connected_client();
  proto::BaseCommand unknown;
  unknown.set_type(proto::BaseCommand::NEW_TXN);  // a type magnetar does not serve
  bad->send(unknown);
  EXPECT_TRUE(bad->closed_by_peer());
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  good->send(ping);
  good->expect(proto::BaseCommand::PONG);
}

TEST_F(connection_test, FrameBeyondTheLimitClosesTheConnection) {
  auto client = connected_client();
  std::vector<std::byte> header(8);
  wire::store_be32(header.data(), static_cast<std::uint32_t>(config.max_message_size + 64 * 1024));
  wire::store_be32(header.data() + 4, 4);
  client->write(header);
  EXPECT_TRUE(client->closed_by_peer());
}

TEST_F(connection_test, GarbageFrameLeavesOtherConnectionsServed) {
  auto client = connected_client();
  std::vector<std::byte> frame(8 + 3, std::byte{0xff});
  wire::store_be32(frame.data(), 7);
  wire::store_be32(frame.data() + 4, 3);
  client->write(frame);
  // The frame is dropped; the broker keeps the connection only when the frame named a
  // command it could answer. Either way the broker itself keeps serving others.
  auto other = connected_client();
  proto::BaseCommand ping;
  ping.set_type(proto::BaseCommand::PING);
  ping.mutable_ping();
  other->send(ping);
  other->expect(proto::BaseCommand::PONG);
}

}  // namespace
}  // namespace magnetar::broker::testing
