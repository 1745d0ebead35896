// stats_json: Pulsar's field names for stats, and message ids parsed from bodies.
#include "broker/admin/stats_json.h"

#include "broker/api/errc.h"

#include <gmock/gmock.h>

namespace magnetar::broker::admin {
namespace {

using nlohmann::json;

topic_stats sample_topic() {
  topic_stats t;
  t.msg_rate_in = 10.5;
  t.msg_rate_out = 4;
  t.msg_throughput_in = 1050;
  t.msg_throughput_out = 400;
  t.msg_in_counter = 100;
  t.bytes_in_counter = 10000;
  t.msg_out_counter = 40;
  t.bytes_out_counter = 4000;
  t.average_msg_size = 100;
  t.storage_size = 12345;
  t.backlog_size = 600;
  t.publishers.push_back(publisher_stats{.producer_name = "p-1",
                                         .producer_id = 7,
                                         .address = "127.0.0.1:5000",
                                         .connected_since = "2024-01-01T00:00:00Z",
                                         .access_mode = "Shared",
                                         .msg_rate_in = 10.5,
                                         .msg_throughput_in = 1050,
                                         .average_msg_size = 100});
  subscription_stats s{.type = "Exclusive",
                       .msg_backlog = 6,
                       .msg_rate_out = 4,
                       .msg_throughput_out = 400,
                       .msg_out_counter = 40,
                       .bytes_out_counter = 4000,
                       .unacked_messages = 2,
                       .active_consumer_name = "c-1"};
  s.consumers.push_back(consumer_stats{.consumer_name = "c-1",
                                       .address = "127.0.0.1:5001",
                                       .connected_since = "2024-01-01T00:00:01Z",
                                       .msg_rate_out = 4,
                                       .available_permits = 996,
                                       .unacked_messages = 2,
                                       .priority_level = 0});
  t.subscriptions["sub"] = s;
  return t;
}

TEST(stats_json, topic_stats_use_pulsars_field_names) {
  auto j = to_json(sample_topic());
  for (const char* field : {"msgRateIn", "msgRateOut", "msgThroughputIn", "msgThroughputOut", "msgInCounter",
                            "bytesInCounter", "msgOutCounter", "bytesOutCounter", "averageMsgSize", "storageSize",
                            "backlogSize", "publishers", "subscriptions"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["msgRateIn"], 10.5);
  EXPECT_EQ(j["storageSize"], 12345);
  EXPECT_EQ(j["msgInCounter"], 100);
}

TEST(stats_json, publishers_carry_pulsars_field_names) {
  auto p = to_json(sample_topic())["publishers"][0];
  EXPECT_EQ(p["producerName"], "p-1");
  EXPECT_EQ(p["producerId"], 7);
  EXPECT_EQ(p["address"], "127.0.0.1:5000");
  EXPECT_EQ(p["connectedSince"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(p["accessMode"], "Shared");
  EXPECT_EQ(p["msgRateIn"], 10.5);
  EXPECT_EQ(p["msgThroughputIn"], 1050);
  EXPECT_EQ(p["averageMsgSize"], 100);
}

TEST(stats_json, subscriptions_are_keyed_by_name_with_their_consumers) {
  auto s = to_json(sample_topic())["subscriptions"]["sub"];
  EXPECT_EQ(s["type"], "Exclusive");
  EXPECT_EQ(s["isDurable"], true);
  EXPECT_EQ(s["msgBacklog"], 6);
  EXPECT_EQ(s["unackedMessages"], 2);
  EXPECT_EQ(s["activeConsumerName"], "c-1");
  for (const char* field : {"msgRateOut", "msgThroughputOut", "msgRateRedeliver", "msgOutCounter", "bytesOutCounter",
                            "msgDelayed", "msgInReplay"}) {
    EXPECT_TRUE(s.contains(field)) << field;
  }
  auto c = s["consumers"][0];
  EXPECT_EQ(c["consumerName"], "c-1");
  EXPECT_EQ(c["availablePermits"], 996);
  EXPECT_EQ(c["priorityLevel"], 0);
  for (const char* field : {"address", "connectedSince", "msgRateOut", "msgThroughputOut", "msgRateRedeliver",
                            "msgOutCounter", "bytesOutCounter", "unackedMessages"}) {
    EXPECT_TRUE(c.contains(field)) << field;
  }
}

TEST(stats_json, shared_subscription_has_no_active_consumer_name) {
  auto j = to_json(subscription_stats{.type = "Shared"});
  EXPECT_FALSE(j.contains("activeConsumerName"));
}

TEST(stats_json, key_shared_subscription_counts_its_draining_hashes) {
  auto j = to_json(subscription_stats{.type = "Key_Shared", .msg_in_replay = 7, .draining_hashes_count = 3});
  EXPECT_EQ(j["msgInReplay"], 7);
  EXPECT_EQ(j["drainingHashesCount"], 3);
  EXPECT_FALSE(to_json(subscription_stats{.type = "Shared"}).contains("drainingHashesCount"));
}

TEST(stats_json, internal_stats_use_pulsars_field_names) {
  topic_internal_stats s{.entries_added_counter = 5,
                         .number_of_entries = 5,
                         .total_size = 500,
                         .current_ledger_entries = 5,
                         .current_ledger_size = 500,
                         .last_confirmed_entry = "3:4",
                         .state = "LedgerOpened"};
  s.ledgers.push_back({.ledger_id = 3, .entries = 5, .size = 500, .timestamp = 0});
  s.cursors["sub"] = cursor_internal_stats{.mark_delete_position = "3:1",
                                           .read_position = "3:2",
                                           .individually_deleted_message_ranges = "[]",
                                           .messages_consumed_counter = 2};
  auto j = to_json(s);
  EXPECT_EQ(j["entriesAddedCounter"], 5);
  EXPECT_EQ(j["numberOfEntries"], 5);
  EXPECT_EQ(j["totalSize"], 500);
  EXPECT_EQ(j["currentLedgerEntries"], 5);
  EXPECT_EQ(j["currentLedgerSize"], 500);
  EXPECT_EQ(j["lastConfirmedEntry"], "3:4");
  EXPECT_EQ(j["state"], "LedgerOpened");
  EXPECT_EQ(j["ledgers"][0]["ledgerId"], 3);
  EXPECT_EQ(j["ledgers"][0]["entries"], 5);
  EXPECT_EQ(j["ledgers"][0]["size"], 500);
  EXPECT_TRUE(j["ledgers"][0].contains("timestamp"));
  auto c = j["cursors"]["sub"];
  EXPECT_EQ(c["markDeletePosition"], "3:1");
  EXPECT_EQ(c["readPosition"], "3:2");
  EXPECT_EQ(c["individuallyDeletedMessages"], "[]");
  EXPECT_EQ(c["messagesConsumedCounter"], 2);
  for (const char* field :
       {"numberOfEntriesSinceFirstNotAckedMessage", "totalNonContiguousDeletedMessagesRange", "isDurable"}) {
    EXPECT_TRUE(c.contains(field)) << field;
  }
}

TEST(stats_json, partitioned_stats_sum_the_partitions) {
  std::map<std::string, topic_stats> parts{{"persistent://a/b/t-partition-0", sample_topic()},
                                           {"persistent://a/b/t-partition-1", sample_topic()}};
  auto j = partitioned_to_json(2, parts, true);
  EXPECT_EQ(j["metadata"]["partitions"], 2);
  EXPECT_EQ(j["msgInCounter"], 200);
  EXPECT_EQ(j["subscriptions"]["sub"]["msgBacklog"], 12);
  EXPECT_EQ(j["publishers"].size(), 2u);
  EXPECT_EQ(j["partitions"].size(), 2u);
  EXPECT_EQ(partitioned_to_json(2, parts, false)["partitions"].size(), 0u);
}

TEST(stats_json, names_with_invalid_utf8_are_replaced_not_thrown) {
  subscription_stats s;
  topic_stats t;
  t.subscriptions[std::string("bad\xff")] = s;
  EXPECT_NO_THROW(dump(to_json(t)));
}

TEST(parse_json, names_the_byte_of_a_syntax_error) {
  auto parsed = parse_json("{\"a\": }");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error(), errc::invalid_request);
  EXPECT_THAT(parsed.error().detail(), ::testing::HasSubstr("byte 7"));
}

TEST(parse_message_id, empty_body_is_the_default) {
  auto id = parse_message_id("", message_position::latest());
  ASSERT_TRUE(id);
  EXPECT_EQ(id.value().position.ledger_id, INT64_MAX);
}

TEST(parse_message_id, reads_ledger_entry_and_partition) {
  auto id = parse_message_id(R"({"ledgerId": 7, "entryId": 3, "partitionIndex": 1})", message_position::latest());
  ASSERT_TRUE(id) << id.error();
  EXPECT_EQ(id.value().position.ledger_id, 7);
  EXPECT_EQ(id.value().position.entry_id, 3);
  EXPECT_EQ(id.value().partition_index, 1);
}

TEST(parse_message_id, excluded_moves_past_the_named_entry) {
  auto id = parse_message_id(R"({"ledgerId": 7, "entryId": 3, "isExcluded": true})", message_position::latest());
  ASSERT_TRUE(id);
  EXPECT_EQ(id.value().position.entry_id, 4);
}

TEST(parse_message_id, accepts_earliest_and_latest_words) {
  EXPECT_EQ(parse_message_id("earliest", message_position::latest()).value().position.ledger_id, -1);
  EXPECT_EQ(parse_message_id("\"latest\"", message_position::earliest()).value().position.ledger_id, INT64_MAX);
}

TEST(parse_message_id, refuses_an_object_without_ids) {
  auto id = parse_message_id(R"({"ledgerId": "x"})", message_position::latest());
  ASSERT_FALSE(id);
  EXPECT_EQ(id.error(), errc::invalid_request);
}

TEST(stats_json, partitions_stats_merge_by_summing_numbers_and_joining_names) {
  nlohmann::json total;
  merge_stats_json(total, nlohmann::json::parse(
                              R"({"msgInCounter": 3, "msgRateIn": 1.5, "publishers": [{"producerName": "a"}],
                                  "subscriptions": {"s": {"msgBacklog": 2, "type": "Shared"}}})"));
  merge_stats_json(total, nlohmann::json::parse(
                              R"({"msgInCounter": 4, "msgRateIn": 0.5, "publishers": [{"producerName": "b"}],
                                  "subscriptions": {"s": {"msgBacklog": 5, "type": "Shared"}, "t": {"msgBacklog": 1}}})"));
  EXPECT_EQ(total["msgInCounter"], 7);
  EXPECT_EQ(total["msgRateIn"], 2.0);
  EXPECT_EQ(total["publishers"].size(), 2u);
  EXPECT_EQ(total["subscriptions"]["s"]["msgBacklog"], 7);
  EXPECT_EQ(total["subscriptions"]["s"]["type"], "Shared");
  EXPECT_EQ(total["subscriptions"]["t"]["msgBacklog"], 1);
  nlohmann::json names = nlohmann::json::array({"s"});
  merge_stats_json(names, nlohmann::json::array({"s", "t"}));
  EXPECT_EQ(names, nlohmann::json::array({"s", "t"}));
}

}  // namespace
}  // namespace magnetar::broker::admin
