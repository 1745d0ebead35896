// store_test: reads, writes, versions, parents, children and removal.
#include "meta/errc.h"
#include "meta/tests/store_suite.h"

#include <gmock/gmock.h>

namespace magnetar::meta::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

std::int64_t ms_since_epoch(const base::clock& clock) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(clock.wall_now().time_since_epoch()).count();
}

TEST_P(store_test, get_of_a_missing_path_is_empty) {
  auto r = run(s->get("/missing"));
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(r.value().has_value());
}

TEST_P(store_test, put_then_get_returns_the_value_and_its_stat) {
  auto put = run(s->put("/ledgers/L1", "metadata bytes", std::nullopt));
  ASSERT_TRUE(put) << put.error();
  auto got = run(s->get("/ledgers/L1"));
  ASSERT_TRUE(got) << got.error();
  ASSERT_TRUE(got.value().has_value());
  EXPECT_EQ(got.value()->value, "metadata bytes");
  EXPECT_EQ(got.value()->st, put.value());
  EXPECT_EQ(put.value().path, "/ledgers/L1");
  EXPECT_FALSE(put.value().ephemeral);
  EXPECT_EQ(put.value().owner, no_session);
}

TEST_P(store_test, root_exists_and_reads_as_an_empty_node) {
  EXPECT_TRUE(run(s->exists("/")).value());
  auto root = run(s->get("/"));
  ASSERT_TRUE(root && root.value());
  EXPECT_EQ(root.value()->value, "");
  EXPECT_EQ(root.value()->st.path, "/");
  EXPECT_EQ(root.value()->st.version, 0);
}

TEST_P(store_test, values_are_binary_safe) {
  const std::string bytes("\0\x01\xff\0tail", 8);
  put_ok("/bin", bytes);
  auto got = run(s->get("/bin"));
  ASSERT_TRUE(got && got.value());
  EXPECT_EQ(got.value()->value, bytes);
}

TEST_P(store_test, exists_is_true_only_for_stored_nodes) {
  put_ok("/here");
  EXPECT_TRUE(run(s->exists("/here")).value());
  EXPECT_FALSE(run(s->exists("/not-here")).value());
}

TEST_P(store_test, version_starts_at_zero_and_grows_by_one_per_put) {
  EXPECT_EQ(put_ok("/v", "a").version, 0);
  EXPECT_EQ(put_ok("/v", "b").version, 1);
  EXPECT_EQ(put_ok("/v", "c").version, 2);
  EXPECT_EQ(run(s->get("/v")).value()->st.version, 2);
}

TEST_P(store_test, put_keeps_the_creation_time_and_moves_the_modification_time) {
  if (GetParam().server_clock) GTEST_SKIP() << "times are the server's clock here";
  const auto created_at = ms_since_epoch(clock);
  put_ok("/t", "a");
  clock.advance(std::chrono::seconds(5));
  auto second = put_ok("/t", "b");
  EXPECT_EQ(second.created_ms, created_at);
  EXPECT_EQ(second.modified_ms, created_at + 5000);
}

TEST_P(store_test, put_with_the_current_version_succeeds) {
  put_ok("/cas", "a");
  auto r = run(s->put("/cas", "b", 0));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().version, 1);
  EXPECT_EQ(run(s->get("/cas")).value()->value, "b");
}

TEST_P(store_test, put_with_a_stale_version_fails_with_bad_version_naming_both) {
  put_ok("/cas", "a");
  put_ok("/cas", "b");
  auto r = run(s->put("/cas", "c", 0));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::bad_version);
  EXPECT_THAT(r.error().detail(), HasSubstr("'/cas' is at version 1; expected version 0"));
  EXPECT_EQ(run(s->get("/cas")).value()->value, "b") << "the value is unchanged";
}

TEST_P(store_test, put_with_a_version_on_a_missing_node_fails_with_bad_version) {
  auto r = run(s->put("/absent", "x", 3));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::bad_version);
  EXPECT_THAT(r.error().detail(), HasSubstr("does not exist"));
  EXPECT_FALSE(run(s->exists("/absent")).value());
}

TEST_P(store_test, put_with_minus_one_creates_a_missing_node) {
  auto r = run(s->put("/once", "x", -1));
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().version, 0);
}

TEST_P(store_test, put_with_minus_one_on_an_existing_node_fails_with_bad_version) {
  put_ok("/once", "first");
  auto r = run(s->put("/once", "second", -1));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::bad_version);
  EXPECT_THAT(r.error().detail(), HasSubstr("'/once' exists"));
  EXPECT_EQ(run(s->get("/once")).value()->value, "first");
}

TEST_P(store_test, put_creates_missing_parents_as_empty_persistent_nodes) {
  put_ok("/a/b/c", "leaf");
  for (const char* parent : {"/a", "/a/b"}) {
    auto got = run(s->get(parent));
    ASSERT_TRUE(got && got.value()) << parent;
    EXPECT_EQ(got.value()->value, "") << parent;
    EXPECT_EQ(got.value()->st.version, 0) << parent;
    EXPECT_FALSE(got.value()->st.ephemeral) << parent;
  }
}

