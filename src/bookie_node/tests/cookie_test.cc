// check_cookies: a bookie's directories bound to its id, in the metadata store
// (the embedded one here; the cluster e2e test runs it on ZooKeeper).
#include "bookie_node/cookie.h"

#include "io/block_on.h"
#include "io/running_shards.h"
#include "io/temp_directory.h"
#include "meta/rocksdb_store.h"

#include <gmock/gmock.h>

#include <filesystem>

namespace magnetar::bookie_node {
namespace {

using ::testing::HasSubstr;

class cookies : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(io::block_on(shards[0], store.start())); }
  void TearDown() override { io::block_on(shards[0], store.stop()); }
  result<void> check(const std::string& id, const std::string& journal, const std::string& ledgers) {
    return io::block_on(shards[0], check_cookies(store, id, {journal}, {ledgers}));
  }

  io::temp_directory dir{"cookie-test"};
  io::running_shards shards{1};
  meta::rocksdb_store store{{.directory = dir / "meta"}};
};

TEST_F(cookies, a_first_start_writes_them_and_a_second_accepts_them) {
  ASSERT_TRUE(check("b1:3181", dir / "j1", dir / "l1"));
  EXPECT_TRUE(std::filesystem::exists(dir / "j1/magnetar-cookie.json"));
  EXPECT_TRUE(io::block_on(shards[0], store.exists("/ledgers/cookies/b1:3181")).value());
  auto again = check("b1:3181", dir / "j1", dir / "l1");
  EXPECT_TRUE(again) << again.error();
}

TEST_F(cookies, another_bookie_on_these_directories_is_refused) {
  ASSERT_TRUE(check("b1:3181", dir / "j1", dir / "l1"));
  auto other = check("b2:3181", dir / "j1", dir / "l1");
  ASSERT_FALSE(other);
  EXPECT_THAT(other.error().detail(), HasSubstr("belongs to bookie b1:3181"));
}

TEST_F(cookies, a_wiped_journal_is_refused) {
  ASSERT_TRUE(check("b1:3181", dir / "j1", dir / "l1"));
  std::filesystem::remove_all(dir / "j1");
  auto wiped = check("b1:3181", dir / "j1", dir / "l1");
  ASSERT_FALSE(wiped);
  EXPECT_THAT(wiped.error().detail(), HasSubstr("has no cookie"));
}

TEST_F(cookies, a_changed_directory_list_is_refused) {
  ASSERT_TRUE(check("b1:3181", dir / "j1", dir / "l1"));
  auto moved = check("b1:3181", dir / "j1", dir / "l2");
  ASSERT_FALSE(moved);
  EXPECT_THAT(moved.error().detail(), HasSubstr("differs from this bookie's settings"));
}

}  // namespace
}  // namespace magnetar::bookie_node
