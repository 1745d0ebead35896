// Clients that share io threads (client_resources) against an in-process broker.
#include "client/tests/client_test_fixture.h"

#include "magnetar/client_resources.h"

#include <future>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class shared_resources : public client_test {
 protected:
  client shared_client(const std::shared_ptr<client_resources>& resources) {
    client_config c = config;
    c.shared_resources = resources;
    auto created = client::create(service_url(), c);
    EXPECT_TRUE(created) << created.error();
    return std::move(created).value();
  }

  static void round_trip(client& producing, client& consuming, const std::string& topic, const std::string& text) {
    consumer_config from_earliest;
    from_earliest.position = initial_position::earliest;
    auto consumer = consuming.subscribe(topic, "sub", from_earliest);
    ASSERT_TRUE(consumer) << consumer.error();
    auto producer = producing.create_producer(topic);
    ASSERT_TRUE(producer) << producer.error();
    ASSERT_TRUE(producer.value().send(message_builder().payload(text).build()));
    auto got = consumer.value().receive(20s);
    ASSERT_TRUE(got) << got.error();
    EXPECT_EQ(got.value().payload(), text);
  }
};

TEST_F(shared_resources, clients_on_shared_threads_produce_and_consume) {
  auto resources = client_resources::create(2);
  EXPECT_EQ(resources->io_threads(), 2u);
  auto a = shared_client(resources);
  auto b = shared_client(resources);
  round_trip(a, b, topic(), "over shared threads");
}

TEST_F(shared_resources, closing_one_client_leaves_the_others_running) {
  auto resources = client_resources::create(1);
  auto a = shared_client(resources);
  auto b = shared_client(resources);
  ASSERT_TRUE(a.close());
  round_trip(b, b, topic(), "still running");
}

TEST_F(shared_resources, the_threads_outlive_the_callers_reference) {
  auto resources = client_resources::create(1);
  auto a = shared_client(resources);
  resources.reset();  // the client keeps the threads
  round_trip(a, a, topic(), "kept alive by the client");
}

TEST_F(shared_resources, a_blocking_call_on_a_shared_thread_is_refused) {
  auto resources = client_resources::create(1);
  auto a = shared_client(resources);
  auto b = shared_client(resources);
  auto consumer = b.subscribe(topic(), "sub");
  ASSERT_TRUE(consumer) << consumer.error();
  auto producer = a.create_producer(topic());
  ASSERT_TRUE(producer) << producer.error();
  // A send callback of client a runs on the shared thread, which client b's blocking
  // receive would need too.
  std::promise<bool> refused;
  producer.value().send_async(message_builder().payload("x").build(),
                              [&](result<message_id>) { refused.set_value(!consumer.value().receive(1ms)); });
  EXPECT_TRUE(refused.get_future().get());
}

}  // namespace
}  // namespace magnetar::client_testing
