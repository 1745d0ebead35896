// The SDK on Shared and Key_Shared subscriptions.
#include "client/tests/client_test_fixture.h"

#include <set>

namespace magnetar::client_testing {
namespace {

using namespace std::chrono_literals;

class subscription_types : public client_test {
 protected:
  static consumer_config of_type(subscription_type type) {
    consumer_config c;
    c.type = type;
    c.position = initial_position::earliest;
    return c;
  }
  static producer_config unbatched() {
    producer_config c;
    c.batching_enabled = false;
    return c;
  }
};

#define SUBSCRIBE(var, ...)               \
  auto var = sdk->subscribe(__VA_ARGS__); \
  ASSERT_TRUE(var) << var.error()

TEST_F(subscription_types, cumulative_acks_are_refused_on_shared) {
  SUBSCRIBE(c, topic(), "sub", of_type(subscription_type::shared));
  auto r = c.value().acknowledge_cumulative(message_id(1, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::not_supported);
}

TEST_F(subscription_types, cumulative_acks_are_refused_on_key_shared) {
  SUBSCRIBE(c, topic(), "sub", of_type(subscription_type::key_shared));
  auto r = c.value().acknowledge_cumulative(message_id(1, 1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), client_errc::not_supported);
}

TEST_F(subscription_types, two_shared_consumers_split_the_messages) {
  SUBSCRIBE(a, topic(), "sub", of_type(subscription_type::shared));
  SUBSCRIBE(b, topic(), "sub", of_type(subscription_type::shared));
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(p.value().send(text(std::to_string(i))));
  std::set<std::string> got;
  while (got.size() < 20) {
    bool any = false;
    for (auto* c : {&a.value(), &b.value()}) {
      auto m = c->receive(100ms);
      if (!m) continue;
      any = true;
      got.insert(std::string(m.value().payload()));
      ASSERT_TRUE(c->acknowledge(m.value()));
    }
    if (!any) break;
  }
  EXPECT_EQ(got.size(), 20u);
}

TEST_F(subscription_types, a_nack_on_shared_brings_back_that_message_only) {
  auto cc = of_type(subscription_type::shared);
  cc.negative_ack_redelivery_delay = 100ms;
  SUBSCRIBE(c, topic(), "sub", cc);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (const char* s : {"0", "1", "2"}) ASSERT_TRUE(p.value().send(text(s)));
  for (int i = 0; i < 3; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    if (m.value().payload() == "1") {
      ASSERT_TRUE(c.value().negative_acknowledge(m.value()));
    } else {
      ASSERT_TRUE(c.value().acknowledge(m.value()));
    }
  }
  auto again = c.value().receive(10s);
  ASSERT_TRUE(again) << again.error();
  EXPECT_EQ(again.value().payload(), "1");
  EXPECT_EQ(again.value().redelivery_count(), 1u);
}

TEST_F(subscription_types, a_sticky_key_shared_consumer_over_every_hash_gets_every_key) {
  auto cc = of_type(subscription_type::key_shared);
  cc.key_shared_policy.mode = key_shared_mode::sticky;
  cc.key_shared_policy.sticky_ranges = {{0, 32767}, {32768, 65535}};
  SUBSCRIBE(c, topic(), "sub", cc);
  auto p = sdk->create_producer(topic(), unbatched());
  ASSERT_TRUE(p) << p.error();
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(p.value().send(message_builder().payload(std::to_string(i)).key("k" + std::to_string(i)).build()));
  }
  for (int i = 0; i < 10; ++i) {
    auto m = c.value().receive(10s);
    ASSERT_TRUE(m) << m.error();
    EXPECT_EQ(m.value().payload(), std::to_string(i));
  }
}

TEST_F(subscription_types, overlapping_sticky_ranges_are_refused_before_subscribing) {
  auto cc = of_type(subscription_type::key_shared);
  cc.key_shared_policy.mode = key_shared_mode::sticky;
  cc.key_shared_policy.sticky_ranges = {{0, 100}, {50, 200}};
  auto c = sdk->subscribe(topic(), "sub", cc);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error(), client_errc::invalid_argument);
}

}  // namespace
}  // namespace magnetar::client_testing
