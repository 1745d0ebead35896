#include "broker/api/advertised_listeners.h"

#include "broker/api/errc.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace magnetar::broker {
namespace {

using ::testing::HasSubstr;

TEST(advertised_listeners, a_name_gathers_its_urls_of_each_scheme) {
  auto parsed = parse_advertised_listeners(
      "internal:pulsar://10.0.0.5:6650, external:pulsar://b.example.com:6650,external:pulsar+ssl://b.example.com:6651,"
      "external:http://b.example.com:8080");
  ASSERT_TRUE(parsed) << parsed.error();
  ASSERT_EQ(parsed.value().size(), 2u);
  EXPECT_EQ(parsed.value()[0].name, "internal");
  EXPECT_EQ(parsed.value()[0].broker_url, "pulsar://10.0.0.5:6650");
  const auto& external = parsed.value()[1];
  EXPECT_EQ(external.broker_url, "pulsar://b.example.com:6650");
  EXPECT_EQ(external.broker_url_tls, "pulsar+ssl://b.example.com:6651");
  EXPECT_EQ(external.http_url, "http://b.example.com:8080");
  EXPECT_TRUE(external.https_url.empty());
}

TEST(advertised_listeners, an_entry_without_a_name_is_refused) {
  auto parsed = parse_advertised_listeners("pulsar://h:6650");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("scheme must be"));
}

TEST(advertised_listeners, an_unknown_scheme_is_refused) {
  EXPECT_FALSE(parse_advertised_listeners("a:kafka://h:9092"));
}

TEST(advertised_listeners, a_url_without_a_port_is_refused) {
  auto parsed = parse_advertised_listeners("a:pulsar://h");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("host:port"));
}

TEST(advertised_listeners, two_urls_of_one_scheme_for_a_name_are_refused) {
  EXPECT_FALSE(parse_advertised_listeners("a:pulsar://h:1,a:pulsar://h:2"));
}

TEST(advertised_listeners, two_listeners_on_one_address_are_refused) {
  auto parsed = parse_advertised_listeners("a:pulsar://h:1,b:pulsar://h:1");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("h:1"));
}

TEST(advertised_listeners, the_internal_listener_is_the_named_one_else_the_first) {
  auto listeners = parse_advertised_listeners("a:pulsar://h:1,b:pulsar://h:2").value();
  EXPECT_EQ(internal_listener(listeners, "")->name, "a");
  EXPECT_EQ(internal_listener(listeners, "b")->name, "b");
  EXPECT_EQ(internal_listener(listeners, "c"), nullptr);
  EXPECT_EQ(internal_listener({}, ""), nullptr);
}

TEST(advertised_listeners, a_lookup_without_a_name_answers_the_defaults) {
  const lookup_urls defaults{.broker_url = "pulsar://d:6650", .http_url = "http://d:8080"};
  auto urls = lookup_urls_for({}, "", defaults);
  ASSERT_TRUE(urls);
  EXPECT_EQ(urls.value().broker_url, "pulsar://d:6650");
}

TEST(advertised_listeners, a_named_lookup_answers_the_listeners_urls_over_the_defaults) {
  auto listeners = parse_advertised_listeners("ext:pulsar://e:7000").value();
  const lookup_urls defaults{.broker_url = "pulsar://d:6650", .http_url = "http://d:8080"};
  auto urls = lookup_urls_for(listeners, "ext", defaults);
  ASSERT_TRUE(urls);
  EXPECT_EQ(urls.value().broker_url, "pulsar://e:7000");
  EXPECT_EQ(urls.value().http_url, "http://d:8080");
}

TEST(advertised_listeners, an_unknown_listener_is_not_ready_with_upstreams_message) {
  auto urls = lookup_urls_for({}, "nope", {});
  ASSERT_FALSE(urls);
  EXPECT_EQ(urls.error(), errc::service_not_ready);
  EXPECT_EQ(urls.error().detail(), "the broker do not have nope listener");
}

}  // namespace
}  // namespace magnetar::broker
