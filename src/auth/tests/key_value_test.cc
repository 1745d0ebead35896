#include "auth/key_value.h"

#include "auth/errc.h"
#include "auth/key_generation.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <fstream>

namespace magnetar::auth {
namespace {

TEST(key_value_test, a_file_url_gives_the_files_bytes_untouched) {
  io::temp_directory dir("key-value-test");
  const std::string bytes("\x00\x01secret\n", 9);
  std::ofstream(dir / "k", std::ios::binary) << bytes;
  EXPECT_EQ(read_key_value("file://" + (dir / "k")).value(), bytes);
  EXPECT_EQ(read_key_value(dir / "k").value(), bytes) << "a plain path, as upstream";
}

TEST(key_value_test, a_data_url_gives_its_decoded_data) {
  EXPECT_EQ(read_key_value("data:;base64,c2VjcmV0").value(), "secret");
  EXPECT_EQ(read_key_value("data:,plain").value(), "plain");
}

TEST(key_value_test, other_text_is_taken_as_base64) { EXPECT_EQ(read_key_value("c2VjcmV0").value(), "secret"); }

TEST(key_value_test, a_missing_file_is_named) {
  const auto read = read_key_value("file:///nonexistent/key");
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error(), errc::bad_key);
  EXPECT_NE(read.error().message().find("/nonexistent/key"), std::string::npos);
}

TEST(key_value_test, text_that_is_neither_a_file_nor_base64_is_refused) {
  EXPECT_EQ(read_key_value("not base64 at all!").error(), errc::bad_key);
}

TEST(key_value_test, base64_round_trips_binary_bytes) {
  const std::string bytes("\x00\xff\x10 binary", 10);
  EXPECT_EQ(base64_decoded(base64_encoded(bytes)).value(), bytes);
}

TEST(key_value_test, der_and_pem_keys_both_become_pem) {
  const auto pair = generate_key_pair("RS256").value();
  const auto public_pem = as_pem_public_key(pair.public_der).value();
  EXPECT_TRUE(public_pem.starts_with("-----BEGIN PUBLIC KEY-----"));
  EXPECT_EQ(as_pem_public_key(public_pem).value(), public_pem);
  EXPECT_TRUE(as_pem_private_key(pair.private_der).value().starts_with("-----BEGIN PRIVATE KEY-----"));
  EXPECT_EQ(as_pem_public_key("not a key").error(), errc::bad_key);
  EXPECT_EQ(as_pem_private_key(pair.public_der).error(), errc::bad_key) << "a public key is no private key";
}

}  // namespace
}  // namespace magnetar::auth
