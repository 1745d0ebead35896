// The SDK against an in-process broker: producing, consuming, acks, batching, compression.
#include "client/tests/client_test_fixture.h"
#include "http/client.h"

#include <atomic>
#include <future>
#include <set>
#include <vector>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

consumer_config from_earliest(subscription_type type = subscription_type::exclusive) {
  consumer_config c;
  c.position = initial_position::earliest;
  c.type = type;
  return c;
}

producer_config unbatched() {
  producer_config c;
  c.batching_enabled = false;
  return c;
}

class produce_consume : public client_test {};

TEST_F(produce_consume, messages_arrive_in_order_with_key_properties_and_producer) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 10; ++i) {
    auto m = message_builder()
                 .payload("m" + std::to_string(i))
                 .key("k" + std::to_string(i % 3))
                 .property("i", std::to_string(i))
                 .event_time(1000 + static_cast<std::uint64_t>(i))
                 .build();
    ASSERT_TRUE(p.value().send(m));
  }
  message_id previous = message_id::earliest();
  for (int i = 0; i < 10; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), "m" + std::to_string(i));
    EXPECT_EQ(m.value().key(), "k" + std::to_string(i % 3));
    EXPECT_EQ(m.value().properties().at("i"), std::to_string(i));
    EXPECT_EQ(m.value().event_time(), 1000u + static_cast<std::uint64_t>(i));
    EXPECT_EQ(m.value().producer_name(), p.value().producer_name());
    EXPECT_EQ(m.value().topic(), topic());
    EXPECT_GT(m.value().publish_time(), 0u);
    EXPECT_LT(previous, m.value().id());
    previous = m.value().id();
  }
}

TEST_F(produce_consume, an_unbatched_send_returns_the_entry_id) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  auto first = p.value().send(text("a"));
  auto second = p.value().send(text("b"));
  ASSERT_TRUE(first) << first.error();
  ASSERT_TRUE(second) << second.error();
  EXPECT_FALSE(first.value().is_batched());
  EXPECT_LT(first.value(), second.value());
  EXPECT_EQ(p.value().last_sequence_id(), 1);
}

TEST_F(produce_consume, messages_batched_together_share_one_entry) {
  producer_config pc;
  pc.batching_max_delay = 1h;  // only flush() ends the batch
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 5; ++i) sent.push_back(p.value().send_future(text("m" + std::to_string(i))));
  ASSERT_TRUE(p.value().flush());
  std::vector<message_id> ids;
  for (auto& f : sent) {
    auto id = f.get();
    ASSERT_TRUE(id) << id.error();
    ids.push_back(id.value());
  }
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].entry(), ids[0].entry());
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].batch_index(), i);
    EXPECT_EQ(ids[static_cast<std::size_t>(i)].batch_size(), 5);
  }
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 5; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), "m" + std::to_string(i));
    EXPECT_EQ(m.value().id(), ids[static_cast<std::size_t>(i)]);
  }
}

TEST_F(produce_consume, a_full_batch_is_sent_without_waiting_for_the_delay) {
  producer_config pc;
  pc.batching_max_delay = 1h;
  pc.batching_max_messages = 3;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 3; ++i) sent.push_back(p.value().send_future(text("m")));
  for (auto& f : sent) ASSERT_TRUE(f.get());
}

class compressed : public client_test, public ::testing::WithParamInterface<compression_type> {};

TEST_P(compressed, compressed_batches_arrive_decompressed) {
  producer_config pc;
  pc.compression = GetParam();
  pc.batching_max_delay = 1h;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 20; ++i) sent.push_back(p.value().send_future(text(std::string(1000, 'a' + i))));
  ASSERT_TRUE(p.value().flush());
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 20; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), std::string(1000, 'a' + i));
  }
}

TEST_P(compressed, compressed_single_messages_arrive_decompressed) {
  producer_config pc = unbatched();
  pc.compression = GetParam();
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text(std::string(5000, 'z'))));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), std::string(5000, 'z'));
}

INSTANTIATE_TEST_SUITE_P(codecs, compressed, ::testing::Values(compression_type::lz4, compression_type::zstd));

