// store_url: which metadata store a Pulsar-style URL names, and opening it.
//
//   zk:host:port[,host:port...][/chroot]   ZooKeeper (metadataStoreUrl)
//   metadata-store:zk:...                  the same, with upstream's 3.x prefix
//   host:port[,host:port...][/chroot]      ZooKeeper, the older zookeeperServers form
//   rocksdb:/path, rocksdb:///path         the embedded store in that directory
//   (empty)                                the embedded store in the default directory
// Thread-safety: pure functions.
#pragma once

#include "base/result.h"
#include "io/blocking_pool.h"
#include "meta/store.h"

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

namespace magnetar::meta {

struct store_url {
  enum class kind { embedded, zookeeper };
  kind backend = kind::embedded;
  std::string servers;    // zookeeper: host:port,...
  std::string chroot;     // zookeeper: "" or "/path"
  std::string directory;  // embedded: "" for the default
};

// Fails with base::errc::invalid_argument naming what is wrong.
result<store_url> parse_store_url(std::string_view url);

// BookKeeper's metadataServiceUri (a broker's bookkeeperMetadataServiceUri):
//   zk://host:port[;host:port...][/chroot]/ledgers   (zk+null, zk+hierarchical, zk+longhierarchical alike)
//   metadata-store:zk:host:port[,...][/chroot]/ledgers   (upstream 3.x)
// names the ZooKeeper store whose chroot holds /ledgers. Fails as parse_store_url.
result<store_url> parse_metadata_service_uri(std::string_view uri);

struct store_settings {
  std::string default_directory;  // the embedded store's, when the URL names none
  io::blocking_pool* pool = nullptr;
  std::chrono::milliseconds session_timeout{30'000};
  std::chrono::milliseconds operation_timeout{30'000};
};

// A new, unstarted store for `url`.
result<std::unique_ptr<store>> make_store(std::string_view url, const store_settings& settings);

}  // namespace magnetar::meta
