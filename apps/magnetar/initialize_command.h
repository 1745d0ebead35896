// initialize_command: `magnetar initialize-cluster-metadata` (as pulsar's), run once
// before a cluster's first broker: writes the cluster, `public`, `public/default` and
// the bookies' registration nodes (broker/node/cluster_metadata.h).
//
//   magnetar initialize-cluster-metadata --cluster NAME --metadata-store zk:HOST:PORT[/chroot]
//       [--configuration-metadata-store zk:...] --web-service-url http://... --broker-service-url pulsar://...
//
// Used from main() only: single-threaded.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace magnetar::app {

class initialize_command {
 public:
  explicit initialize_command(CLI::App& app);

  bool parsed() const { return _command->parsed(); }
  int run() const;

 private:
  CLI::App* _command;
  std::string _cluster;
  std::string _metadata_store;
  std::optional<std::string> _configuration_store;
  std::string _web_service_url;
  std::string _broker_service_url;
  std::string _web_service_url_tls;     // optional, as upstream's --web-service-url-tls
  std::string _broker_service_url_tls;  // optional, as upstream's --broker-service-url-tls
};

}  // namespace magnetar::app
