// zookeeper_store: puts and removes. Before each write the store arms the
// watches that make its change heard (the node's own, its parent's children),
// on the main session, so they reach the server ahead of the write.
#include "meta/errc.h"
#include "meta/path.h"
#include "meta/zookeeper_calls.h"
#include "meta/zookeeper_session.h"
#include "meta/zookeeper_store.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::meta {

namespace {

// A put racing with creates and removes of the same node gives up after this
// many rounds (each round is one create and one set).
constexpr int max_put_rounds = 16;

}  // namespace

awaitable<result<stat>> zookeeper_store::do_put(std::string path, std::string value,
                                                std::optional<std::int64_t> expected_version, create_options opts) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  if (value.size() > _options.max_value_bytes) {
    co_return fail(errc::value_too_large,
                   fmt::format("value of {} bytes for '{}' is more than ZooKeeper takes ({} bytes; jute.maxbuffer)",
                               value.size(), path, _options.max_value_bytes));
  }
  if (opts.sequential) co_return co_await create_node(std::move(path), value, opts.ephemeral, true, true);
  if (expected_version == -1) co_return co_await create_node(std::move(path), value, opts.ephemeral, false, true);
  if (expected_version) co_return co_await set_node(path, value, *expected_version);
  // No expected version: create, else overwrite; repeating either is harmless,
  // so a lost connection is retried too (by create_node and set_node).
  for (int round = 0; round < max_put_rounds; ++round) {
    auto created = co_await create_node(path, value, opts.ephemeral, false, false);
    if (created || created.error() != errc::bad_version) co_return created;
    auto updated = co_await set_node(path, value, -1);
    if (updated || updated.error() != errc::not_found) co_return updated;
  }
  co_return fail(errc::backend_error, fmt::format("put '{}': the node kept being created and removed", path));
}

awaitable<result<stat>> zookeeper_store::create_node(std::string path, const std::string& value,
                                                     std::optional<session_id> ephemeral, bool sequential,
                                                     bool create_only) {
  auto main = co_await main_session();
  if (!main) co_return fail(main.error());
  std::shared_ptr<zk::session> creator = main.value();
  if (ephemeral) {
    std::lock_guard lock(_mutex);
    auto it = _sessions.find(*ephemeral);
    if (it == _sessions.end()) {
      co_return fail(errc::unknown_session,
                     fmt::format("can't create '{}': session 0x{:x} is not open", path, ephemeral->value()));
    }
    creator = it->second;
  }
  if (creator->expired()) {
    co_return fail(errc::session_expired, fmt::format("can't create '{}': its session has expired", path));
  }
  const std::string parent(parent_of(path));
  watch_children(main.value()->handle(), parent);
  if (!sequential) watch_data(main.value()->handle(), path);
  if (creator != main.value()) {
    // Another session's write could overtake the watches: wait until the
    // server has them.
    auto synced = co_await zk::exists(main.value()->handle(), parent, false);
    (void)synced;
  }
  const int flags = (ephemeral ? ZOO_EPHEMERAL : 0) | (sequential ? ZOO_SEQUENCE : 0);
  const bool may_repeat = !create_only && !sequential && !ephemeral;
  const auto deadline = std::chrono::steady_clock::now() + _options.operation_timeout;
  for (bool parents_made = false;;) {
    auto r = co_await zk::create(creator->handle(), path, value, flags);
    switch (r.rc) {
      case ZOK:
        if (creator != main.value()) co_await catch_up(*main.value());
        co_return zk::to_stat(sequential ? r.path : path, r.st);
      case ZNODEEXISTS:
        co_return fail(errc::bad_version, fmt::format("node '{}' exists; expected it absent (version -1)", path));
      case ZNOCHILDRENFOREPHEMERALS:
        co_return fail(errc::ephemeral_parent,
                       fmt::format("can't create '{}': its parent '{}' is ephemeral", path, parent));
      case ZNONODE:
        if (parents_made) break;
        parents_made = true;
        if (auto made = co_await create_parents(path); !made) co_return fail(made.error());
        continue;
      default: break;
    }
    if (may_repeat && r.rc == ZCONNECTIONLOSS && std::chrono::steady_clock::now() < deadline) {
      auto again = co_await main_session();
      if (!again) co_return fail(again.error());
      creator = again.value();
      continue;
    }
    co_return fail(error_of(r, fmt::format("create '{}'", path)));
  }
}

awaitable<result<void>> zookeeper_store::create_parents(const std::string& path) {
  std::vector<std::string> ancestors;
  for (auto p = std::string(parent_of(path)); p != "/"; p = std::string(parent_of(p))) ancestors.push_back(p);
  std::reverse(ancestors.begin(), ancestors.end());
  for (const auto& ancestor : ancestors) {
    auto main = co_await main_session();
    if (!main) co_return fail(main.error());
    zhandle_t* zh = main.value()->handle();
    watch_children(zh, std::string(parent_of(ancestor)));
    watch_data(zh, ancestor);
    auto r = co_await zk::create(zh, ancestor, "", 0);
    if (r.rc == ZOK || r.rc == ZNODEEXISTS) {
      // A child watch asked for before the node existed was never set.
      rewatch_children(zh, ancestor);
      continue;
    }
    if (r.rc == ZNOCHILDRENFOREPHEMERALS) {
      co_return fail(errc::ephemeral_parent,
                     fmt::format("can't create '{}': its ancestor '{}' is ephemeral", path, parent_of(ancestor)));
    }
    co_return fail(error_of(r, fmt::format("create '{}' (a parent of '{}')", ancestor, path)));
  }
  co_return success();
}

