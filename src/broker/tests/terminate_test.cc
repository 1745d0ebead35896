// Raw-frame tests of topic termination (what seals a segment of a scalable topic):
// producers closed and refused, racing SENDs refused, REACHED_END_OF_TOPIC for
// consumers that acknowledged everything; and a segment:// topic served like any other.
#include "broker/tests/broker_fixture.h"
#include "http/client.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <thread>

namespace magnetar::broker::testing {
namespace {

using nlohmann::json;

class terminate_test : public broker_test {
 protected:
  magnetar::http::reply admin_call(const std::string& method, const std::string& target) {
    auto r = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, method, target);
    EXPECT_TRUE(r) << r.error();
    return r ? std::move(r).value() : magnetar::http::reply{.status = -1};
  }
  // POST .../terminate; the last message id it answers.
  json terminate(const std::string& topic) {
    auto r = admin_call("POST", "/admin/v2/persistent/public/default/" + topic + "/terminate");
    EXPECT_EQ(r.status, 200) << r.body;
    return r.status == 200 ? json::parse(r.body) : json();
  }

  // Reads frames until one of each wanted type came, in any order; a frame of another
  // type fails the test.
  static std::map<proto::BaseCommand::Type, wire::frame> expect_all(raw_client& client,
                                                                    std::vector<proto::BaseCommand::Type> wanted) {
    std::map<proto::BaseCommand::Type, wire::frame> got;
    while (!wanted.empty()) {
      auto frame = client.next();
      if (!frame) {
        ADD_FAILURE() << "the broker sent nothing more";
        break;
      }
      auto it = std::find(wanted.begin(), wanted.end(), frame->command.type());
      if (it == wanted.end()) {
        ADD_FAILURE() << "unexpected " << frame->command.DebugString();
        break;
      }
      wanted.erase(it);
      got.emplace(frame->command.type(), std::move(*frame));
    }
    return got;
  }

  static proto::BaseCommand acked_with_receipt(std::uint64_t consumer_id, const proto::MessageIdData& id,
                                               std::uint64_t request_id) {
    auto ack = ack_command(consumer_id, id);
    ack.mutable_ack()->set_request_id(request_id);
    return ack;
  }

