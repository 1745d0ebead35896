#include "perf/measure/device_state.h"

#include <gtest/gtest.h>

#include <unistd.h>
#include <fstream>
#include <string>

namespace magnetar::perf {
namespace {

class device_state_file : public ::testing::Test {
 protected:
  void SetUp() override {
    _dir = std::filesystem::temp_directory_path() / ("magnetar-device-state-" + std::to_string(::getpid()) + "-" +
                                                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(_dir);
  }
  void TearDown() override { std::filesystem::remove_all(_dir); }

  std::filesystem::path file(const std::string& name) const { return _dir / name; }

  void write_raw(const std::filesystem::path& path, const std::string& bytes) const {
    std::ofstream(path, std::ios::binary) << bytes;
  }
  std::string read_raw(const std::filesystem::path& path) const {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }

  std::filesystem::path _dir;
};

TEST_F(device_state_file, round_trips_the_values) {
  const std::vector<std::uint64_t> values{0, 1, 42, UINT64_MAX};
  ASSERT_TRUE(write_device_state(file("state.bin"), values));
  auto read = read_device_state(file("state.bin"));
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read.value(), values);
}

TEST_F(device_state_file, has_the_documented_layout) {
  ASSERT_TRUE(write_device_state(file("state.bin"), std::vector<std::uint64_t>{0x0102}));
  EXPECT_EQ(read_raw(file("state.bin")), std::string("MGDSTAT1\x01\0\0\0\0\0\0\0\x02\x01\0\0\0\0\0\0", 24));
}

TEST_F(device_state_file, replaces_an_existing_file_and_leaves_no_temporary) {
  write_raw(file("state.bin"), "old");
  ASSERT_TRUE(write_device_state(file("state.bin"), std::vector<std::uint64_t>{7}));
  EXPECT_EQ(read_device_state(file("state.bin")).value(), std::vector<std::uint64_t>{7});
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(_dir)) ++entries;
  EXPECT_EQ(entries, 1);
}

TEST_F(device_state_file, an_empty_state_round_trips) {
  ASSERT_TRUE(write_device_state(file("state.bin"), std::vector<std::uint64_t>{}));
  EXPECT_TRUE(read_device_state(file("state.bin")).value().empty());
}

TEST_F(device_state_file, writing_into_a_missing_directory_is_an_io_error) {
  const auto written = write_device_state(file("no/such/state.bin"), std::vector<std::uint64_t>{1});
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code(), base::errc::io_error);
}

TEST_F(device_state_file, a_missing_file_is_an_io_error_naming_it) {
  const auto read = read_device_state(file("absent.bin"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), base::errc::io_error);
  EXPECT_NE(read.error().message().find("absent.bin"), std::string::npos);
}

TEST_F(device_state_file, another_magic_is_rejected) {
  write_raw(file("state.bin"), std::string("MGDSTAT2\0\0\0\0\0\0\0\0", 16));
  const auto read = read_device_state(file("state.bin"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), base::errc::invalid_argument);
  EXPECT_NE(read.error().message().find("bad magic"), std::string::npos) << read.error().message();
}

TEST_F(device_state_file, a_file_cut_in_the_header_is_truncated) {
  write_raw(file("state.bin"), "MGDSTAT1\x02");
  const auto read = read_device_state(file("state.bin"));
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("truncated"), std::string::npos) << read.error().message();
}

TEST_F(device_state_file, a_file_cut_in_the_values_is_truncated) {
  ASSERT_TRUE(write_device_state(file("state.bin"), std::vector<std::uint64_t>{1, 2, 3}));
  const std::string bytes = read_raw(file("state.bin"));
  write_raw(file("state.bin"), bytes.substr(0, bytes.size() - 5));
  const auto read = read_device_state(file("state.bin"));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code(), base::errc::invalid_argument);
  EXPECT_NE(read.error().message().find("truncated"), std::string::npos) << read.error().message();
}

TEST_F(device_state_file, more_values_than_the_count_is_a_count_mismatch) {
  ASSERT_TRUE(write_device_state(file("state.bin"), std::vector<std::uint64_t>{1, 2}));
  write_raw(file("state.bin"), read_raw(file("state.bin")) + std::string(8, '\0'));
  const auto read = read_device_state(file("state.bin"));
  ASSERT_FALSE(read);
  EXPECT_NE(read.error().message().find("count mismatch"), std::string::npos) << read.error().message();
}

TEST(compare_device_state, equal_states_miss_nothing) {
  const std::vector<std::uint64_t> state{3, 0, 5};
  const auto report = compare_device_state(state, state).value();
  EXPECT_EQ(report.missing_messages, 0u);
  EXPECT_EQ(report.devices_missing, 0u);
  EXPECT_TRUE(report.samples.empty());
}

TEST(compare_device_state, finds_one_missing_tail_message) {
  const std::vector<std::uint64_t> gateways{10, 10, 10};
  const std::vector<std::uint64_t> application{10, 9, 10};
  const auto report = compare_device_state(gateways, application).value();
  EXPECT_EQ(report.missing_messages, 1u);
  EXPECT_EQ(report.devices_missing, 1u);
  ASSERT_EQ(report.samples.size(), 1u);
  EXPECT_EQ(report.samples[0], "device 1: sent 0..9, received 0..8 (1 missing)");
}

TEST(compare_device_state, an_application_ahead_of_the_gateways_misses_nothing) {
  const auto report = compare_device_state(std::vector<std::uint64_t>{4}, std::vector<std::uint64_t>{5}).value();
  EXPECT_EQ(report.missing_messages, 0u);
}

TEST(compare_device_state, a_device_with_nothing_received_says_none) {
  const auto report = compare_device_state(std::vector<std::uint64_t>{2}, std::vector<std::uint64_t>{0}).value();
  ASSERT_EQ(report.samples.size(), 1u);
  EXPECT_EQ(report.samples[0], "device 0: sent 0..1, received none (2 missing)");
}

TEST(compare_device_state, keeps_twenty_samples_but_counts_every_device) {
  const std::vector<std::uint64_t> gateways(50, 3);
  const std::vector<std::uint64_t> application(50, 1);
  const auto report = compare_device_state(gateways, application).value();
  EXPECT_EQ(report.missing_messages, 100u);
  EXPECT_EQ(report.devices_missing, 50u);
  EXPECT_EQ(report.samples.size(), max_missing_samples);
}

TEST(compare_device_state, states_of_different_lengths_are_rejected) {
  const auto report = compare_device_state(std::vector<std::uint64_t>{1, 2}, std::vector<std::uint64_t>{1});
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code(), base::errc::invalid_argument);
}

}  // namespace
}  // namespace magnetar::perf
