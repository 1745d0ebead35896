#include "io/faulty_file_system.h"

#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <thread>

namespace magnetar::io {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) { return std::as_bytes(std::span(text)); }

class faulty_file_system_test : public ::testing::Test {
 protected:
  // What is on the real disk, read without the faulty layer.
  std::string on_disk(const std::string& name) {
    auto f = posix_file_system().open(dir / name, open_mode::read_only).value();
    std::string out(f->size().value(), '\0');
    out.resize(f->read_at(0, std::as_writable_bytes(std::span(out))).value());
    return out;
  }

  temp_directory dir{"faulty-fs-test"};
  faulty_file_system fs{posix_file_system(), 42};
};

TEST_F(faulty_file_system_test, crash_keeps_synced_writes_and_drops_unsynced_ones) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("synced;")));
  ASSERT_TRUE(f->sync());
  ASSERT_TRUE(f->write_at(7, bytes_of("lost;")));
  EXPECT_EQ(fs.unsynced_bytes(), 5u);
  fs.crash();
  EXPECT_EQ(on_disk("journal"), "synced;");
}

TEST_F(faulty_file_system_test, crash_restores_overwritten_synced_bytes) {
  auto f = fs.open(dir / "header", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("version=1")));
  ASSERT_TRUE(f->sync());
  ASSERT_TRUE(f->write_at(8, bytes_of("2 and more")));
  fs.crash();
  EXPECT_EQ(on_disk("header"), "version=1");
}

TEST_F(faulty_file_system_test, crash_undoes_an_unsynced_truncate) {
  auto f = fs.open(dir / "log", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("abcdef")));
  ASSERT_TRUE(f->sync());
  ASSERT_TRUE(f->truncate(2));
  fs.crash();
  EXPECT_EQ(on_disk("log"), "abcdef");
}

TEST_F(faulty_file_system_test, torn_crash_keeps_earlier_writes_and_a_strict_prefix_of_the_last) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("one;")));
  ASSERT_TRUE(f->sync());
  ASSERT_TRUE(f->write_at(4, bytes_of("two;")));
  ASSERT_TRUE(f->write_at(8, bytes_of("three-three-three;")));
  fs.crash(crash_mode::torn_last_write);
  const auto content = on_disk("journal");
  ASSERT_GE(content.size(), 8u);
  EXPECT_EQ(content.substr(0, 8), "one;two;");
  const auto tail = content.substr(8);
  EXPECT_LT(tail.size(), std::string("three-three-three;").size());
  EXPECT_EQ(std::string("three-three-three;").substr(0, tail.size()), tail);
}

TEST_F(faulty_file_system_test, files_opened_before_a_crash_fail_afterwards) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  fs.crash();
  auto written = f->write_at(0, bytes_of("x"));
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error(), std::errc::io_error);
  auto reopened = fs.open(dir / "journal", open_mode::read_write).value();
  EXPECT_TRUE(reopened->write_at(0, bytes_of("x")));
}

TEST_F(faulty_file_system_test, full_disk_refuses_growth_but_allows_overwrites) {
  auto f = fs.open(dir / "log", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("0123456789")));
  fs.set_free_space(4);
  ASSERT_TRUE(f->write_at(10, bytes_of("abcd")));
  auto full = f->write_at(14, bytes_of("e"));
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error(), std::errc::no_space_on_device);
  EXPECT_TRUE(f->write_at(0, bytes_of("ABCD"))) << "overwriting needs no new space";
  fs.set_free_space(std::nullopt);
  EXPECT_TRUE(f->write_at(14, bytes_of("e")));
}

TEST_F(faulty_file_system_test, failing_syncs_report_an_io_error_and_keep_data_unsynced) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("entry")));
  fs.fail_syncs(true);
  auto synced = f->sync();
  ASSERT_FALSE(synced);
  EXPECT_EQ(synced.error(), std::errc::io_error);
  fs.crash();
  EXPECT_EQ(on_disk("journal"), "");
}

TEST_F(faulty_file_system_test, renamed_file_keeps_its_unsynced_writes_tracked) {
  auto f = fs.open(dir / "cursor.tmp", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("state")));
  ASSERT_TRUE(fs.rename(dir / "cursor.tmp", dir / "cursor"));
  fs.crash();
  EXPECT_EQ(on_disk("cursor"), "");
}

TEST_F(faulty_file_system_test, held_sync_waits_until_released) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("entry")));
  fs.hold_syncs();
  std::thread syncer([&] { EXPECT_TRUE(f->sync()); });
  while (fs.syncs_waiting() == 0) std::this_thread::yield();
  EXPECT_EQ(fs.sync_count(), 0u);
  fs.release_syncs();
  syncer.join();
  EXPECT_EQ(fs.sync_count(), 1u);
}

TEST_F(faulty_file_system_test, held_sync_fails_when_a_crash_comes_first) {
  auto f = fs.open(dir / "journal", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("entry")));
  fs.hold_syncs();
  std::thread syncer([&] { EXPECT_EQ(f->sync().error(), std::errc::io_error); });
  while (fs.syncs_waiting() == 0) std::this_thread::yield();
  fs.crash();
  fs.release_syncs();
  syncer.join();
  EXPECT_EQ(on_disk("journal"), "");
}

}  // namespace
}  // namespace magnetar::io
