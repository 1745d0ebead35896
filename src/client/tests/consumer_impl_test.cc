// consumer_impl's checks that need no broker: a consumer that never subscribed (the
// client connects nothing until asked) answers them from its settings alone.
#include "client/consumer_impl.h"
#include "client/client_impl.h"
#include "client/service_url.h"
#include "magnetar/errc.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

std::shared_ptr<consumer_impl> unsubscribed(subscription_type type) {
  auto addresses = parse_service_url("pulsar://127.0.0.1:1");
  EXPECT_TRUE(addresses);
  auto client = std::make_shared<client_impl>(client_config{}, addresses.value());
  consumer_options options;
  options.topic = "persistent://public/default/t";
  options.subscription = "s";
  options.config.type = type;
  return std::make_shared<consumer_impl>(client, options);
}

TEST(consumer_impl, cumulative_acks_are_refused_on_shared_and_key_shared) {
  for (auto type : {subscription_type::shared, subscription_type::key_shared}) {
    auto r = unsubscribed(type)->acknowledge_cumulative(message_id(1, 1));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), client_errc::not_supported);
  }
}

TEST(consumer_impl, cumulative_acks_are_taken_on_exclusive_and_failover) {
  for (auto type : {subscription_type::exclusive, subscription_type::failover}) {
    EXPECT_TRUE(unsubscribed(type)->acknowledge_cumulative(message_id(1, 1)));
  }
}

}  // namespace
}  // namespace magnetar::client_detail
