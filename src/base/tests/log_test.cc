#include "base/log.h"

#include <gtest/gtest.h>

namespace magnetar::base {
namespace {

TEST(log_level, parses_every_spdlog_level_name) {
  EXPECT_EQ(parse_log_level("trace").value(), spdlog::level::trace);
  EXPECT_EQ(parse_log_level("warn").value(), spdlog::level::warn);
  EXPECT_EQ(parse_log_level("off").value(), spdlog::level::off);
}

TEST(log_level, rejects_an_unknown_name_and_lists_the_valid_ones) {
  auto r = parse_log_level("loud");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::invalid_argument);
  EXPECT_NE(r.error().detail().find("trace, debug, info"), std::string::npos);
}

TEST(log_level, environment_overrides_the_configured_level) {
  ::setenv(log_level_env.data(), "error", 1);
  ASSERT_TRUE(init_logging("log-test", "debug"));
  EXPECT_EQ(spdlog::get_level(), spdlog::level::err);
  ::unsetenv(log_level_env.data());
}

TEST(log_level, configured_level_applies_without_environment) {
  ::unsetenv(log_level_env.data());
  ASSERT_TRUE(init_logging("log-test", "debug"));
  EXPECT_EQ(spdlog::get_level(), spdlog::level::debug);
}

TEST(log_level, bad_environment_level_names_the_variable) {
  ::setenv(log_level_env.data(), "shouty", 1);
  auto r = init_logging("log-test");
  ::unsetenv(log_level_env.data());
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().detail().find("MAGNETAR_LOG_LEVEL"), std::string::npos);
}

}  // namespace
}  // namespace magnetar::base
