// What the consumer features put on the wire and in messages, checked without a broker:
// subscription types and Key_Shared settings, acks with ack sets, redelivery of listed
// entries, dead letter and retry messages, and the settings subscribe refuses.
#include "client/commands.h"
#include "client/consumer_config_check.h"
#include "client/dead_letter.h"
#include "client/message_data.h"
#include "client/producer_batch.h"
#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <chrono>

namespace magnetar::client_detail {
namespace {

using namespace std::chrono_literals;

subscribe_request subscribe_of(subscription_type type) {
  subscribe_request r;
  r.topic = "persistent://public/default/t";
  r.subscription = "s";
  r.type = type;
  return r;
}

TEST(consumer_commands, shared_and_key_shared_subscribe_with_their_type) {
  EXPECT_EQ(subscribe_command(subscribe_of(subscription_type::shared)).subscribe().subtype(),
            proto::CommandSubscribe::Shared);
  EXPECT_EQ(subscribe_command(subscribe_of(subscription_type::failover)).subscribe().subtype(),
            proto::CommandSubscribe::Failover);
  EXPECT_EQ(subscribe_command(subscribe_of(subscription_type::key_shared)).subscribe().subtype(),
            proto::CommandSubscribe::Key_Shared);
}

TEST(consumer_commands, key_shared_meta_goes_with_key_shared_only) {
  EXPECT_FALSE(subscribe_command(subscribe_of(subscription_type::shared)).subscribe().has_keysharedmeta());
  auto c = subscribe_command(subscribe_of(subscription_type::key_shared));
  ASSERT_TRUE(c.subscribe().has_keysharedmeta());
  EXPECT_EQ(c.subscribe().keysharedmeta().keysharedmode(), proto::AUTO_SPLIT);
  EXPECT_EQ(c.subscribe().keysharedmeta().hashranges_size(), 0);
  EXPECT_FALSE(c.subscribe().keysharedmeta().allowoutoforderdelivery());
}

TEST(consumer_commands, sticky_key_shared_sends_its_hash_ranges) {
  auto r = subscribe_of(subscription_type::key_shared);
  r.key_shared.mode = key_shared_mode::sticky;
  r.key_shared.sticky_ranges = {{0, 999}, {30000, 65535}};
  r.key_shared.allow_out_of_order_delivery = true;
  const auto meta = subscribe_command(r).subscribe().keysharedmeta();
  EXPECT_EQ(meta.keysharedmode(), proto::STICKY);
  ASSERT_EQ(meta.hashranges_size(), 2);
  EXPECT_EQ(meta.hashranges(0).start(), 0);
  EXPECT_EQ(meta.hashranges(0).end(), 999);
  EXPECT_EQ(meta.hashranges(1).start(), 30000);
  EXPECT_EQ(meta.hashranges(1).end(), 65535);
  EXPECT_TRUE(meta.allowoutoforderdelivery());
}

TEST(consumer_commands, auto_split_sends_no_ranges_even_when_some_are_set) {
  auto r = subscribe_of(subscription_type::key_shared);
  r.key_shared.sticky_ranges = {{0, 10}};
  EXPECT_EQ(subscribe_command(r).subscribe().keysharedmeta().hashranges_size(), 0);
}

TEST(consumer_commands, an_ack_carries_each_entry_ack_set) {
  auto c = ack_command(3, proto::CommandAck::Individual,
                       std::vector<entry_ack>{{message_id(1, 2), {}}, {message_id(1, 3), {5}}});
  ASSERT_EQ(c.ack().message_id_size(), 2);
  EXPECT_EQ(c.ack().message_id(0).ack_set_size(), 0);
  ASSERT_EQ(c.ack().message_id(1).ack_set_size(), 1);
  EXPECT_EQ(c.ack().message_id(1).ack_set(0), 5);
  EXPECT_EQ(c.ack().message_id(1).entryid(), 3u);
  EXPECT_FALSE(c.ack().message_id(1).has_batch_index());
}

TEST(consumer_commands, redeliver_lists_entries) {
  auto c = redeliver_command(4, {message_id(1, 2), message_id(1, 7, 3)});
  const auto& r = c.redeliverunacknowledgedmessages();
  EXPECT_EQ(r.consumer_id(), 4u);
  ASSERT_EQ(r.message_ids_size(), 2);
  EXPECT_EQ(r.message_ids(1).entryid(), 7u);
  EXPECT_EQ(r.message_ids(1).partition(), 3);
  EXPECT_FALSE(r.message_ids(0).has_partition());
  EXPECT_EQ(redeliver_command(4).redeliverunacknowledgedmessages().message_ids_size(), 0);
}

TEST(consumer_commands, a_dead_letter_producer_asks_for_its_initial_subscription) {
  producer_request r;
  r.topic = "persistent://public/default/t-s-DLQ";
  EXPECT_FALSE(producer_command(r).producer().has_initial_subscription_name());
  r.initial_subscription_name = "init";
  EXPECT_EQ(producer_command(r).producer().initial_subscription_name(), "init");
}

TEST(consumer_commands, a_delayed_message_carries_deliver_at_time) {
  auto m = message_builder().payload("x").deliver_at(1'700'000'123'456).build();
  auto e = build_single(queued_message{message_data::share(m), 0, {}}, entry_context{"p", 1, compression_type::none});
  EXPECT_EQ(e.metadata.deliver_at_time(), 1'700'000'123'456);
  auto plain = message_builder().payload("x").build();
  EXPECT_FALSE(build_single(queued_message{message_data::share(plain), 0, {}}, entry_context{"p", 1, {}})
                   .metadata.has_deliver_at_time());
}

// A received message, as the consumer makes it.
message received(std::string payload, message_properties properties = {}) {
  auto d = std::make_shared<message_data>();
  d->payload = wire::shared_bytes::copy_of(std::as_bytes(std::span<const char>(payload.data(), payload.size())));
  d->key = "k";
  d->ordering_key = "ok";
  d->properties = std::move(properties);
  d->event_time = 77;
  d->id = message_id(3, 4, -1, 1, 2);
  d->id.set_topic_name("persistent://public/default/orders");
  d->redelivery_count = 5;
  return message_data::make(std::move(d));
}

TEST(dead_letter, default_topics_are_topic_dash_subscription_dash_suffix) {
  EXPECT_EQ(default_dead_letter_topic("persistent://public/default/t", "s"), "persistent://public/default/t-s-DLQ");
  EXPECT_EQ(default_retry_letter_topic("persistent://public/default/t", "s"), "persistent://public/default/t-s-RETRY");
}

TEST(dead_letter, a_dead_letter_keeps_payload_keys_properties_and_names_its_origin) {
  auto m = dead_letter_message(received("body", {{"a", "1"}}));
  EXPECT_EQ(m.payload(), "body");
  EXPECT_EQ(m.key(), "k");
  EXPECT_EQ(m.ordering_key(), "ok");
  EXPECT_EQ(m.event_time(), 77u);
  EXPECT_EQ(m.properties().at("a"), "1");
  EXPECT_EQ(m.properties().at("REAL_TOPIC"), "persistent://public/default/orders");
  EXPECT_EQ(m.properties().at("ORIGIN_MESSAGE_ID"), "3:4:-1:1");
  EXPECT_EQ(m.redelivery_count(), 0u);  // broker fields are the new topic's
}

TEST(dead_letter, an_origin_already_named_is_kept) {
  auto m = dead_letter_message(received("b", {{"REAL_TOPIC", "first"}, {"ORIGIN_MESSAGE_ID", "1:2:-1:-1"}}));
  EXPECT_EQ(m.properties().at("REAL_TOPIC"), "first");
  EXPECT_EQ(m.properties().at("ORIGIN_MESSAGE_ID"), "1:2:-1:-1");
}

TEST(dead_letter, a_retry_counts_reconsumes_and_is_delayed) {
  const auto before =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count();
  auto first = retry_message(received("b"), 5s);
  EXPECT_EQ(first.properties().at("RECONSUMETIMES"), "1");
  EXPECT_EQ(first.properties().at("DELAY_TIME"), "5000");
  EXPECT_EQ(reconsume_times_of(first), 1);
  const auto at = message_data::of(first).deliver_at_time;
  ASSERT_TRUE(at);
  EXPECT_GE(*at, static_cast<std::uint64_t>(before + 5000));
  auto second = retry_message(received("b", first.properties()), 1s);
  EXPECT_EQ(second.properties().at("RECONSUMETIMES"), "2");
}

TEST(dead_letter, a_reconsume_count_that_is_no_number_counts_zero) {
  EXPECT_EQ(reconsume_times_of(received("b", {{"RECONSUMETIMES", "x"}})), 0);
  EXPECT_EQ(reconsume_times_of(received("b")), 0);
}

TEST(consumer_config_check, the_defaults_pass) { EXPECT_TRUE(check_consumer_config(consumer_config{})); }

TEST(consumer_config_check, an_ack_timeout_is_off_or_at_least_one_second) {
  consumer_config c;
  c.ack_timeout = 999ms;
  auto r = check_consumer_config(c);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::invalid_argument);
  c.ack_timeout = 1s;
  EXPECT_TRUE(check_consumer_config(c));
  c.ack_timeout_tick = 0ms;
  EXPECT_FALSE(check_consumer_config(c));
}

TEST(consumer_config_check, sticky_ranges_must_be_within_the_hash_space_and_not_overlap) {
  consumer_config c;
  c.type = subscription_type::key_shared;
  c.key_shared_policy.mode = key_shared_mode::sticky;
  EXPECT_FALSE(check_consumer_config(c));  // none
  c.key_shared_policy.sticky_ranges = {{0, 65536}};
  EXPECT_FALSE(check_consumer_config(c));
  c.key_shared_policy.sticky_ranges = {{10, 5}};
  EXPECT_FALSE(check_consumer_config(c));
  c.key_shared_policy.sticky_ranges = {{100, 200}, {0, 100}};
  EXPECT_FALSE(check_consumer_config(c));
  c.key_shared_policy.sticky_ranges = {{101, 200}, {0, 100}};
  EXPECT_TRUE(check_consumer_config(c));
}

TEST(consumer_config_check, sticky_ranges_are_not_checked_on_other_types) {
  consumer_config c;
  c.key_shared_policy.mode = key_shared_mode::sticky;
  EXPECT_TRUE(check_consumer_config(c));
}

TEST(consumer_config_check, a_negative_max_redeliver_count_is_refused) {
  consumer_config c;
  c.dead_letter_policy.max_redeliver_count = -1;
  EXPECT_FALSE(check_consumer_config(c));
}

}  // namespace
}  // namespace magnetar::client_detail
