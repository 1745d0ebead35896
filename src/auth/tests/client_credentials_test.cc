#include "auth/client_credentials.h"

#include "auth/errc.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace magnetar::auth {
namespace {

TEST(client_credentials_test, token_parameters_in_each_of_upstreams_forms) {
  for (const char* params : {"token:abc.def.ghi", "abc.def.ghi", R"({"token": "abc.def.ghi"})"}) {
    auto credentials = client_credentials::from("org.apache.pulsar.client.impl.auth.AuthenticationToken", params);
    ASSERT_TRUE(credentials) << params;
    EXPECT_EQ(credentials.value().method(), "token");
    EXPECT_EQ(credentials.value().data().value(), "abc.def.ghi") << params;
    EXPECT_EQ(credentials.value().http_authorization().value(), "Bearer abc.def.ghi");
  }
}

TEST(client_credentials_test, a_token_file_is_read_at_each_use) {
  const auto path = std::filesystem::temp_directory_path() / ("token-" + std::to_string(::getpid()));
  std::ofstream(path) << "first\n";
  auto credentials = client_credentials::from("token", "file://" + path.string());
  ASSERT_TRUE(credentials) << credentials.error();
  EXPECT_EQ(credentials.value().data().value(), "first");
  std::ofstream(path) << "second";
  EXPECT_EQ(credentials.value().data().value(), "second");
  std::filesystem::remove(path);
  EXPECT_EQ(credentials.value().data().error(), errc::bad_token);
  EXPECT_EQ(client_credentials::from("token", "file://" + path.string()).error(), errc::bad_token);
}

TEST(client_credentials_test, the_tls_plugin_names_its_files_in_either_form) {
  auto listed = client_credentials::from("org.apache.pulsar.client.impl.auth.AuthenticationTls",
                                         "tlsCertFile:/c.pem,tlsKeyFile:/k.pem");
  ASSERT_TRUE(listed) << listed.error();
  EXPECT_EQ(listed.value().method(), "tls");
  EXPECT_EQ(listed.value().tls_certificate_file(), "/c.pem");
  EXPECT_EQ(listed.value().tls_key_file(), "/k.pem");
  EXPECT_EQ(listed.value().data().value(), "");
  auto json = client_credentials::from("tls", R"({"tlsCertFile": "/c.pem", "tlsKeyFile": "/k.pem"})").value();
  EXPECT_EQ(json.tls_key_file(), "/k.pem");
}

TEST(client_credentials_test, none_and_bad_parameters) {
  EXPECT_TRUE(client_credentials().empty());
  EXPECT_EQ(client_credentials().method(), "none");
  EXPECT_EQ(client_credentials::from("org.apache.pulsar.client.impl.auth.AuthenticationSasl", "x").error(),
            errc::unknown_method);
  EXPECT_EQ(client_credentials::from("token", "token:").error(), errc::bad_token);
  EXPECT_EQ(client_credentials::from("token", R"({"tok": "x"})").error(), errc::bad_token);
}

}  // namespace
}  // namespace magnetar::auth