awaitable<result<stat>> zookeeper_store::set_node(const std::string& path, const std::string& value,
                                                  std::int64_t version) {
  const auto deadline = std::chrono::steady_clock::now() + _options.operation_timeout;
  for (;;) {
    auto main = co_await main_session();
    if (!main) co_return fail(main.error());
    zhandle_t* zh = main.value()->handle();
    watch_data(zh, path);
    auto r = co_await zk::set(zh, path, value, static_cast<int>(version));
    if (r.rc == ZOK) co_return zk::to_stat(path, r.st);
    if (r.rc == ZNONODE) {
      if (version == -1) co_return fail(errc::not_found, fmt::format("node '{}' does not exist", path));
      co_return fail(errc::bad_version, fmt::format("node '{}' does not exist; expected version {}", path, version));
    }
    if (r.rc == ZBADVERSION) {
      auto now = co_await zk::exists(zh, path, false);
      co_return fail(errc::bad_version,
                     fmt::format("node '{}' is at version {}; expected version {}", path, now.st.version, version));
    }
    if (version == -1 && r.rc == ZCONNECTIONLOSS && std::chrono::steady_clock::now() < deadline) continue;
    co_return fail(error_of(r, fmt::format("set '{}'", path)));
  }
}

awaitable<result<void>> zookeeper_store::do_remove(std::string path, std::optional<std::int64_t> expected_version) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  const auto deadline = std::chrono::steady_clock::now() + _options.operation_timeout;
  for (bool repeated = false;; repeated = true) {
    auto main = co_await main_session();
    if (!main) co_return fail(main.error());
    zhandle_t* zh = main.value()->handle();
    watch_children(zh, std::string(parent_of(path)));
    watch_data(zh, path);
    auto r = co_await zk::remove(zh, path, expected_version ? static_cast<int>(*expected_version) : -1);
    switch (r.rc) {
      case ZOK: co_return success();
      case ZNONODE:
        // A blind remove repeated after a lost connection may find its own work done.
        if (repeated) co_return success();
        co_return fail(errc::not_found, fmt::format("can't remove '{}': no such node", path));
      case ZBADVERSION: {
        auto now = co_await zk::exists(zh, path, false);
        co_return fail(errc::bad_version, fmt::format("can't remove '{}': it is at version {}; expected version {}",
                                                      path, now.st.version, *expected_version));
      }
      case ZNOTEMPTY: co_return fail(errc::not_empty, fmt::format("can't remove '{}': it has children", path));
      default: break;
    }
    if (!expected_version && r.rc == ZCONNECTIONLOSS && std::chrono::steady_clock::now() < deadline) continue;
    co_return fail(error_of(r, fmt::format("remove '{}'", path)));
  }
}

awaitable<result<std::vector<std::string>>> zookeeper_store::subtree_leaves_first(const std::string& path) {
  // Breadth first from the top; reversed, every node comes after its children.
  std::vector<std::string> order{path};
  for (std::size_t i = 0; i < order.size(); ++i) {
    auto main = co_await main_session();
    if (!main) co_return fail(main.error());
    zhandle_t* zh = main.value()->handle();
    watch_data(zh, order[i]);
    auto r = co_await zk::get_children(zh, order[i], true);
    if (r.rc == ZNONODE) {
      if (i == 0) co_return std::vector<std::string>{};
      continue;  // removed meanwhile: the transaction will fail and be retried
    }
    if (r.rc != ZOK) co_return fail(error_of(r, fmt::format("children of '{}'", order[i])));
    {
      std::lock_guard lock(_mutex);
      _child_watches.insert(order[i]);
    }
    std::sort(r.names.begin(), r.names.end());
    for (const auto& name : r.names) order.push_back(order[i] + "/" + name);
  }
  std::reverse(order.begin(), order.end());
  co_return order;
}

awaitable<result<void>> zookeeper_store::do_remove_recursive(std::string path) {
  auto admitted = _gate.enter();
  if (!admitted) co_return fail(admitted.error());
  constexpr int max_rounds = 8;
  for (int round = 0; round < max_rounds; ++round) {
    auto nodes = co_await subtree_leaves_first(path);
    if (!nodes) co_return fail(nodes.error());
    if (nodes.value().empty()) co_return success();
    auto main = co_await main_session();
    if (!main) co_return fail(main.error());
    watch_children(main.value()->handle(), std::string(parent_of(path)));
    auto r = co_await zk::remove_all(main.value()->handle(), nodes.value());
    if (r.rc == ZOK) co_return success();
    // The tree changed between the listing and the transaction: list again.
    if (r.rc != ZNONODE && r.rc != ZNOTEMPTY && r.rc != ZCONNECTIONLOSS) {
      co_return fail(error_of(r, fmt::format("remove '{}' and what is under it", path)));
    }
  }
  co_return fail(errc::backend_error, fmt::format("remove '{}' recursively: the tree kept changing", path));
}

}  // namespace magnetar::meta