TEST_P(store_test, put_leaves_existing_parents_unchanged) {
  put_ok("/p", "parent value");
  put_ok("/p/child");
  auto parent = run(s->get("/p")).value();
  EXPECT_EQ(parent->value, "parent value");
  EXPECT_EQ(parent->st.version, 0);
}

TEST_P(store_test, children_are_names_in_sorted_order) {
  put_ok("/c/zeta");
  put_ok("/c/alpha");
  put_ok("/c/mid");
  EXPECT_THAT(children_ok("/c"), ElementsAre("alpha", "mid", "zeta"));
}

TEST_P(store_test, children_exclude_grandchildren_and_lookalike_siblings) {
  put_ok("/c/x/deep/deeper");
  put_ok("/c/y");
  put_ok("/cc/z");
  put_ok("/c-d/w");
  EXPECT_THAT(children_ok("/c"), ElementsAre("x", "y"));
}

TEST_P(store_test, children_of_a_missing_node_are_empty) { EXPECT_THAT(children_ok("/nothing/here"), IsEmpty()); }

TEST_P(store_test, children_of_the_root_are_the_top_level_nodes) {
  put_ok("/b/x");
  put_ok("/a");
  EXPECT_THAT(children_ok("/"), ElementsAre("a", "b"));
}

TEST_P(store_test, remove_deletes_the_node) {
  put_ok("/gone");
  auto r = run(s->remove("/gone", std::nullopt));
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(run(s->get("/gone")).value().has_value());
}

TEST_P(store_test, remove_of_a_missing_node_fails_with_not_found) {
  auto r = run(s->remove("/never", std::nullopt));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::not_found);
  EXPECT_THAT(r.error().detail(), HasSubstr("'/never'"));
}

TEST_P(store_test, remove_with_the_current_version_succeeds) {
  put_ok("/r");
  put_ok("/r");
  auto r = run(s->remove("/r", 1));
  ASSERT_TRUE(r) << r.error();
  EXPECT_FALSE(run(s->exists("/r")).value());
}

TEST_P(store_test, remove_with_a_stale_version_fails_with_bad_version) {
  put_ok("/r");
  put_ok("/r");
  auto r = run(s->remove("/r", 0));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::bad_version);
  EXPECT_THAT(r.error().detail(), HasSubstr("version 1; expected version 0"));
  EXPECT_TRUE(run(s->exists("/r")).value());
}

TEST_P(store_test, remove_of_a_node_with_children_fails_with_not_empty) {
  put_ok("/parent/child");
  auto r = run(s->remove("/parent", std::nullopt));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::not_empty);
  EXPECT_THAT(r.error().detail(), HasSubstr("'/parent'"));
  EXPECT_TRUE(run(s->exists("/parent/child")).value());
}

TEST_P(store_test, removed_node_can_be_created_again_from_version_zero) {
  put_ok("/again");
  put_ok("/again");
  ASSERT_TRUE(run(s->remove("/again", std::nullopt)));
  EXPECT_EQ(put_ok("/again").version, 0);
}

TEST_P(store_test, remove_recursive_deletes_the_node_and_everything_under_it) {
  put_ok("/tree/a/b/c");
  put_ok("/tree/a/d");
  put_ok("/tree/e");
  auto r = run(s->remove_recursive("/tree"));
  ASSERT_TRUE(r) << r.error();
  for (const char* path : {"/tree", "/tree/a", "/tree/a/b", "/tree/a/b/c", "/tree/a/d", "/tree/e"}) {
    EXPECT_FALSE(run(s->exists(path)).value()) << path;
  }
}

TEST_P(store_test, remove_recursive_keeps_siblings_that_share_a_prefix) {
  put_ok("/tree/a");
  put_ok("/treehouse/b");
  put_ok("/tree-2");
  ASSERT_TRUE(run(s->remove_recursive("/tree")));
  EXPECT_TRUE(run(s->exists("/treehouse/b")).value());
  EXPECT_TRUE(run(s->exists("/tree-2")).value());
  EXPECT_THAT(children_ok("/"), ElementsAre("tree-2", "treehouse"));
}

TEST_P(store_test, remove_recursive_of_a_missing_node_succeeds) {
  auto r = run(s->remove_recursive("/never/was"));
  EXPECT_TRUE(r) << r.error();
}

TEST_P(store_test, data_survives_stop_and_reopen) {
  put_ok("/durable/a", "one");
  put_ok("/durable/a", "two");
  put_ok("/durable/b", "three");
  reopen();
  auto a = run(s->get("/durable/a"));
  ASSERT_TRUE(a && a.value());
  EXPECT_EQ(a.value()->value, "two");
  EXPECT_EQ(a.value()->st.version, 1);
  EXPECT_THAT(children_ok("/durable"), ElementsAre("a", "b"));
}

}  // namespace
}  // namespace magnetar::meta::testing
