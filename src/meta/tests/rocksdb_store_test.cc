// rocksdb_store: the behaviour suite, plus what only the embedded backend does
// (its directory, its lock, its on-disk format).
#include "meta/rocksdb_store.h"

#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/errc.h"
#include "meta/rocksdb_layout.h"
#include "meta/tests/store_suite.h"

#include <gmock/gmock.h>
#include <rocksdb/db.h>

#include <fstream>

namespace magnetar::meta {

namespace testing {
namespace {

class rocksdb_location final : public store_location {
 public:
  std::unique_ptr<store> open(base::clock& clock) override {
    return std::make_unique<rocksdb_store>(rocksdb_store::options{.directory = _dir / "meta", .clock = clock});
  }

 private:
  io::temp_directory _dir{"magnetar-meta-test"};
};

// Each test gets a fresh directory under the system's temp dir, removed after it.
INSTANTIATE_TEST_SUITE_P(embedded, store_test,
                         ::testing::Values(store_backend{
                             .name = "rocksdb", .make_location = [] { return std::make_unique<rocksdb_location>(); }}),
                         backend_name);

}  // namespace
}  // namespace testing

namespace {

using ::testing::HasSubstr;

class rocksdb_store_test : public ::testing::Test {
 protected:
  std::unique_ptr<rocksdb_store> make(std::string directory) {
    return std::make_unique<rocksdb_store>(rocksdb_store::options{.directory = std::move(directory), .clock = clock});
  }
  // Writes raw bytes under `key`, as a broken or foreign writer would.
  void write_raw(const std::string& directory, const std::string& key, const std::string& value) {
    rocksdb::DB* raw = nullptr;
    rocksdb::Options options;
    options.create_if_missing = true;
    ASSERT_TRUE(rocksdb::DB::Open(options, directory, &raw).ok());
    std::unique_ptr<rocksdb::DB> db(raw);
    ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), key, value).ok());
    ASSERT_TRUE(db->Close().ok());
  }

  base::manual_clock clock;
  io::temp_directory dir{"magnetar-meta-test"};
  io::running_shards shards{1};
};

TEST_F(rocksdb_store_test, start_creates_a_missing_directory) {
  auto s = make(dir / "not/yet/there");
  auto started = io::block_on(shards[0], s->start());
  EXPECT_TRUE(started) << started.error();
  EXPECT_TRUE(std::filesystem::is_directory(dir / "not/yet/there"));
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, start_fails_with_backend_error_when_the_directory_is_a_file) {
  std::ofstream(dir / "file") << "not a directory";
  auto s = make(dir / "file");
  auto started = io::block_on(shards[0], s->start());
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error(), errc::backend_error);
  EXPECT_THAT(started.error().detail(), HasSubstr(dir / "file"));
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, second_store_on_the_same_directory_fails_to_start) {
  auto first = make(dir / "meta");
  ASSERT_TRUE(io::block_on(shards[0], first->start()));
  auto second = make(dir / "meta");
  auto started = io::block_on(shards[0], second->start());
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error(), errc::backend_error);
  EXPECT_THAT(started.error().detail(), HasSubstr("lock"));
  io::block_on(shards[0], second->stop());
  io::block_on(shards[0], first->stop());
}

TEST_F(rocksdb_store_test, operations_before_start_fail_with_not_started) {
  auto s = make(dir / "meta");
  auto got = io::block_on(shards[0], s->get("/a"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::not_started);
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, database_of_another_layout_is_refused) {
  write_raw(dir / "meta", std::string(rocksdb_layout::layout_key), rocksdb_layout::encode_u64(99));
  auto s = make(dir / "meta");
  auto started = io::block_on(shards[0], s->start());
  ASSERT_FALSE(started);
  EXPECT_EQ(started.error(), errc::corrupt_record);
  EXPECT_THAT(started.error().detail(), HasSubstr("has layout 99; this build reads layout 1"));
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, corrupt_record_is_reported_with_its_path) {
  write_raw(dir / "meta", rocksdb_layout::node_key("/broken"), "\x07garbage");
  auto s = make(dir / "meta");
  ASSERT_TRUE(io::block_on(shards[0], s->start()));
  auto got = io::block_on(shards[0], s->get("/broken"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::corrupt_record);
  EXPECT_THAT(got.error().detail(), HasSubstr("node '/broken': record format 7"));
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, store_on_a_shared_pool_runs_there) {
  io::blocking_pool pool(1);
  auto s =
      std::make_unique<rocksdb_store>(rocksdb_store::options{.directory = dir / "meta", .clock = clock, .pool = &pool});
  ASSERT_TRUE(io::block_on(shards[0], s->start()));
  auto put = io::block_on(shards[0], s->put("/a", "x", std::nullopt));
  EXPECT_TRUE(put) << put.error();
  io::block_on(shards[0], s->stop());
}

// ZooKeeper restarts the counter of a re-created parent; the embedded store
// keeps it, so a sequential name is never handed out twice.
TEST_F(rocksdb_store_test, sequential_names_do_not_repeat_when_the_parent_is_recreated) {
  auto s = make(dir / "meta");
  ASSERT_TRUE(io::block_on(shards[0], s->start()));
  auto first = io::block_on(shards[0], s->put("/q/n-", "", std::nullopt, {.sequential = true}));
  ASSERT_TRUE(first);
  ASSERT_TRUE(io::block_on(shards[0], s->remove_recursive("/q")));
  auto second = io::block_on(shards[0], s->put("/q/n-", "", std::nullopt, {.sequential = true}));
  ASSERT_TRUE(second) << second.error();
  EXPECT_EQ(first.value().path, "/q/n-0000000000");
  EXPECT_EQ(second.value().path, "/q/n-0000000001");
  io::block_on(shards[0], s->stop());
}

TEST_F(rocksdb_store_test, destroying_a_started_store_without_stop_keeps_its_writes) {
  {
    auto s = make(dir / "meta");
    ASSERT_TRUE(io::block_on(shards[0], s->start()));
    ASSERT_TRUE(io::block_on(shards[0], s->put("/kept", "x", std::nullopt)));
  }
  auto s = make(dir / "meta");
  ASSERT_TRUE(io::block_on(shards[0], s->start()));
  EXPECT_TRUE(io::block_on(shards[0], s->exists("/kept")).value());
  io::block_on(shards[0], s->stop());
}

}  // namespace
}  // namespace magnetar::meta
