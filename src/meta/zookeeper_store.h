// zookeeper_store: the metadata store on a ZooKeeper ensemble (libzookeeper-mt),
// what a cluster's brokers and bookies share. store.h states the semantics;
// where ZooKeeper differs, ZooKeeper wins, as in Pulsar:
//   - a node's times are the server's clock, and a sequential counter is the
//     parent's change count (it skips numbers after deletes, never repeats);
//   - stop() closes the store's sessions, so their ephemeral nodes go at once;
//     a process that dies leaves them until its session times out;
//   - remove_recursive is one transaction (a multi), retried if the tree moves.
//
// Sessions: the store's own session (the "main" one) serves every read and
// persistent write and carries the watches; open_session() makes another
// ZooKeeper session for ephemeral nodes, closed by close_session(). When the
// main session expires the store says session_lost, makes a new one, re-arms
// its watches and says session_reestablished; an opened session that expires
// is gone (its ephemeral puts fail with session_expired; listeners hear
// session_lost) and its owner opens another.
//
// Notifications come from ZooKeeper's one-shot watches, re-armed as they fire
// (the 3.8 C client has no persistent recursive watch): the store watches
// every node it has read or written, and its parent's children. So a listener
// hears every change, by any process, to the nodes this store has touched, in
// the server's order; a node it never touched is news only through its
// parent's children_changed; children_changed of creates racing under one
// parent may come as one (a one-shot watch fires once per arming). Reads are retried across a reconnect within
// operation_timeout; a write whose connection broke mid-call fails with
// connection_lost (its outcome is unknown) unless repeating it is harmless
// (a put without an expected version, a remove without one).
// Thread-safety: as store; construct and destroy off the shards.
#pragma once

#include "io/blocking_pool.h"
#include "io/gate.h"
#include "meta/store.h"

#include <zookeeper/zookeeper.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace magnetar::meta {

namespace zk {
class session;
struct reply;
}  // namespace zk

class zookeeper_store final : public store {
 public:
  struct options {
    std::string servers;  // host:port[,host:port...]
    std::string chroot;   // "" or "/path": created when missing
    std::chrono::milliseconds session_timeout{30'000};
    // How long start() keeps trying the servers before it fails.
    std::chrono::milliseconds connect_timeout{60'000};
    // How long a read waits for a lost connection to come back.
    std::chrono::milliseconds operation_timeout{30'000};
    // The largest value a put sends: ZooKeeper's jute.maxbuffer (1 MiB by
    // default) less room for the request's header and path.
    std::size_t max_value_bytes = 1024 * 1024 - 1024;
  };

  explicit zookeeper_store(options opts);
  ~zookeeper_store() override;
  zookeeper_store(const zookeeper_store&) = delete;
  zookeeper_store& operator=(const zookeeper_store&) = delete;

  awaitable<result<void>> start() override;
  awaitable<void> stop() override;
  awaitable<result<session_id>> open_session() override;
  awaitable<result<void>> close_session(session_id id) override;
  listener_handle register_listener(asio::any_io_executor executor,
                                    std::function<void(const notification&)> fn) override;
  listener_handle register_session_listener(asio::any_io_executor executor,
                                            std::function<void(const session_event&)> fn) override;

  // A ZooKeeper session's id and password: the main one (nullopt) or an
  // opened one. A client that knows both can take the session over, which is
  // how tests make it expire.
  struct credentials {
    std::int64_t id = 0;
    std::string password;
  };
  std::optional<credentials> session_credentials(std::optional<session_id> opened = std::nullopt) const;

 private:
  awaitable<result<std::optional<versioned_value>>> do_get(std::string path) override;
  awaitable<result<bool>> do_exists(std::string path) override;
  awaitable<result<std::vector<std::string>>> do_children(std::string path) override;
  awaitable<result<stat>> do_put(std::string path, std::string value, std::optional<std::int64_t> expected_version,
                                 create_options opts) override;
  awaitable<result<void>> do_remove(std::string path, std::optional<std::int64_t> expected_version) override;
  awaitable<result<void>> do_remove_recursive(std::string path) override;

  // zookeeper_store_write.cc
  awaitable<result<stat>> create_node(std::string path, const std::string& value, std::optional<session_id> ephemeral,
                                      bool sequential, bool create_only);
  awaitable<result<void>> create_parents(const std::string& path);
  awaitable<result<stat>> set_node(const std::string& path, const std::string& value, std::int64_t version);
  awaitable<result<std::vector<std::string>>> subtree_leaves_first(const std::string& path);

  // The main session, waiting up to operation_timeout for it to be connected
  // (a read that lost its connection retries on what this returns).
  awaitable<result<std::shared_ptr<zk::session>>> main_session();
  // Repeats `call` on the main session while it fails with a lost
  // connection, until operation_timeout.
  template <class Call>
  awaitable<result<zk::reply>> with_retry(Call call);
  void watch_data(zhandle_t* zh, const std::string& path);
  void watch_children(zhandle_t* zh, const std::string& path);
  // Arms it even when recorded (a child watch on a missing node is not set).
  void rewatch_children(zhandle_t* zh, const std::string& path);

  // Returns once the main session has heard the events of every write that
  // completed before the call, by any session: a write through another
  // session is notified before it completes, as the store promises.
  awaitable<void> catch_up(zk::session& main);
  void on_main_event(int type, int state, const std::string& path);
  void on_opened_session_event(int state, session_id id);
  void replace_expired_main();

  // The error a failed reply stands for; `what` names the call.
  static error error_of(const zk::reply& r, const std::string& what);

  const options _options;
  io::gate _gate{"metadata store"};
  // connect and close block: they run here, never on a shard or on the
  // client's completion thread.
  io::blocking_pool _pool{1};
  listener_registry<notification> _listeners;
  listener_registry<session_event> _session_listeners;
  std::atomic<bool> _stopping{false};
  // Makes a new main session after the old one expired (connect blocks).
  std::thread _replacer;

  mutable std::mutex _mutex;  // guards what follows
  std::shared_ptr<zk::session> _main;
  bool _main_lost_connection = false;
  std::map<session_id, std::shared_ptr<zk::session>> _sessions;
  // Paths with a watch armed on the main session, to re-arm on a new one.
  std::set<std::string> _data_watches;
  std::set<std::string> _child_watches;
};

}  // namespace magnetar::meta
