// Scalable topics against an in-process standalone: the admin REST paths, the layout
// watch (SCALABLE_TOPIC_LOOKUP/UPDATE) and stream-consumer registration
// (SCALABLE_TOPIC_SUBSCRIBE, assignment pushes), spoken frame by frame.
#include "broker/tests/policies_fixture.h"

#include <map>

namespace magnetar::broker::testing {
namespace {

class scalable_topic_test : public policies_test {
 protected:
  scalable_topic_test() { config.scalable_topic_drain_check_max = std::chrono::milliseconds(200); }

  static std::string path(const std::string& topic) { return "/admin/v2/scalable/public/default/" + topic; }

  nlohmann::json layout(const std::string& topic) {
    auto r = call("GET", path(topic));
    EXPECT_EQ(r.status, 200) << r.body;
    return nlohmann::json::parse(r.body, nullptr, false);
  }

  static proto::BaseCommand lookup(const std::string& topic, std::uint64_t session, bool create = true) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::SCALABLE_TOPIC_LOOKUP);
    c.mutable_scalabletopiclookup()->set_session_id(session);
    c.mutable_scalabletopiclookup()->set_topic(topic);
    c.mutable_scalabletopiclookup()->set_create_if_missing(create);
    return c;
  }

  static proto::BaseCommand stream_subscribe(const std::string& topic, const std::string& subscription,
                                             const std::string& consumer, std::uint64_t consumer_id,
                                             std::uint64_t request_id) {
    proto::BaseCommand c;
    c.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE);
    auto& s = *c.mutable_scalabletopicsubscribe();
    s.set_request_id(request_id);
    s.set_topic(topic);
    s.set_subscription(subscription);
    s.set_consumer_name(consumer);
    s.set_consumer_id(consumer_id);
    s.set_consumer_type(proto::STREAM);
    return c;
  }

  static std::vector<std::uint64_t> segment_ids(const proto::ScalableConsumerAssignment& a) {
    std::vector<std::uint64_t> out;
    for (const auto& s : a.segments()) out.push_back(s.segment_id());
    return out;
  }
};

TEST_F(scalable_topic_test, ConnectedSaysScalableTopicsAreSupported) {
  raw_client client(server->broker_port());
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CONNECT);
  command.mutable_connect()->set_client_version("raw-test");
  command.mutable_connect()->set_protocol_version(21);
  client.send(command);
  auto connected = client.expect(proto::BaseCommand::CONNECTED);
  EXPECT_TRUE(connected.command.connected().feature_flags().supports_scalable_topics());
}

TEST_F(scalable_topic_test, CreateShowsTheInitialSegments) {
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=2").status, 204);
  auto l = layout("orders");
  EXPECT_EQ(l["epoch"], 0);
  EXPECT_EQ(l["nextSegmentId"], 2);
  EXPECT_EQ(l["segments"]["1"]["hashRange"]["start"], 0x8000);
  EXPECT_EQ(l["segments"]["1"]["state"], "ACTIVE");
  auto listed = call("GET", "/admin/v2/scalable/public/default");
  EXPECT_EQ(nlohmann::json::parse(listed.body), nlohmann::json::array({"topic://public/default/orders"}));
}

TEST_F(scalable_topic_test, CreatingTwiceIsAConflict) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  auto again = call("PUT", path("orders"));
  EXPECT_EQ(again.status, 409);
  EXPECT_NE(again.body.find("Scalable topic already exists: topic://public/default/orders"), std::string::npos);
}

TEST_F(scalable_topic_test, ZeroInitialSegmentsIsRefused) {
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=0").status, 412);
}

TEST_F(scalable_topic_test, UnknownTopicIsNotFound) {
  auto r = call("GET", path("nothing"));
  EXPECT_EQ(r.status, 404);
  EXPECT_NE(r.body.find("Scalable topic not found"), std::string::npos);
}

TEST_F(scalable_topic_test, SplitOfUnknownSegmentIsNotFound) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  EXPECT_EQ(call("POST", path("orders") + "/split/9").status, 404);
}

TEST_F(scalable_topic_test, MergeOfNonAdjacentSegmentsIsAPreconditionFailure) {
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=3").status, 204);
  auto r = call("POST", path("orders") + "/merge/0/2");
  EXPECT_EQ(r.status, 412);
  EXPECT_NE(r.body.find("not adjacent"), std::string::npos);
}

TEST_F(scalable_topic_test, DeleteRemovesTheTopicAndItsSegments) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  EXPECT_EQ(call("DELETE", path("orders")).status, 204);
  EXPECT_EQ(call("GET", path("orders")).status, 404);
  auto topics = call("GET", "/admin/v2/persistent/public/default");
  EXPECT_EQ(topics.body.find("orders"), std::string::npos) << topics.body;
}