TEST_F(produce_consume, sends_blocked_on_a_full_queue_go_on_as_receipts_free_room) {
  auto pc = unbatched();
  pc.max_pending_messages = 16;  // woken with 2 free
  pc.block_if_queue_full = true;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::atomic<int> acked{0};
  for (int i = 0; i < 300; ++i) {
    p.value().send_async(message_builder().payload(std::to_string(i)).build(), [&](result<message_id> id) {
      if (id) ++acked;
    });
  }
  ASSERT_TRUE(p.value().flush());
  EXPECT_EQ(acked.load(), 300);
}

TEST_F(produce_consume, key_based_batching_delivers_every_message) {
  producer_config pc;
  pc.batching = batching_type::key_based;
  pc.batching_max_delay = 1h;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 9; ++i) {
    sent.push_back(
        p.value().send_future(message_builder().payload(std::to_string(i)).key(std::to_string(i % 3)).build()));
  }
  ASSERT_TRUE(p.value().flush());
  for (auto& f : sent) ASSERT_TRUE(f.get());
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  std::multiset<std::string> got;
  for (int i = 0; i < 9; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(std::stoi(m.value().key()), std::stoi(std::string(m.value().payload())) % 3);
    got.insert(std::string(m.value().payload()));
  }
  EXPECT_EQ(got.size(), 9u);
}

TEST_F(produce_consume, a_small_receiver_queue_still_gets_every_message) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 100; ++i) sent.push_back(p.value().send_future(text(std::to_string(i))));
  for (auto& f : sent) ASSERT_TRUE(f.get());
  auto cc = from_earliest();
  cc.receiver_queue_size = 4;
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 100; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error() << " at " << i;
    EXPECT_EQ(m.value().payload(), std::to_string(i));
  }
}

TEST_F(produce_consume, acked_messages_are_not_delivered_again) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  {
    auto c = sdk->subscribe(topic(), "sub", from_earliest());
    ASSERT_TRUE(c) << c.error();
    for (int i = 0; i < 3; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      ASSERT_TRUE(c.value().acknowledge(m.value()));
    }
    ASSERT_TRUE(c.value().close());  // sends the grouped acks first
  }
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "3");
}

TEST_F(produce_consume, a_batch_is_acked_only_when_all_its_messages_are) {
  producer_config pc;
  pc.batching_max_delay = 1h;
  auto p = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(p) << p.error();
  std::vector<std::future<result<message_id>>> sent;
  for (int i = 0; i < 3; ++i) sent.push_back(p.value().send_future(text(std::to_string(i))));
  ASSERT_TRUE(p.value().flush());
  {
    auto c = sdk->subscribe(topic(), "sub", from_earliest());
    ASSERT_TRUE(c) << c.error();
    for (int i = 0; i < 2; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      ASSERT_TRUE(c.value().acknowledge(m.value()));
    }
    ASSERT_TRUE(c.value().close());
  }
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "0");  // the whole entry comes again
}

TEST_F(produce_consume, a_cumulative_ack_covers_everything_before) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  {
    auto c = sdk->subscribe(topic(), "sub", from_earliest());
    ASSERT_TRUE(c) << c.error();
    message last;
    for (int i = 0; i < 4; ++i) {
      auto m = c.value().receive(10s);
      ASSERT_TRUE(m) << m.error();
      last = m.value();
    }
    ASSERT_TRUE(c.value().acknowledge_cumulative(last));
    ASSERT_TRUE(c.value().close());
  }
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "4");
}

TEST_F(produce_consume, unacked_messages_come_again_on_redeliver) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(c.value().receive(10s));
  ASSERT_TRUE(c.value().redeliver_unacknowledged());
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "0");
  EXPECT_GE(m.value().redelivery_count(), 1u);
}

TEST_F(produce_consume, receive_async_gets_the_next_message) {
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  std::promise<result<message>> got;
  c.value().receive_async([&](result<message> m) { got.set_value(std::move(m)); });
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("hello")));
  auto m = got.get_future().get();
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "hello");
}

TEST_F(produce_consume, batch_receive_takes_up_to_its_limit) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  batch_receive_policy policy;
  policy.max_messages = 3;
  policy.timeout = 10s;
  auto batch = c.value().batch_receive(policy);
  ASSERT_TRUE(batch) << batch.error();
  ASSERT_EQ(batch.value().size(), 3u);
  EXPECT_EQ(batch.value()[2].payload(), "2");
}

