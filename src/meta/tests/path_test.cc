#include "meta/path.h"

#include "meta/errc.h"

#include <gtest/gtest.h>

namespace magnetar::meta {
namespace {

TEST(path, root_and_nested_paths_are_valid) {
  for (const char* p : {"/", "/a", "/a/b", "/ledgers/00/0000/L0042", "/with space/and-dash.x"}) {
    EXPECT_TRUE(check_path(p)) << p;
  }
}

TEST(path, malformed_paths_are_invalid_with_the_rule_in_the_detail) {
  const std::pair<std::string, std::string> cases[] = {
      {"", "empty path"},
      {"a", "path 'a' does not start with '/'"},
      {"/a/", "path '/a/' ends with '/'"},
      {"/a//b", "path '/a//b' has an empty component"},
      {"/a/.", "path '/a/.' has a '.' or '..' component"},
      {"/../a", "path '/../a' has a '.' or '..' component"},
      {std::string("/a\0", 3), "path '/a\\0' contains a NUL byte"},
  };
  for (const auto& [path, detail] : cases) {
    auto r = check_path(path);
    ASSERT_FALSE(r) << detail;
    EXPECT_EQ(r.error(), errc::invalid_path);
    EXPECT_EQ(r.error().detail(), detail);
  }
}

TEST(path, root_is_not_a_node_path) {
  auto r = check_node_path("/");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().detail(), "path '/' is the root, which can't be written or removed");
  EXPECT_TRUE(check_node_path("/a"));
}

TEST(path, sequential_prefix_may_end_with_a_slash) {
  EXPECT_TRUE(check_sequential_prefix("/q/"));
  EXPECT_TRUE(check_sequential_prefix("/q/item-"));
  EXPECT_TRUE(check_sequential_prefix("/"));
  EXPECT_FALSE(check_sequential_prefix("/q//"));
  EXPECT_FALSE(check_sequential_prefix("q-"));
}

TEST(path, parent_and_name_split_the_last_component) {
  EXPECT_EQ(parent_of("/a"), "/");
  EXPECT_EQ(parent_of("/a/b/c"), "/a/b");
  EXPECT_EQ(name_of("/a"), "a");
  EXPECT_EQ(name_of("/a/b/c"), "c");
}

TEST(path, child_path_joins_without_doubling_the_root_slash) {
  EXPECT_EQ(child_path("/", "a"), "/a");
  EXPECT_EQ(child_path("/a", "b"), "/a/b");
}

TEST(path, sequential_path_pads_the_counter_to_ten_digits) {
  EXPECT_EQ(sequential_path("/q/item-", 7), "/q/item-0000000007");
  EXPECT_EQ(sequential_path("/q/", 1234567890), "/q/1234567890");
}

TEST(path, depth_counts_components) {
  EXPECT_EQ(depth_of("/"), 0u);
  EXPECT_EQ(depth_of("/a"), 1u);
  EXPECT_EQ(depth_of("/a/b/c"), 3u);
}

}  // namespace
}  // namespace magnetar::meta