TEST_F(scalable_topic_test, LookupAnswersTheLayout) {
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=2").status, 204);
  auto client = connected_client();
  client->send(lookup("topic://public/default/orders", 7));
  auto update = client->expect(proto::BaseCommand::SCALABLE_TOPIC_UPDATE).command.scalabletopicupdate();
  EXPECT_EQ(update.session_id(), 7u);
  EXPECT_FALSE(update.has_error()) << update.message();
  EXPECT_EQ(update.resolved_topic_name(), "topic://public/default/orders");
  ASSERT_EQ(update.dag().segments_size(), 2);
  EXPECT_EQ(update.dag().segments(1).hash_start(), 0x8000u);
  EXPECT_EQ(update.dag().segment_brokers_size(), 2);
  EXPECT_FALSE(update.dag().controller_broker_url().empty());
}

TEST_F(scalable_topic_test, LookupOfMissingTopicWithoutCreateIsNotFound) {
  auto client = connected_client();
  client->send(lookup("topic://public/default/none", 1, false));
  auto update = client->expect(proto::BaseCommand::SCALABLE_TOPIC_UPDATE).command.scalabletopicupdate();
  EXPECT_EQ(update.error(), proto::TopicNotFound);
  EXPECT_FALSE(update.has_dag());
}

TEST_F(scalable_topic_test, LookupCreatesAMissingTopicWithOneSegment) {
  auto client = connected_client();
  client->send(lookup("topic://public/default/fresh", 1));
  auto update = client->expect(proto::BaseCommand::SCALABLE_TOPIC_UPDATE).command.scalabletopicupdate();
  ASSERT_FALSE(update.has_error()) << update.message();
  ASSERT_EQ(update.dag().segments_size(), 1);
  EXPECT_EQ(update.dag().segments(0).hash_end(), 0xFFFFu);
}

TEST_F(scalable_topic_test, SplitIsPushedToWatchers) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  auto client = connected_client();
  client->send(lookup("topic://public/default/orders", 3));
  client->expect(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
  auto split = call("POST", path("orders") + "/split/0");
  ASSERT_EQ(split.status, 204) << split.body;
  auto pushed = client->expect(proto::BaseCommand::SCALABLE_TOPIC_UPDATE).command.scalabletopicupdate();
  EXPECT_EQ(pushed.session_id(), 3u);
  EXPECT_EQ(pushed.dag().epoch(), 1u);
  ASSERT_EQ(pushed.dag().segments_size(), 3);
  EXPECT_EQ(pushed.dag().segments(0).state(), proto::SEALED);
  EXPECT_EQ(pushed.dag().segment_brokers_size(), 2);
}

TEST_F(scalable_topic_test, SplitSealsTheParentSegmentForProducers) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  ASSERT_EQ(call("POST", path("orders") + "/split/0").status, 204);
  auto client = connected_client();
  client->send(producer_command("segment://public/default/orders/0000-ffff-0", 1, 1));
  auto refused = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(refused.error(), proto::TopicTerminatedError);
}

TEST_F(scalable_topic_test, SegmentsAreNotAutoCreatedByClients) {
  auto client = connected_client();
  client->send(producer_command("segment://public/default/orders/0000-ffff-0", 1, 1));
  auto refused = client->expect(proto::BaseCommand::ERROR).command.error();
  EXPECT_EQ(refused.error(), proto::TopicNotFound);
}

TEST_F(scalable_topic_test, StreamConsumersShareTheSegmentsByName) {
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=4").status, 204);
  auto first = connected_client();
  first->send(stream_subscribe("topic://public/default/orders", "s", "b", 1, 1));
  auto alone = first->expect(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE).command;
  ASSERT_FALSE(alone.scalabletopicsubscriberesponse().has_error()) << alone.DebugString();
  EXPECT_EQ(segment_ids(alone.scalabletopicsubscriberesponse().assignment()), (std::vector<std::uint64_t>{0, 1, 2, 3}));
  auto second = connected_client();
  second->send(stream_subscribe("topic://public/default/orders", "s", "a", 5, 2));
  auto joined = second->expect(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE).command;
  EXPECT_EQ(segment_ids(joined.scalabletopicsubscriberesponse().assignment()), (std::vector<std::uint64_t>{0, 2}));
  auto pushed = first->expect(proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE).command;
  EXPECT_EQ(pushed.scalabletopicassignmentupdate().consumer_id(), 1u);
  EXPECT_EQ(segment_ids(pushed.scalabletopicassignmentupdate().assignment()), (std::vector<std::uint64_t>{1, 3}));
}