TEST_F(produce_consume, a_blocked_batch_receive_returns_once_its_count_arrives) {
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  batch_receive_policy policy;
  policy.max_messages = 3;
  policy.timeout = 600s;  // far beyond the test's own limit: only the arrivals end the wait
  const auto start = std::chrono::steady_clock::now();
  auto received = std::async(std::launch::async, [&] { return c.value().batch_receive(policy); });
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  auto batch = received.get();
  ASSERT_TRUE(batch) << batch.error();
  EXPECT_EQ(batch.value().size(), 3u);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 300s);
}

TEST_F(produce_consume, a_batch_receive_with_no_timeout_takes_what_is_queued_without_waiting) {
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  const batch_receive_policy now{.max_messages = 10, .max_bytes = 1 << 20, .timeout = 0ms};
  auto none = c.value().batch_receive(now);
  ASSERT_TRUE(none) << none.error();
  EXPECT_TRUE(none.value().empty());
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  // Fewer than max_messages are ever queued: each call takes what has come so far.
  std::vector<std::string> got;
  while (got.size() < 5) {
    auto batch = c.value().batch_receive(now);
    ASSERT_TRUE(batch) << batch.error();
    for (const auto& m : batch.value()) got.push_back(std::string(m.payload()));
  }
  EXPECT_EQ(got, (std::vector<std::string>{"0", "1", "2", "3", "4"}));
}

TEST_F(produce_consume, receive_times_out_on_an_empty_topic) {
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(50ms);
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error(), client_errc::timeout);
}

TEST_F(produce_consume, a_second_consumer_on_an_exclusive_subscription_is_refused) {
  auto first = sdk->subscribe(topic(), "sub");
  ASSERT_TRUE(first) << first.error();
  auto second = sdk->subscribe(topic(), "sub");
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error(), client_errc::consumer_busy);
}

TEST_F(produce_consume, the_first_failover_consumer_is_told_it_is_active) {
  std::atomic<bool> active{false};
  auto cc = from_earliest(subscription_type::failover);
  cc.active_consumer_listener = [&](bool a) { active = a; };
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_TRUE(c) << c.error();
  EXPECT_TRUE(eventually([&] { return active.load(); }));
  EXPECT_TRUE(c.value().is_active());
}

TEST_F(produce_consume, the_broker_names_a_producer_without_a_name) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  EXPECT_FALSE(p.value().producer_name().empty());
  producer_config pc;
  pc.producer_name = "mine";
  auto named = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(named) << named.error();
  EXPECT_EQ(named.value().producer_name(), "mine");
}

TEST_F(produce_consume, a_wait_for_exclusive_producer_waits_past_the_operation_timeout_until_the_owner_goes) {
  producer_config exclusive;
  exclusive.access_mode = producer_access_mode::exclusive;
  auto owner = sdk->create_producer(topic(), exclusive);
  ASSERT_TRUE(owner) << owner.error();
  // A client whose operation timeout is short: the queued producer must outlast it.
  auto short_timeout = config;
  short_timeout.operation_timeout = std::chrono::milliseconds(300);
  auto other = client::create(service_url(), short_timeout);
  ASSERT_TRUE(other) << other.error();
  producer_config waiting;
  waiting.access_mode = producer_access_mode::wait_for_exclusive;
  auto waiter = std::async(std::launch::async, [&] { return other.value().create_producer(topic(), waiting); });
  EXPECT_EQ(waiter.wait_for(1s), std::future_status::timeout) << "created (or failed) while the owner is there";
  ASSERT_TRUE(owner.value().send(text("owner's")));
  ASSERT_TRUE(owner.value().close());
  auto created = waiter.get();
  ASSERT_TRUE(created) << created.error();
  ASSERT_TRUE(created.value().send(text("waiter's")));
  (void)other.value().close();
}

TEST_F(produce_consume, sends_after_close_fail) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().close());
  auto r = p.value().send(text("late"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::already_closed);
}

TEST_F(produce_consume, get_last_message_id_is_the_last_stored) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  message_id last;
  for (int i = 0; i < 3; ++i) {
    auto id = p.value().send(text("x"));
    ASSERT_TRUE(id) << id.error();
    last = id.value();
  }
  auto got = c.value().get_last_message_id();
  ASSERT_TRUE(got) << got.error();
  EXPECT_EQ(got.value().entry(), last.entry());
}

