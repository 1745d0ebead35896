// store: the metadata store that the broker, the ledger client and the
// managed ledger keep their metadata in (Pulsar's MetadataStoreExtended).
//
// A tree of versioned nodes, shaped like ZooKeeper so that an embedded
// backend (rocksdb_store) and a ZooKeeper backend serve the same callers:
//   - paths follow path.h; a put creates missing parents as empty persistent
//     nodes (as Pulsar does); the root always exists, empty, at version 0;
//   - a node's version is 0 at creation and grows by 1 per put; puts and
//     removes may name the version they expect (compare-and-set);
//   - ephemeral nodes live as long as the session that created them and
//     cannot have children; sequential creates get a unique counter suffix;
//   - every committed change is notified to every listener, in commit order.
//
// Operations are coroutines: call them from a shard (or any executor); the
// backend does its blocking work elsewhere and resumes the caller on its own
// executor. The public functions check the arguments that every backend must
// reject the same way (invalid_path), then call the backend's do_ function.
// Lifecycle: start() once, then operations from any thread, then stop(), which
// refuses new operations (io::errc::gate_closed) and waits for those in flight.
// Thread-safety: every operation may be called concurrently from any thread.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "meta/listeners.h"
#include "meta/types.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::meta {

class store {
 public:
  virtual ~store() = default;

  // Opens the backend (a database, a connection). Fails with the backend's
  // error; then the store is unusable and may only be stopped or destroyed.
  virtual awaitable<result<void>> start() = 0;

  // Refuses new operations, waits for those in flight, closes the backend.
  // Sessions are not closed: for ephemeral nodes this is a process crash,
  // and a later store over the same data deletes them.
  virtual awaitable<void> stop() = 0;

  // The value and stat of `path`, or nullopt when no such node exists.
  // The root reads as an empty value at version 0.
  awaitable<result<std::optional<versioned_value>>> get(std::string path);

  awaitable<result<bool>> exists(std::string path);

  // Names (not paths) of the direct children, sorted bytewise; empty when the
  // node has none or doesn't exist (as in Pulsar).
  awaitable<result<std::vector<std::string>>> children(std::string path);

  // Creates or overwrites `path` and returns its new stat. expected_version:
  //   nullopt: no check;
  //   -1:      the node must not exist, else bad_version ("... exists ...");
  //   n >= 0:  the node must exist at version n, else bad_version, with the
  //            actual and expected versions in the detail.
  // With options.sequential, `path` is a prefix (check_sequential_prefix) and
  // a new node is always created; stat.path is its real path. An ephemeral
  // create needs an open session (else unknown_session). A node under an
  // ephemeral node fails with ephemeral_parent.
  awaitable<result<stat>> put(std::string path, std::string value, std::optional<std::int64_t> expected_version,
                              create_options options = {});

  // Removes one node: not_found when absent, bad_version when
  // expected_version is given and differs, not_empty when it has children.
  awaitable<result<void>> remove(std::string path, std::optional<std::int64_t> expected_version);

  // Removes `path` and everything under it, atomically where the backend can
  // (the embedded one does; ZooKeeper may stop half-way, as in Pulsar).
  // Succeeds when `path` is absent.
  awaitable<result<void>> remove_recursive(std::string path);

  // A new session for ephemeral nodes. The embedded store keeps it until
  // close_session or the end of the process; a ZooKeeper backend until its
  // session expires.
  virtual awaitable<result<session_id>> open_session() = 0;

  // Removes the session's ephemeral nodes (notifying their deletion) and
  // ends it; unknown_session when it isn't open.
  virtual awaitable<result<void>> close_session(session_id id) = 0;

  // Calls `fn` on `executor` for every committed change (see listeners.h for
  // ordering). The listener stays registered while the handle lives. May be
  // called before start().
  virtual listener_handle register_listener(asio::any_io_executor executor,
                                            std::function<void(const notification&)> fn) = 0;

  // Calls `fn` on `executor` when the backend's connection or session changes.
  virtual listener_handle register_session_listener(asio::any_io_executor executor,
                                                    std::function<void(const session_event&)> fn) = 0;

 protected:
  // Called with arguments already checked.
  virtual awaitable<result<std::optional<versioned_value>>> do_get(std::string path) = 0;
  virtual awaitable<result<bool>> do_exists(std::string path) = 0;
  virtual awaitable<result<std::vector<std::string>>> do_children(std::string path) = 0;
  virtual awaitable<result<stat>> do_put(std::string path, std::string value,
                                         std::optional<std::int64_t> expected_version, create_options options) = 0;
  virtual awaitable<result<void>> do_remove(std::string path, std::optional<std::int64_t> expected_version) = 0;
  virtual awaitable<result<void>> do_remove_recursive(std::string path) = 0;
};

}  // namespace magnetar::meta
