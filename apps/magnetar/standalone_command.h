// standalone_command: `magnetar standalone`, the broker, an embedded bookie, the
// embedded metadata store and the admin REST API in one process (pulsar standalone).
//
//   magnetar standalone [--config FILE] [--data-dir DIR] [--log-file FILE] [--ready-file FILE]
//
// Settings come from a Pulsar-style .conf file (broker/config_file.h); --data-dir
// overrides its dataDir. Runs until SIGTERM or SIGINT, then stops gracefully: nothing
// acknowledged is lost. Used from main() only: single-threaded.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace magnetar::app {

class standalone_command {
 public:
  explicit standalone_command(CLI::App& app);

  bool parsed() const { return _command->parsed(); }
  // Serves until a stop signal; the process's exit code.
  int run() const;

 private:
  CLI::App* _command;
  std::optional<std::string> _config_file;
  std::optional<std::string> _data_dir;
  std::optional<int> _broker_port;
  std::optional<int> _web_port;
  std::optional<std::string> _log_file;
  std::optional<std::string> _ready_file;
};

}  // namespace magnetar::app