TEST_F(produce_consume, seek_to_a_message_id_delivers_from_there) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  std::vector<message_id> ids;
  for (int i = 0; i < 5; ++i) {
    auto id = p.value().send(text(std::to_string(i)));
    ASSERT_TRUE(id) << id.error();
    ids.push_back(id.value());
  }
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(c.value().receive(10s));
  ASSERT_TRUE(c.value().seek(ids[2]));
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "2");
}

TEST_F(produce_consume, seek_to_a_time_delivers_what_was_published_from_then) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("old")));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto old = c.value().receive(10s);
  ASSERT_TRUE(old) << old.error();
  // The next message is published strictly later than the first.
  ASSERT_TRUE(eventually([&] {
    return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                          std::chrono::system_clock::now().time_since_epoch())
                                          .count()) > old.value().publish_time();
  }));
  ASSERT_TRUE(p.value().send(text("new")));
  auto skipped = c.value().receive(10s);
  ASSERT_TRUE(skipped);
  ASSERT_TRUE(c.value().seek(old.value().publish_time() + 1));
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "new");
}

TEST_F(produce_consume, unsubscribe_deletes_the_subscription) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(text("before")));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  ASSERT_TRUE(c.value().unsubscribe());
  EXPECT_FALSE(c.value().is_connected());
  // A new subscription of the same name starts where it is told to, not at the old cursor.
  consumer_config latest;
  auto again = sdk->subscribe(topic(), "sub", latest);
  ASSERT_TRUE(again) << again.error();
  ASSERT_TRUE(p.value().send(text("after")));
  auto m = again.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  EXPECT_EQ(m.value().payload(), "after");
}

TEST_F(produce_consume, a_second_exclusive_producer_is_refused) {
  producer_config pc;
  pc.access_mode = producer_access_mode::exclusive;
  auto first = sdk->create_producer(topic(), pc);
  ASSERT_TRUE(first) << first.error();
  auto second = sdk->create_producer(topic(), pc);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error(), client_errc::producer_fenced);  // upstream's answer: no retry
}

TEST_F(produce_consume, a_sequence_id_set_by_the_application_is_kept) {
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  ASSERT_TRUE(p.value().send(message_builder().payload("x").sequence_id(100).build()));
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  auto m = c.value().receive(10s);
  ASSERT_TRUE(m) << m.error();
  ASSERT_TRUE(m.value().sequence_id());
  EXPECT_EQ(*m.value().sequence_id(), 100u);
}

TEST_F(produce_consume, automatic_sequence_ids_count_up_from_zero) {
  auto p = sdk->create_producer(topic());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(p.value().send(text("x")));
  EXPECT_EQ(p.value().last_sequence_id(), 2);
  auto c = sdk->subscribe(topic(), "sub", from_earliest());
  ASSERT_TRUE(c) << c.error();
  for (std::uint64_t i = 0; i < 3; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().sequence_id().value_or(999), i);
  }
}

TEST_F(produce_consume, dropping_the_last_consumer_handle_closes_it) {
  {
    auto c = sdk->subscribe(topic(), "sub");
    ASSERT_TRUE(c) << c.error();
  }
  // The exclusive subscription is free again once the broker handled the close.
  EXPECT_TRUE(eventually([&] { return sdk->subscribe(topic(), "sub").has_value(); }));
}

TEST_F(produce_consume, a_topic_that_is_not_partitioned_is_its_own_partition) {
  auto parts = sdk->get_partitions_for_topic(topic());
  ASSERT_TRUE(parts) << parts.error();
  ASSERT_EQ(parts.value().size(), 1u);
  EXPECT_EQ(parts.value()[0], topic());
}

TEST_F(produce_consume, a_partitioned_topic_lists_its_partitions) {
  const std::string name = topic();
  const std::string path = "/admin/v2/persistent/public/default/" + name.substr(name.rfind('/') + 1) + "/partitions";
  auto created = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port}, "PUT",
                                      path, "2");
  ASSERT_TRUE(created) << created.error();
  ASSERT_LT(created.value().status, 300) << created.value().body;
  auto parts = sdk->get_partitions_for_topic(name);
  ASSERT_TRUE(parts) << parts.error();
  ASSERT_EQ(parts.value().size(), 2u);
  EXPECT_EQ(parts.value()[1], name + "-partition-1");
}

TEST_F(produce_consume, a_bad_topic_name_is_refused) {
  auto p = sdk->create_producer("a/b/c/d/e");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error(), client_errc::invalid_topic_name);
}

}  // namespace
}  // namespace magnetar::client_testing
