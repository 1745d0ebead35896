#include "perf/bench/limit_pipeline.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace magnetar::perf {
namespace {

limit_options short_run() {
  limit_options o;
  o.duration = std::chrono::seconds(1);
  o.directory = std::filesystem::temp_directory_path().string();
  o.file_bytes = 4 << 20;  // small enough to wrap around in a second
  return o;
}

TEST(limit_pipeline, delivers_every_message_it_made_durable) {
  auto run = run_limit_pipeline(short_run());
  ASSERT_TRUE(run) << run.error();
  const auto& r = run.value();
  EXPECT_GT(r.sent, 0u);
  EXPECT_EQ(r.durable, r.sent);
  EXPECT_EQ(r.delivered, r.sent);
  EXPECT_GT(r.syncs, 0u);
  EXPECT_LE(r.syncs, r.sent);
  EXPECT_GT(delivered_rate(r), 0);
}

TEST(limit_pipeline, leaves_no_file_behind) {
  auto options = short_run();
  const auto dir = std::filesystem::temp_directory_path() / "magnetar-limit-test-dir";
  std::filesystem::create_directories(dir);
  options.directory = dir.string();
  ASSERT_TRUE(run_limit_pipeline(options));
  EXPECT_TRUE(std::filesystem::is_empty(dir));
  std::filesystem::remove_all(dir);
}

TEST(limit_pipeline, a_missing_directory_is_a_clear_error) {
  auto options = short_run();
  options.directory = "/nonexistent/magnetar-limit";
  auto run = run_limit_pipeline(options);
  ASSERT_FALSE(run);
  EXPECT_NE(run.error().message().find("/nonexistent/magnetar-limit"), std::string::npos);
}

TEST(limit_pipeline, the_summary_names_the_rate_and_the_syncs) {
  limit_options options;
  limit_results r{.sent = 2'000'000, .durable = 2'000'000, .delivered = 2'000'000, .syncs = 1000, .seconds = 2.0};
  const auto text = limit_summary(options, r);
  EXPECT_NE(text.find("1000000 msg/s"), std::string::npos) << text;
  EXPECT_NE(text.find("1000 syncs, 2000 msgs a sync"), std::string::npos) << text;
}

}  // namespace
}  // namespace magnetar::perf
