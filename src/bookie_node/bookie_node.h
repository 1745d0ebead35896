// bookie_node: one networked bookie process (`magnetar bookie`): the bookie
// engine behind a bookie_server, its cookie checked against the metadata
// store (ZooKeeper), and its registration there.
//
// Registration is upstream's layout: an ephemeral node
// /ledgers/available/<host:port> while the bookie takes writes, and
// /ledgers/available/readonly/<host:port> when it doesn't. The node belongs
// to a session of the bookie's own; when that session is lost the bookie
// registers again on a new one.
// Thread-safety: start and stop from one thread, off the shards.
#pragma once

#include "base/result.h"
#include "bookie_node/bookie_config.h"

#include <memory>
#include <string>

namespace magnetar::bookie_node {

class bookie_node {
 public:
  explicit bookie_node(bookie_config config);
  ~bookie_node();
  bookie_node(const bookie_node&) = delete;
  bookie_node& operator=(const bookie_node&) = delete;

  // Connects to the metadata store (retrying while it is down), checks the
  // cookies, opens and replays the bookie, serves and registers.
  result<void> start();
  // Unregisters, stops serving, stops the bookie (a clean shutdown).
  void stop();

  std::uint16_t port() const;
  const std::string& id() const { return _id; }

 private:
  struct parts;
  bookie_config _config;
  std::string _id;
  std::unique_ptr<parts> _parts;
};

}  // namespace magnetar::bookie_node
