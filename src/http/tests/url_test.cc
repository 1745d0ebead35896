#include "http/url.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace magnetar::http {
namespace {

using ::testing::HasSubstr;

TEST(url_test, parses_host_port_and_prefix) {
  auto parsed = url::parse("http://broker.example:8081/pulsar");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().host, "broker.example");
  EXPECT_EQ(parsed.value().port, 8081);
  EXPECT_EQ(parsed.value().prefix, "/pulsar");
}

TEST(url_test, a_url_without_a_port_gets_the_default_port) {
  EXPECT_EQ(url::parse("http://broker").value().port, 80);
  EXPECT_EQ(url::parse("http://broker", 8080).value().port, 8080);
}

TEST(url_test, trailing_slashes_are_not_part_of_the_prefix) {
  EXPECT_EQ(url::parse("http://127.0.0.1:8080/").value().prefix, "");
  EXPECT_EQ(url::parse("http://127.0.0.1:8080/a/b//").value().prefix, "/a/b");
}

TEST(url_test, an_ipv6_host_is_given_in_brackets) {
  auto parsed = url::parse("http://[::1]:8080/x");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_EQ(parsed.value().host, "::1");
  EXPECT_EQ(parsed.value().port, 8080);
  EXPECT_EQ(parsed.value().prefix, "/x");
  EXPECT_EQ(url::parse("http://[fe80::1]").value().port, 80);
}

TEST(url_test, an_ipv6_host_without_brackets_is_refused) {
  auto parsed = url::parse("http://::1:8080");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("brackets"));
}

TEST(url_test, https_is_tls_and_defaults_to_port_443) {
  auto parsed = url::parse("https://broker:8443/p");
  ASSERT_TRUE(parsed) << parsed.error();
  EXPECT_TRUE(parsed.value().tls);
  EXPECT_EQ(parsed.value().port, 8443);
  EXPECT_EQ(parsed.value().to_string(), "https://broker:8443/p");
  EXPECT_EQ(url::parse("https://broker", 8080).value().port, 443);
  EXPECT_FALSE(url::parse("http://broker").value().tls);
}

TEST(url_test, the_error_names_the_url_as_the_caller_does) {
  auto parsed = url::parse("ftp://x", 8080, "admin URL");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().detail(), HasSubstr("bad admin URL 'ftp://x': expected http[s]://"));
}

TEST(url_test, a_text_without_the_http_scheme_is_refused) {
  EXPECT_FALSE(url::parse("broker:8080"));
  EXPECT_FALSE(url::parse("pulsar://broker:6650"));
}

TEST(url_test, a_port_that_is_not_one_is_refused) {
  EXPECT_THAT(url::parse("http://broker:99999").error().detail(), HasSubstr("'99999' is not a port"));
  EXPECT_FALSE(url::parse("http://broker:0"));
  EXPECT_FALSE(url::parse("http://broker:80x"));
  EXPECT_FALSE(url::parse("http://broker:"));
  EXPECT_FALSE(url::parse("http://[::1]:"));
}

TEST(url_test, a_url_without_a_host_is_refused) {
  EXPECT_THAT(url::parse("http://:8080").error().detail(), HasSubstr("no host"));
  EXPECT_FALSE(url::parse("http://"));
  EXPECT_FALSE(url::parse("http://[]:8080"));
}

TEST(url_test, an_unclosed_bracket_is_refused) {
  EXPECT_THAT(url::parse("http://[::1:8080").error().detail(), HasSubstr("unclosed '['"));
  EXPECT_FALSE(url::parse("http://[::1]8080"));
}

TEST(url_test, to_string_writes_the_port_and_brackets_an_ipv6_host) {
  EXPECT_EQ(url::parse("http://broker/p").value().to_string(), "http://broker:80/p");
  EXPECT_EQ(url::parse("http://[::1]:8080").value().to_string(), "http://[::1]:8080");
}

TEST(encode_path_segment_test, unreserved_characters_stay) { EXPECT_EQ(encode_path_segment("Az09-._~"), "Az09-._~"); }

TEST(encode_path_segment_test, everything_else_is_percent_encoded) {
  EXPECT_EQ(encode_path_segment("a/b?c#d e%"), "a%2Fb%3Fc%23d%20e%25");
  EXPECT_EQ(encode_path_segment("\xC3\xA9"), "%C3%A9");
}

}  // namespace
}  // namespace magnetar::http
