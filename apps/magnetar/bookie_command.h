// bookie_command: `magnetar bookie`, a storage node of a cluster (bookkeeper bookie).
//
//   magnetar bookie --config bookkeeper.conf [--log-file FILE] [--ready-file FILE]
//
// Settings come from a BookKeeper-style bookkeeper.conf (bookie_node/bookie_config.h).
// Runs until SIGTERM or SIGINT, then stops gracefully. Used from main() only.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace magnetar::app {

class bookie_command {
 public:
  explicit bookie_command(CLI::App& app);

  bool parsed() const { return _command->parsed(); }
  int run() const;

 private:
  CLI::App* _command;
  std::string _config_file;
  std::optional<std::string> _log_file;
  std::optional<std::string> _ready_file;
};

}  // namespace magnetar::app
