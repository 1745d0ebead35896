// broker_command: `magnetar broker`, one broker of a cluster (pulsar broker): the broker
// and the admin REST API over ZooKeeper and the cluster's bookies, serving the
// namespace bundles it owns.
//
//   magnetar broker --config broker.conf [--broker-port N] [--web-port N] [--log-file FILE] [--ready-file FILE]
//
// Settings come from a Pulsar broker.conf (metadataStoreUrl, clusterName, ...; see
// docs/cluster.md). Runs until SIGTERM or SIGINT, then hands its bundles to the other
// brokers and stops. Used from main() only: single-threaded.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace magnetar::app {

class broker_command {
 public:
  explicit broker_command(CLI::App& app);

  bool parsed() const { return _command->parsed(); }
  // Serves until a stop signal; the process's exit code.
  int run() const;

 private:
  CLI::App* _command;
  std::string _config_file;
  std::optional<int> _broker_port;
  std::optional<int> _web_port;
  std::optional<std::string> _log_file;
  std::optional<std::string> _ready_file;
};

}  // namespace magnetar::app
