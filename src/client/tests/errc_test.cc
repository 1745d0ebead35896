#include "magnetar/errc.h"

#include <gtest/gtest.h>

#include <string_view>
#include <system_error>

namespace magnetar {
namespace {

TEST(client_errc, codes_carry_the_client_category_and_its_descriptions) {
  const std::error_code timeout = client_errc::timeout;
  EXPECT_EQ(std::string_view(timeout.category().name()), "magnetar.client");
  EXPECT_EQ(timeout.message(), "timed out");
  EXPECT_EQ(timeout.value(), static_cast<int>(client_errc::timeout));
  EXPECT_EQ(std::error_code(client_errc::topic_terminated).message(), "topic terminated");
}

TEST(client_errc, codes_made_apart_compare_equal) {
  EXPECT_EQ(std::error_code(client_errc::connection_closed), make_error_code(client_errc::connection_closed));
  EXPECT_NE(std::error_code(client_errc::connection_closed), std::error_code(client_errc::connect_error));
  // Same value, another category: not the same error.
  EXPECT_NE(std::error_code(client_errc::invalid_argument),
            std::error_code(static_cast<int>(client_errc::invalid_argument), std::generic_category()));
}

}  // namespace
}  // namespace magnetar
