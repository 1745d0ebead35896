// store_test: argument checks and the start/stop lifecycle.
#include "io/errc.h"
#include "io/run_on.h"
#include "meta/errc.h"
#include "meta/tests/store_suite.h"

#include <gmock/gmock.h>

#include <atomic>
#include <thread>

namespace magnetar::meta::testing {
namespace {

using ::testing::HasSubstr;

void expect_invalid_path(const result<stat>& r, std::string_view detail) {
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::invalid_path);
  EXPECT_THAT(r.error().detail(), HasSubstr(std::string(detail)));
}

TEST_P(store_test, put_rejects_a_path_without_a_leading_slash) {
  expect_invalid_path(run(s->put("ledgers/1", "", std::nullopt)), "path 'ledgers/1' does not start with '/'");
}

TEST_P(store_test, put_rejects_a_trailing_slash) {
  expect_invalid_path(run(s->put("/ledgers/", "", std::nullopt)), "path '/ledgers/' ends with '/'");
}

TEST_P(store_test, put_rejects_an_empty_component) {
  expect_invalid_path(run(s->put("/a//b", "", std::nullopt)), "path '/a//b' has an empty component");
}

TEST_P(store_test, put_rejects_dot_components) {
  expect_invalid_path(run(s->put("/a/../b", "", std::nullopt)), "has a '.' or '..' component");
}

TEST_P(store_test, put_rejects_the_empty_path) { expect_invalid_path(run(s->put("", "", std::nullopt)), "empty path"); }

TEST_P(store_test, put_rejects_the_root) { expect_invalid_path(run(s->put("/", "", std::nullopt)), "is the root"); }

TEST_P(store_test, put_rejects_a_nul_byte) {
  expect_invalid_path(run(s->put(std::string("/a\0b", 4), "", std::nullopt)), "path '/a\\0b' contains a NUL byte");
}

TEST_P(store_test, remove_rejects_the_root) {
  auto r = run(s->remove("/", std::nullopt));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::invalid_path);
  auto recursive = run(s->remove_recursive("/"));
  ASSERT_FALSE(recursive);
  EXPECT_EQ(recursive.error(), errc::invalid_path);
}

TEST_P(store_test, reads_reject_invalid_paths) {
  auto got = run(s->get("relative"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), errc::invalid_path);
  auto exists = run(s->exists("/x/"));
  ASSERT_FALSE(exists);
  EXPECT_EQ(exists.error(), errc::invalid_path);
  auto children = run(s->children("//"));
  ASSERT_FALSE(children);
  EXPECT_EQ(children.error(), errc::invalid_path);
}

TEST_P(store_test, operations_after_stop_fail_with_gate_closed) {
  run(s->stop());
  auto got = run(s->get("/a"));
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error(), io::errc::gate_closed);
  auto put = run(s->put("/a", "x", std::nullopt));
  ASSERT_FALSE(put);
  EXPECT_EQ(put.error(), io::errc::gate_closed);
  auto session = run(s->open_session());
  ASSERT_FALSE(session);
  EXPECT_EQ(session.error(), io::errc::gate_closed);
}

// Writes racing with stop() either complete before it (and are then durable)
// or are refused; none is acknowledged and lost.
TEST_P(store_test, every_acknowledged_put_survives_a_stop_that_races_with_it) {
  constexpr int writers = 16;
  std::atomic<int> finished{0};
  std::vector<int> acknowledged(writers, 0);  // each slot written by one writer, read after all finish
  for (int i = 0; i < writers; ++i) {
    io::spawn(shards[i % 2].executor(), [&, i]() -> awaitable<void> {
      auto r = co_await s->put("/race/" + std::to_string(i), "v", std::nullopt);
      if (r) {
        acknowledged[i] = 1;
      } else {
        EXPECT_EQ(r.error(), io::errc::gate_closed) << r.error();
      }
      finished.fetch_add(1);
    });
  }
  run(s->stop());
  while (finished.load() < writers) std::this_thread::yield();
  reopen();
  for (int i = 0; i < writers; ++i) {
    if (acknowledged[i]) {
      EXPECT_TRUE(run(s->exists("/race/" + std::to_string(i))).value()) << i;
    }
  }
}

}  // namespace
}  // namespace magnetar::meta::testing
