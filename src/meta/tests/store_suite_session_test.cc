// store_test: sequential creates, sessions and ephemeral nodes.
#include "meta/errc.h"
#include "meta/tests/store_suite.h"

#include <gmock/gmock.h>

namespace magnetar::meta::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

result<stat> sequential(store& s, io::shard& on, const std::string& prefix, create_options options = {}) {
  options.sequential = true;
  return io::block_on(on, s.put(prefix, "", std::nullopt, options));
}

TEST_P(store_test, sequential_puts_get_increasing_zero_padded_names) {
  auto first = sequential(*s, shards[0], "/queue/item-");
  auto second = sequential(*s, shards[0], "/queue/item-");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first.value().path, "/queue/item-0000000000");
  EXPECT_EQ(second.value().path, "/queue/item-0000000001");
  EXPECT_THAT(children_ok("/queue"), ElementsAre("item-0000000000", "item-0000000001"));
}

TEST_P(store_test, sequential_prefix_may_end_at_the_parent) {
  auto r = sequential(*s, shards[0], "/queue/");
  ASSERT_TRUE(r) << r.error();
  EXPECT_EQ(r.value().path, "/queue/0000000000");
}

TEST_P(store_test, sequential_counter_is_shared_by_all_prefixes_of_a_parent) {
  auto a = sequential(*s, shards[0], "/locks/read-");
  auto b = sequential(*s, shards[0], "/locks/write-");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a.value().path, "/locks/read-0000000000");
  EXPECT_EQ(b.value().path, "/locks/write-0000000001");
}

TEST_P(store_test, sequential_names_keep_increasing_after_deletes) {
  auto first = sequential(*s, shards[0], "/q/n-");
  ASSERT_TRUE(first);
  ASSERT_TRUE(run(s->remove(first.value().path, std::nullopt)));
  auto second = sequential(*s, shards[0], "/q/n-");
  ASSERT_TRUE(second);
  EXPECT_GT(second.value().path, first.value().path);
}

TEST_P(store_test, sequential_names_keep_increasing_across_reopen) {
  ASSERT_TRUE(sequential(*s, shards[0], "/q/n-"));
  ASSERT_TRUE(sequential(*s, shards[0], "/q/n-"));
  reopen();
  auto next = sequential(*s, shards[0], "/q/n-");
  ASSERT_TRUE(next) << next.error();
  EXPECT_EQ(next.value().path, "/q/n-0000000002");
}

TEST_P(store_test, sequential_put_rejects_an_invalid_prefix) {
  auto r = sequential(*s, shards[0], "q/n-");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::invalid_path);
  EXPECT_THAT(r.error().detail(), HasSubstr("sequential prefix 'q/n-'"));
}

TEST_P(store_test, ephemeral_node_records_its_session) {
  auto session = open_session_ok();
  auto r = run(s->put("/owners/broker-1", "addr", std::nullopt, {.ephemeral = session}));
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r.value().ephemeral);
  EXPECT_EQ(r.value().owner, session);
  auto got = run(s->get("/owners/broker-1")).value();
  EXPECT_TRUE(got->st.ephemeral);
  EXPECT_EQ(got->st.owner, session);
}

TEST_P(store_test, sessions_have_distinct_nonzero_ids) {
  auto a = open_session_ok();
  auto b = open_session_ok();
  EXPECT_NE(a, no_session);
  EXPECT_NE(a, b);
}

TEST_P(store_test, session_ids_are_not_reused_after_reopen) {
  auto before = open_session_ok();
  reopen();
  EXPECT_NE(open_session_ok(), before);
}

TEST_P(store_test, close_session_deletes_its_ephemeral_nodes_only) {
  auto mine = open_session_ok();
  auto other = open_session_ok();
  ASSERT_TRUE(run(s->put("/e/mine", "", std::nullopt, {.ephemeral = mine})));
  ASSERT_TRUE(run(s->put("/e/other", "", std::nullopt, {.ephemeral = other})));
  put_ok("/e/persistent");
  auto closed = run(s->close_session(mine));
  ASSERT_TRUE(closed) << closed.error();
  EXPECT_THAT(children_ok("/e"), ElementsAre("other", "persistent"));
}

TEST_P(store_test, closed_session_can_not_create_ephemeral_nodes) {
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->close_session(session)));
  auto r = run(s->put("/late", "", std::nullopt, {.ephemeral = session}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::unknown_session);
  EXPECT_FALSE(run(s->exists("/late")).value());
}

TEST_P(store_test, close_of_an_unknown_session_fails_with_unknown_session) {
  auto r = run(s->close_session(session_id(12345)));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::unknown_session);
}

TEST_P(store_test, ephemeral_nodes_of_a_dead_process_are_gone_after_reopen) {
  if (GetParam().crash_keeps_ephemerals) GTEST_SKIP() << "ephemerals wait for the session to time out here";
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/brokers/b1", "", std::nullopt, {.ephemeral = session})));
  put_ok("/brokers/config");
  reopen();  // without close_session: the process "died"
  EXPECT_FALSE(run(s->exists("/brokers/b1")).value());
  EXPECT_THAT(children_ok("/brokers"), ElementsAre("config"));
}

TEST_P(store_test, ephemeral_node_cannot_have_children) {
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/eph", "", std::nullopt, {.ephemeral = session})));
  auto r = run(s->put("/eph/child", "", std::nullopt));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::ephemeral_parent);
  EXPECT_THAT(r.error().detail(), HasSubstr("'/eph' is ephemeral"));
}

TEST_P(store_test, put_over_an_ephemeral_node_keeps_it_ephemeral) {
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/eph", "a", std::nullopt, {.ephemeral = session})));
  auto r = run(s->put("/eph", "b", 0));
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r.value().ephemeral);
  ASSERT_TRUE(run(s->close_session(session)));
  EXPECT_FALSE(run(s->exists("/eph")).value());
}

TEST_P(store_test, removed_ephemeral_node_is_not_deleted_again_by_its_session) {
  auto session = open_session_ok();
  ASSERT_TRUE(run(s->put("/eph", "", std::nullopt, {.ephemeral = session})));
  ASSERT_TRUE(run(s->remove("/eph", std::nullopt)));
  put_ok("/eph", "persistent now");
  ASSERT_TRUE(run(s->close_session(session)));
  auto got = run(s->get("/eph")).value();
  ASSERT_TRUE(got.has_value()) << "the persistent node that replaced the ephemeral one stays";
  EXPECT_FALSE(got->st.ephemeral);
}

TEST_P(store_test, sequential_ephemeral_nodes_belong_to_their_session) {
  auto session = open_session_ok();
  auto r = sequential(*s, shards[0], "/election/candidate-", {.ephemeral = session});
  ASSERT_TRUE(r) << r.error();
  EXPECT_TRUE(r.value().ephemeral);
  ASSERT_TRUE(run(s->close_session(session)));
  EXPECT_FALSE(run(s->exists(r.value().path)).value());
}

}  // namespace
}  // namespace magnetar::meta::testing