TEST_F(scalable_topic_test, LeavingConsumersSegmentsMoveAfterTheGracePeriod) {
  config.scalable_topic_consumer_session_grace_period = std::chrono::milliseconds(300);
  restart();
  EXPECT_EQ(call("PUT", path("orders") + "?numInitialSegments=2").status, 204);
  auto stays = connected_client();
  stays->send(stream_subscribe("topic://public/default/orders", "s", "a", 1, 1));
  stays->expect(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
  {
    auto leaves = connected_client();
    leaves->send(stream_subscribe("topic://public/default/orders", "s", "b", 1, 1));
    leaves->expect(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
    stays->expect(proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE);
  }
  auto back = stays->expect(proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE).command;
  EXPECT_EQ(segment_ids(back.scalabletopicassignmentupdate().assignment()), (std::vector<std::uint64_t>{0, 1}));
}

TEST_F(scalable_topic_test, ChildrenAreAssignedOnceTheParentDrained) {
  EXPECT_EQ(call("PUT", path("orders")).status, 204);
  const std::string parent = "segment://public/default/orders/0000-ffff-0";
  auto producer = connected_client();
  publish(*producer, parent, 3);
  ASSERT_EQ(call("POST", path("orders") + "/split/0").status, 204);

  auto stream = connected_client();
  stream->send(stream_subscribe("topic://public/default/orders", "s", "only", 1, 1));
  auto first = stream->expect(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE).command;
  EXPECT_EQ(segment_ids(first.scalabletopicsubscriberesponse().assignment()), (std::vector<std::uint64_t>{0}));

  // Read the parent to its end and acknowledge it all.
  stream->send(subscribe_command(parent, "s", 9, 2));
  stream->expect(proto::BaseCommand::SUCCESS);
  stream->send(flow_command(9, 10));
  proto::MessageIdData last;
  for (int i = 0; i < 3; ++i) last = stream->expect(proto::BaseCommand::MESSAGE).command.message().message_id();
  stream->send(ack_command(9, last, proto::CommandAck::Cumulative));

  // Frames may interleave (end of topic); wait for the assignment that adds the children.
  for (;;) {
    auto frame = stream->next();
    ASSERT_TRUE(frame) << "no assignment update";
    if (frame->command.type() != proto::BaseCommand::SCALABLE_TOPIC_ASSIGNMENT_UPDATE) continue;
    EXPECT_EQ(segment_ids(frame->command.scalabletopicassignmentupdate().assignment()),
              (std::vector<std::uint64_t>{1, 0, 2}));
    EXPECT_EQ(frame->command.scalabletopicassignmentupdate().assignment().layout_epoch(), 1u);
    break;
  }
}

proto::BaseCommand watch_namespace(std::uint64_t watch_id, std::map<std::string, std::string> filters = {}) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::WATCH_SCALABLE_TOPICS);
  c.mutable_watchscalabletopics()->set_watch_id(watch_id);
  c.mutable_watchscalabletopics()->set_namespace_("public/default");
  for (const auto& [k, v] : filters) {
    auto& kv = *c.mutable_watchscalabletopics()->add_property_filters();
    kv.set_key(k);
    kv.set_value(v);
  }
  return c;
}

TEST_F(scalable_topic_test, NamespaceWatchGivesASnapshotThenDiffs) {
  auto client = connected_client();
  client->send(watch_namespace(4));
  auto first = client->expect(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE).command.watchscalabletopicsupdate();
  EXPECT_EQ(first.watch_id(), 4u);
  ASSERT_TRUE(first.has_snapshot()) << first.DebugString();
  EXPECT_EQ(first.snapshot().topics_size(), 0);
  ASSERT_EQ(call("PUT", path("orders")).status, 204);
  auto added = client->expect(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE).command.watchscalabletopicsupdate();
  ASSERT_TRUE(added.has_diff()) << added.DebugString();
  ASSERT_EQ(added.diff().added_size(), 1);
  EXPECT_EQ(added.diff().added(0), "topic://public/default/orders");
  ASSERT_EQ(call("DELETE", path("orders")).status, 204);
  auto removed = client->expect(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE).command.watchscalabletopicsupdate();
  ASSERT_EQ(removed.diff().removed_size(), 1);
  EXPECT_EQ(removed.diff().removed(0), "topic://public/default/orders");
}

TEST_F(scalable_topic_test, NamespaceWatchKeepsTopicsMatchingEveryFilter) {
  ASSERT_EQ(call("PUT", path("tagged"), R"({"team":"iot","tier":"gold"})").status, 204);
  ASSERT_EQ(call("PUT", path("other"), R"({"team":"web"})").status, 204);
  auto client = connected_client();
  client->send(watch_namespace(1, {{"team", "iot"}}));
  auto snapshot = client->expect(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE).command.watchscalabletopicsupdate();
  ASSERT_EQ(snapshot.snapshot().topics_size(), 1) << snapshot.DebugString();
  EXPECT_EQ(snapshot.snapshot().topics(0), "topic://public/default/tagged");
}

}  // namespace
}  // namespace magnetar::broker::testing
