#include "io/file_system.h"

#include "io/page_cache.h"
#include "io/temp_directory.h"

#include <gtest/gtest.h>

#include <cstring>

namespace magnetar::io {
namespace {

std::span<const std::byte> bytes_of(std::string_view text) { return std::as_bytes(std::span(text)); }

std::string read_all(file& f) {
  std::string out(f.size().value(), '\0');
  auto got = f.read_at(0, std::as_writable_bytes(std::span(out)));
  out.resize(got.value());
  return out;
}

class posix_file_system_test : public ::testing::Test {
 protected:
  file_system& fs = posix_file_system();
  temp_directory dir{"posix-fs-test"};
};

TEST_F(posix_file_system_test, written_bytes_read_back_at_their_offsets) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("hello world")));
  ASSERT_TRUE(f->write_at(6, bytes_of("WORLD!")));
  ASSERT_TRUE(f->sync());
  EXPECT_EQ(read_all(*f), "hello WORLD!");
}

TEST_F(posix_file_system_test, an_allocated_range_extends_the_file_and_reads_as_zeros) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("abc")));
  ASSERT_TRUE(f->allocate(3, 8189));
  EXPECT_EQ(f->size().value(), 8192u);
  EXPECT_EQ(read_all(*f), "abc" + std::string(8189, '\0'));
}

TEST_F(posix_file_system_test, a_write_inside_an_allocated_range_keeps_the_files_size) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->allocate(0, 4096));
  ASSERT_TRUE(f->write_at(100, bytes_of("xyz")));
  ASSERT_TRUE(f->sync());
  EXPECT_EQ(f->size().value(), 4096u);
  EXPECT_EQ(read_all(*f).substr(99, 5), std::string("\0xyz\0", 5));
}

TEST_F(posix_file_system_test, zeros_written_around_the_cache_replace_what_the_range_held_and_nothing_else) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of(std::string(3 * 4096, 'x'))));  // cached, not yet synced
  ASSERT_TRUE(f->zero_uncached(4096, 4096));
  EXPECT_EQ(read_all(*f), std::string(4096, 'x') + std::string(4096, '\0') + std::string(4096, 'x'));
}

TEST_F(posix_file_system_test, zeros_written_around_the_cache_may_extend_the_file) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("abc")));
  ASSERT_TRUE(f->sync());
  ASSERT_TRUE(f->zero_uncached(4096, 2 << 20));
  EXPECT_EQ(f->size().value(), 4096u + (2 << 20));
  EXPECT_EQ(read_all(*f).substr(0, 4), std::string("abc\0", 4));
}

TEST_F(posix_file_system_test, dropped_synced_pages_leave_the_cache_and_read_back_from_disk) {
  if (in_memory_file_system(dir.path())) GTEST_SKIP() << dir.path() << " is in memory: its pages can't be dropped";
  auto f = fs.open(dir / "a", open_mode::create).value();
  const std::string data(1 << 20, 'd');
  ASSERT_TRUE(f->write_at(0, bytes_of(data)));
  ASSERT_TRUE(f->sync());
  ASSERT_EQ(cached_bytes(dir / "a").value(), data.size());
  f->drop_cached(0, 0);  // to the end
  EXPECT_EQ(cached_bytes(dir / "a").value(), 0u);
  EXPECT_EQ(read_all(*f), data);
}

TEST_F(posix_file_system_test, dropping_a_range_keeps_the_pages_after_it) {
  if (in_memory_file_system(dir.path())) GTEST_SKIP() << dir.path() << " is in memory: its pages can't be dropped";
  auto f = fs.open(dir / "a", open_mode::create).value();
  const std::string page(4096, 'p');
  for (std::uint64_t offset = 0; offset < (1 << 20); offset += page.size()) {
    ASSERT_TRUE(f->write_at(offset, bytes_of(page)));
  }
  ASSERT_TRUE(f->sync());
  f->drop_cached(0, 512 << 10);
  // The kernel drops only whole folios inside the range; those after it stay.
  const auto cached = cached_bytes(dir / "a").value();
  EXPECT_GE(cached, 512u << 10);
  EXPECT_LT(cached, 1u << 20);
}

TEST_F(posix_file_system_test, read_past_the_end_returns_fewer_bytes) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("abc")));
  std::byte out[10];
  EXPECT_EQ(f->read_at(1, out).value(), 2u);
  EXPECT_EQ(f->read_at(3, out).value(), 0u);
}

TEST_F(posix_file_system_test, open_of_a_missing_file_names_it) {
  auto f = fs.open(dir / "missing", open_mode::read_only);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error(), std::errc::no_such_file_or_directory);
  EXPECT_NE(f.error().message().find("missing"), std::string::npos);
}

TEST_F(posix_file_system_test, create_new_refuses_an_existing_file) {
  ASSERT_TRUE(fs.open(dir / "a", open_mode::create_new));
  auto again = fs.open(dir / "a", open_mode::create_new);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error(), std::errc::file_exists);
}

TEST_F(posix_file_system_test, rename_replaces_and_list_is_sorted) {
  ASSERT_TRUE(fs.open(dir / "b", open_mode::create));
  ASSERT_TRUE(fs.open(dir / "c.tmp", open_mode::create));
  ASSERT_TRUE(fs.rename(dir / "c.tmp", dir / "a"));
  ASSERT_TRUE(fs.sync_directory(dir.path()));
  EXPECT_EQ(fs.list(dir.path()).value(), (std::vector<std::string>{"a", "b"}));
  ASSERT_TRUE(fs.remove(dir / "b"));
  EXPECT_FALSE(fs.exists(dir / "b").value());
}

TEST_F(posix_file_system_test, truncate_shortens_the_file) {
  auto f = fs.open(dir / "a", open_mode::create).value();
  ASSERT_TRUE(f->write_at(0, bytes_of("abcdef")));
  ASSERT_TRUE(f->truncate(2));
  EXPECT_EQ(read_all(*f), "ab");
}

}  // namespace
}  // namespace magnetar::io
