// zookeeper_calls: libzookeeper-mt's asynchronous calls as coroutines.
//
// Each call issues the request on the handle and suspends the caller until
// the client's completion thread delivers the reply; the caller resumes on
// its own executor, which must run one thread at a time (a shard or a
// strand). A request the client refuses outright (a closed handle, an
// expired session) completes at once with that return code. `watch` sets a
// one-shot watch that the handle's watcher function receives.
// Thread-safety: any thread; the handle must outlive the call.
#pragma once

#include "io/asio.h"
#include "meta/types.h"

#include <zookeeper/zookeeper.h>

#include <string>
#include <vector>

namespace magnetar::meta::zk {

struct reply {
  int rc = ZOK;
  Stat st{};
  std::string data;                // get: the value
  std::vector<std::string> names;  // get_children: child names, as the server lists them
  std::string path;                // create: the created path (with a sequential counter)
};

awaitable<reply> get(zhandle_t* zh, const std::string& path, bool watch);
awaitable<reply> exists(zhandle_t* zh, const std::string& path, bool watch);
awaitable<reply> get_children(zhandle_t* zh, const std::string& path, bool watch);
// `flags`: ZOO_EPHEMERAL, ZOO_SEQUENCE (or 0). The reply carries the new node's stat.
awaitable<reply> create(zhandle_t* zh, const std::string& path, const std::string& value, int flags);
// version -1: any version.
awaitable<reply> set(zhandle_t* zh, const std::string& path, const std::string& value, int version);
awaitable<reply> remove(zhandle_t* zh, const std::string& path, int version);
// Deletes every path in one transaction, in the order given (leaves first).
awaitable<reply> remove_all(zhandle_t* zh, const std::vector<std::string>& paths);

// Sets a watch without waiting for the reply (the request is queued on the
// handle before anything issued after it, so it applies to later writes).
void arm_data_watch(zhandle_t* zh, const std::string& path);
void arm_child_watch(zhandle_t* zh, const std::string& path);

// Our stat of the node at `path` (ZooKeeper's times are the server's).
stat to_stat(const std::string& path, const Stat& st);

// ZooKeeper's name for a return code ("ZNONODE", "ZCONNECTIONLOSS", ...).
std::string rc_name(int rc);

}  // namespace magnetar::meta::zk