  // Subscribes consumer 1 to `sub` (Exclusive, Earliest) with permits.
  static void subscribe(raw_client& client, const std::string& topic, const std::string& sub,
                        std::uint64_t consumer_id = 1) {
    client.send(subscribe_command(topic, sub, consumer_id, 500 + consumer_id));
    client.expect(proto::BaseCommand::SUCCESS);
    client.send(flow_command(consumer_id, 100));
  }
};

std::string text(const wire::frame& f) { return std::string(f.payload.as_chars()); }

TEST_F(terminate_test, AnswersTheLastMessageIdAndTheSameOneAgain) {
  auto client = connected_client();
  publish(*client, "tt1", 3);
  auto last = terminate("tt1");
  EXPECT_EQ(last["entryId"], 2);
  EXPECT_EQ(last["partitionIndex"], -1);
  EXPECT_GE(last["ledgerId"].get<std::int64_t>(), 0);
  EXPECT_EQ(terminate("tt1"), last);
}

TEST_F(terminate_test, ProducersAreClosedAndNewOnesRefused) {
  auto client = connected_client();
  publish(*client, "tt2", 1);
  terminate("tt2");
  EXPECT_EQ(client->expect(proto::BaseCommand::CLOSE_PRODUCER).command.close_producer().producer_id(), 1u);
  client->send(producer_command("tt2", 2, 20, "again"));
  auto error = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(error.request_id(), 20u);
  EXPECT_EQ(error.error(), proto::TopicTerminatedError);
  EXPECT_EQ(error.message(), "Topic was already terminated");
}

TEST_F(terminate_test, SendOfAProducerTheTerminationClosedIsRefusedAsTerminated) {
  auto client = connected_client();
  publish(*client, "tt3", 1);
  terminate("tt3");
  client->expect(proto::BaseCommand::CLOSE_PRODUCER);
  client->send_payload(send_command(1, 7), metadata("p", 7), "late");
  auto error = client->expect(proto::BaseCommand::SEND_ERROR).command.send_error();
  EXPECT_EQ(error.sequence_id(), 7u);
  EXPECT_EQ(error.error(), proto::TopicTerminatedError);
}

TEST_F(terminate_test, SendsRacingTheTerminationGetReceiptsUpToItsEndThenErrors) {
  auto client = connected_client();
  client->send(producer_command("tt4", 1, 10, "p"));
  client->expect(proto::BaseCommand::PRODUCER_SUCCESS);
  constexpr int count = 2000;
  std::vector<std::byte> burst;
  const std::string payload(100, 'x');
  for (int i = 0; i < count; ++i) {
    wire::append_payload_command(burst, send_command(1, i), metadata("p", i), std::as_bytes(std::span(payload)));
  }
  json last;
  std::thread terminator([&] { last = terminate("tt4"); });
  client->write(burst);
  // Each SEND is answered once: receipts first, in order, then TopicTerminatedError.
  int receipts = 0;
  int errors = 0;
  int closes = 0;
  std::int64_t last_entry = -1;
  while (receipts + errors < count) {
    auto frame = client->next();
    ASSERT_TRUE(frame);
    const auto type = frame->command.type();
    if (type == proto::BaseCommand::CLOSE_PRODUCER) {
      ++closes;
    } else if (type == proto::BaseCommand::SEND_RECEIPT) {
      ASSERT_EQ(errors, 0) << "a receipt after an error";
      ASSERT_EQ(frame->command.send_receipt().sequence_id(), static_cast<std::uint64_t>(receipts));
      last_entry = static_cast<std::int64_t>(frame->command.send_receipt().message_id().entryid());
      ++receipts;
    } else {
      ASSERT_EQ(type, proto::BaseCommand::SEND_ERROR) << frame->command.DebugString();
      EXPECT_EQ(frame->command.send_error().error(), proto::TopicTerminatedError);
      ++errors;
    }
  }
  terminator.join();
  // What was receipted is what the topic holds, up to its last message.
  EXPECT_EQ(last["entryId"], last_entry);
  if (closes == 0) client->expect(proto::BaseCommand::CLOSE_PRODUCER);
}

TEST_F(terminate_test, ACaughtUpConsumerReachesTheEndWhenTheTopicTerminates) {
  auto client = connected_client();
  publish(*client, "tt5", 2);
  subscribe(*client, "tt5", "s");
  std::vector<proto::MessageIdData> ids;
  for (int i = 0; i < 2; ++i) ids.push_back(client->expect(proto::BaseCommand::MESSAGE).command.message().message_id());
  for (int i = 0; i < 2; ++i) {
    client->send(acked_with_receipt(1, ids[static_cast<std::size_t>(i)], 60 + i));
    client->expect(proto::BaseCommand::ACK_RESPONSE);
  }
  terminate("tt5");
  auto frames = expect_all(*client, {proto::BaseCommand::CLOSE_PRODUCER, proto::BaseCommand::REACHED_END_OF_TOPIC});
  EXPECT_EQ(frames[proto::BaseCommand::REACHED_END_OF_TOPIC].command.reachedendoftopic().consumer_id(), 1u);
}

TEST_F(terminate_test, AConsumerWithABacklogReachesTheEndOnceItAcknowledgesTheRest) {
  auto producer = connected_client();
  publish(*producer, "tt6", 2);
  terminate("tt6");
  auto client = connected_client();
  subscribe(*client, "tt6", "s");
  // The messages come first: nothing else is sent before them.
  auto first = client->expect(proto::BaseCommand::MESSAGE);
  auto second = client->expect(proto::BaseCommand::MESSAGE);
  EXPECT_EQ(text(second), "m1");
  client->send(acked_with_receipt(1, first.command.message().message_id(), 61));
  client->expect(proto::BaseCommand::ACK_RESPONSE);  // one left: not the end yet
  client->send(acked_with_receipt(1, second.command.message().message_id(), 62));
  expect_all(*client, {proto::BaseCommand::ACK_RESPONSE, proto::BaseCommand::REACHED_END_OF_TOPIC});
}

TEST_F(terminate_test, AConsumerOfADrainedTerminatedTopicReachesTheEndOnItsFirstFlow) {
  auto producer = connected_client();
  publish(*producer, "tt7", 1);
  terminate("tt7");
  auto client = connected_client();
  auto latest = subscribe_command("tt7", "late", 1, 70);
  latest.mutable_subscribe()->set_initialposition(proto::CommandSubscribe::Latest);
  client->send(latest);
  client->expect(proto::BaseCommand::SUCCESS);
  client->send(flow_command(1, 10));
  EXPECT_EQ(client->expect(proto::BaseCommand::REACHED_END_OF_TOPIC).command.reachedendoftopic().consumer_id(), 1u);
}

TEST_F(terminate_test, SubscriptionsStayUsableAndStatsSayTerminated) {
  auto client = connected_client();
  publish(*client, "tt8", 3);
  subscribe(*client, "tt8", "s");
  for (int i = 0; i < 3; ++i) client->expect(proto::BaseCommand::MESSAGE);
  terminate("tt8");
  client->expect(proto::BaseCommand::CLOSE_PRODUCER);
  auto stats = json::parse(admin_call("GET", "/admin/v2/persistent/public/default/tt8/stats").body);
  EXPECT_EQ(stats["subscriptions"]["s"]["msgBacklog"], 3);
  auto internal = json::parse(admin_call("GET", "/admin/v2/persistent/public/default/tt8/internalStats").body);
  EXPECT_EQ(internal["state"], "Terminated");
  // A new subscription can still be made, and it reads everything.
  auto reader = connected_client();
  subscribe(*reader, "tt8", "later");
  for (int i = 0; i < 3; ++i) EXPECT_EQ(text(reader->expect(proto::BaseCommand::MESSAGE)), "m" + std::to_string(i));
}

TEST_F(terminate_test, ATerminatedTopicStaysTerminatedAfterARestart) {
  {
    auto client = connected_client();
    publish(*client, "tt9", 2);
    terminate("tt9");
  }
  restart();
  auto client = connected_client();
  client->send(producer_command("tt9", 1, 90, "p"));
  EXPECT_EQ(client->expect(proto::BaseCommand::ERROR).command.error().error(), proto::TopicTerminatedError);
  subscribe(*client, "tt9", "s");
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m0");
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m1");
  EXPECT_EQ(terminate("tt9")["entryId"], 1);
}

TEST_F(terminate_test, TerminatingAMissingTopicIs404) {
  EXPECT_EQ(admin_call("POST", "/admin/v2/persistent/public/default/ghost/terminate").status, 404);
}

// A segment of a scalable topic is an ordinary persistent topic with a slash in its
// local name: looked up, produced to and consumed from like one.
TEST_F(terminate_test, ASegmentTopicIsServedLikeAPersistentOne) {
  const std::string segment = "segment://public/default/st/0000-ffff-0";
  // Segments exist once their scalable topic's controller made them.
  auto created = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = server->web_port()}, "PUT",
                                      "/admin/v2/scalable/public/default/st");
  ASSERT_TRUE(created) << created.error();
  ASSERT_EQ(created.value().status, 204) << created.value().body;
  auto client = connected_client();
  proto::BaseCommand metadata_request;
  metadata_request.set_type(proto::BaseCommand::PARTITIONED_METADATA);
  metadata_request.mutable_partitionmetadata()->set_topic(segment);
  metadata_request.mutable_partitionmetadata()->set_request_id(3);
  client->send(metadata_request);
  auto partitions =
      client->expect(proto::BaseCommand::PARTITIONED_METADATA_RESPONSE).command.partitionmetadataresponse();
  EXPECT_EQ(partitions.response(), proto::CommandPartitionedTopicMetadataResponse::Success);
  EXPECT_EQ(partitions.partitions(), 0u);
  proto::BaseCommand lookup;
  lookup.set_type(proto::BaseCommand::LOOKUP);
  lookup.mutable_lookuptopic()->set_topic(segment);
  lookup.mutable_lookuptopic()->set_request_id(4);
  client->send(lookup);
  EXPECT_EQ(client->expect(proto::BaseCommand::LOOKUP_RESPONSE).command.lookuptopicresponse().response(),
            proto::CommandLookupTopicResponse::Connect);

  publish(*client, segment, 2);
  subscribe(*client, segment, "s");
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m0");
  EXPECT_EQ(text(client->expect(proto::BaseCommand::MESSAGE)), "m1");
}

}  // namespace
}  // namespace magnetar::broker::testing
