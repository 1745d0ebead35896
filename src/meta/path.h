// Paths of the metadata tree: "/", "/ledgers", "/ledgers/00/0000/L0042".
//
// The rules are ZooKeeper's, so that data moves between backends unchanged: a
// path starts with '/', has no empty, "." or ".." component, no trailing '/'
// (except the root itself) and no NUL byte. The root always exists implicitly
// and can't be written or removed. Pure functions; thread-safe.
#pragma once

#include "base/result.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace magnetar::meta {

// Digits of the counter that a sequential create appends (ZooKeeper's %010d).
inline constexpr std::size_t sequence_digits = 10;

// A path that a read may name (the root included). The error is
// meta::errc::invalid_path with a detail that quotes the path and the rule.
result<void> check_path(std::string_view path);

// A path that a write (put, remove) may name: valid and not the root.
result<void> check_node_path(std::string_view path);

// The prefix of a sequential create: "/locks/lock-" or "/queue/". Valid when
// the prefix plus a counter is a node path.
result<void> check_sequential_prefix(std::string_view prefix);

// "/a/b" -> "/a", "/a" -> "/". Precondition: a valid node path.
std::string_view parent_of(std::string_view path);

// "/a/b" -> "b". Precondition: a valid node path.
std::string_view name_of(std::string_view path);

// ("/", "a") -> "/a", ("/a", "b") -> "/a/b".
std::string child_path(std::string_view parent, std::string_view name);

// "/q/item-" and 7 -> "/q/item-0000000007".
std::string sequential_path(std::string_view prefix, std::int64_t counter);

// The number of components: "/" -> 0, "/a" -> 1, "/a/b" -> 2.
std::size_t depth_of(std::string_view path);

}  // namespace magnetar::meta
