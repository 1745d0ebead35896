#include "client/service_url.h"

#include "magnetar/errc.h"

#include <gtest/gtest.h>

namespace magnetar::client_detail {
namespace {

TEST(service_url, parses_host_and_port) {
  auto r = parse_service_url("pulsar://broker.example:6651");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r.value().size(), 1u);
  EXPECT_EQ(r.value()[0].host, "broker.example");
  EXPECT_EQ(r.value()[0].port, 6651);
  EXPECT_EQ(r.value()[0].to_string(), "broker.example:6651");
}

TEST(service_url, the_port_defaults_to_6650) {
  auto r = parse_service_url("pulsar://localhost/");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value()[0].port, 6650);
}

TEST(service_url, lists_every_host) {
  auto r = parse_service_url("pulsar://a:1,b:2,c");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r.value().size(), 3u);
  EXPECT_EQ(r.value()[1], (broker_address{"b", 2}));
  EXPECT_EQ(r.value()[2], (broker_address{"c", 6650}));
}

TEST(service_url, ipv6_hosts_are_bracketed) {
  auto r = parse_service_url("pulsar://[::1]:7000");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value()[0].host, "::1");
  EXPECT_EQ(r.value()[0].port, 7000);
}

TEST(service_url, pulsar_ssl_addresses_are_tls_with_6651_by_default) {
  auto r = parse_service_url("pulsar+ssl://a:7000,b");
  ASSERT_TRUE(r) << r.error();
  ASSERT_EQ(r.value().size(), 2u);
  EXPECT_TRUE(r.value()[0].tls);
  EXPECT_EQ(r.value()[0].port, 7000);
  EXPECT_EQ(r.value()[1].port, 6651);
  EXPECT_NE(r.value()[0].to_string(), "a:7000") << "a TLS address is not the plaintext one in the pool";
  EXPECT_FALSE(parse_service_url("pulsar://a").value()[0].tls);
}

TEST(service_url, other_schemes_are_refused) {
  for (const char* url : {"http://localhost:8080", "https://localhost:8443", "localhost:6650", ""}) {
    auto r = parse_service_url(url);
    ASSERT_FALSE(r) << url;
    EXPECT_EQ(r.error(), client_errc::invalid_service_url);
  }
}

TEST(service_url, bad_ports_are_refused) {
  for (const char* url : {"pulsar://h:0", "pulsar://h:70000", "pulsar://h:x", "pulsar://:6650"}) {
    EXPECT_FALSE(parse_service_url(url)) << url;
  }
}

TEST(service_url, a_broker_url_is_one_address) {
  EXPECT_TRUE(parse_broker_url("pulsar://h:1"));
  EXPECT_FALSE(parse_broker_url("pulsar://h:1,g:2"));
}

}  // namespace
}  // namespace magnetar::client_detail
