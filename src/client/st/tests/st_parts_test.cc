// The st SDK's pieces that decide without a broker: commands, segment producer and
// consumer settings, which errors count as a sealed segment or a rebalance collision.
#include "client/commands.h"
#include "client/st/assignment_session.h"
#include "client/st/st_commands.h"
#include "client/st/st_producer.h"
#include "client/st/st_queue_consumer.h"
#include "client/st/st_stream_consumer.h"
#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

namespace magnetar::st::detail {
namespace {

TEST(st_commands, lookup_carries_session_topic_and_create_if_missing) {
  auto c = scalable_lookup_command(7, "topic://t/n/x", false);
  EXPECT_EQ(c.type(), proto::BaseCommand::SCALABLE_TOPIC_LOOKUP);
  EXPECT_EQ(c.scalabletopiclookup().session_id(), 7u);
  EXPECT_EQ(c.scalabletopiclookup().topic(), "topic://t/n/x");
  EXPECT_FALSE(c.scalabletopiclookup().create_if_missing());
  EXPECT_TRUE(scalable_lookup_command(8, "x", true).scalabletopiclookup().create_if_missing());
  proto::CommandScalableTopicLookup unset;
  EXPECT_TRUE(unset.create_if_missing());  // the protocol's default
}

TEST(st_commands, close_carries_the_session) {
  auto c = scalable_close_command(9);
  EXPECT_EQ(c.type(), proto::BaseCommand::SCALABLE_TOPIC_CLOSE);
  EXPECT_EQ(c.scalabletopicclose().session_id(), 9u);
}

TEST(st_commands, subscribe_carries_every_field) {
  auto c = scalable_subscribe_command({3, "topic://t/n/x", "sub", "v5-stream-0badcafe", 12, proto::STREAM});
  EXPECT_EQ(c.type(), proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE);
  const auto& s = c.scalabletopicsubscribe();
  EXPECT_EQ(s.request_id(), 3u);
  EXPECT_EQ(s.topic(), "topic://t/n/x");
  EXPECT_EQ(s.subscription(), "sub");
  EXPECT_EQ(s.consumer_name(), "v5-stream-0badcafe");
  EXPECT_EQ(s.consumer_id(), 12u);
  EXPECT_TRUE(s.has_consumer_type());
  EXPECT_EQ(s.consumer_type(), proto::STREAM);
}

TEST(st_commands, the_subscribe_response_answers_its_request) {
  proto::BaseCommand c;
  c.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
  c.mutable_scalabletopicsubscriberesponse()->set_request_id(44);
  EXPECT_EQ(client_detail::response_request_id(c), 44u);
}

TEST(st_commands, connect_says_the_client_supports_scalable_topics) {
  auto c = client_detail::connect_command("");
  EXPECT_TRUE(c.connect().feature_flags().supports_scalable_topics());
}

TEST(st_commands, a_scalable_topic_is_looked_up_as_its_persistent_twin) {
  EXPECT_EQ(lookup_name_of("topic://t/n/x"), "persistent://t/n/x");
  EXPECT_EQ(lookup_name_of("persistent://t/n/x"), "persistent://t/n/x");
  EXPECT_EQ(lookup_name_of("orders"), "orders");
}

TEST(st_producer_rules, a_sealed_segment_is_gone) {
  EXPECT_TRUE(is_segment_gone(error(client_errc::topic_terminated)));
  EXPECT_TRUE(is_segment_gone(error(client_errc::already_closed)));
  EXPECT_TRUE(is_segment_gone(error(client_errc::broker_error, "Topic was already Terminated")));
  EXPECT_FALSE(is_segment_gone(error(client_errc::service_not_ready)));
  EXPECT_FALSE(is_segment_gone(error(client_errc::connect_error)));
  EXPECT_FALSE(is_segment_gone(error(client_errc::timeout)));
}

TEST(st_producer_rules, segment_producers_are_named_after_the_st_producer) {
  producer_config config;
  config.producer_name = "orders-producer";
  config.properties["app"] = "x";
  segment_info seg;
  seg.id = 3;
  auto c = segment_producer_config(config, seg);
  EXPECT_EQ(c.producer_name, "orders-producer-seg-3");
  EXPECT_EQ(c.properties, (std::map<std::string, std::string>{{"app", "x"}}));
  EXPECT_FALSE(c.block_if_queue_full);
  seg.id = 7;
  seg.legacy_topic = "persistent://t/n/x-partition-0";
  auto legacy = segment_producer_config(config, seg);
  EXPECT_EQ(legacy.producer_name, "orders-producer-seg-7");
  EXPECT_EQ(legacy.properties.at("__pulsar.v5.managed"), "true");
  EXPECT_TRUE(segment_producer_config(producer_config{}, seg).producer_name.empty());
}

TEST(st_producer_rules, access_modes_carry_over) {
  for (auto mode : {producer_access_mode::shared, producer_access_mode::exclusive,
                    producer_access_mode::wait_for_exclusive, producer_access_mode::exclusive_with_fencing}) {
    producer_config config;
    config.access_mode = mode;
    EXPECT_EQ(segment_producer_config(config, segment_info{}).access_mode, mode);
  }
}

TEST(st_consumer_rules, segment_consumers_are_named_after_the_st_consumer) {
  segment_info seg;
  seg.id = 4;
  seg.topic = "segment://t/n/x/0000-ffff-4";
  auto o = segment_consumer_options(seg, "sub", subscription_type::exclusive, initial_position::earliest, "c", 10,
                                    std::chrono::milliseconds(5), {});
  EXPECT_EQ(o.topic, "segment://t/n/x/0000-ffff-4");
  EXPECT_EQ(o.subscription, "sub");
  EXPECT_EQ(o.config.type, subscription_type::exclusive);
  EXPECT_EQ(o.config.position, initial_position::earliest);
  EXPECT_EQ(o.config.consumer_name, "c-seg-4");
  EXPECT_EQ(o.config.receiver_queue_size, 10u);
  EXPECT_FALSE(o.config.properties.contains("__pulsar.v5.managed"));
  EXPECT_TRUE(segment_consumer_options(seg, "sub", subscription_type::shared, initial_position::latest, "", 10,
                                       std::chrono::milliseconds(5), {})
                  .config.consumer_name.empty());
}

TEST(st_consumer_rules, the_default_stream_consumer_name_is_random) {
  // (No std::regex: GCC 12 warns inside it under the sanitizers.)
  const auto a = random_stream_consumer_name();
  const std::string prefix = "v5-stream-";
  ASSERT_EQ(a.size(), prefix.size() + 8) << a;
  EXPECT_TRUE(a.starts_with(prefix)) << a;
  EXPECT_TRUE(std::all_of(a.begin() + static_cast<std::ptrdiff_t>(prefix.size()), a.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
  })) << a;
}

TEST(st_consumer_rules, only_previous_owners_count_as_rebalance_collisions) {
  EXPECT_TRUE(is_rebalance_collision(error(client_errc::consumer_busy)));
  EXPECT_TRUE(is_rebalance_collision(error(client_errc::broker_error, "SUBSCRIBE: busy (ConsumerAssignError)")));
  EXPECT_FALSE(is_rebalance_collision(error(client_errc::topic_not_found)));
  EXPECT_FALSE(is_rebalance_collision(error(client_errc::not_allowed)));
}

}  // namespace
}  // namespace magnetar::st::detail
