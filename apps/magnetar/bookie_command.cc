#include "bookie_command.h"

#include "bookie_node/bookie_config.h"
#include "bookie_node/bookie_node.h"
#include "process_signals.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <cstdlib>

namespace magnetar::app {

bookie_command::bookie_command(CLI::App& app) {
  _command = app.add_subcommand("bookie",
                                "Run a bookie: a storage node that ledger clients reach over the network "
                                "(bookiePort, 3181), registered in ZooKeeper (metadataServiceUri)");
  _command->add_option("--config,-c", _config_file, "A BookKeeper-style bookkeeper.conf")
      ->required()
      ->check(CLI::ExistingFile);
  _command->add_option("--log-file", _log_file, "Write the log to this file instead of stderr");
  _command->add_option("--ready-file", _ready_file,
                       "Once serving, write the bookie's id and pid as JSON to this file (for scripts and tests)");
}

int bookie_command::run() const {
  auto config = bookie_node::load_bookie_config(_config_file);
  if (!config) {
    fmt::print(stderr, "magnetar bookie: {}\n", config.error());
    return EXIT_FAILURE;
  }
  if (_log_file && !log_to_file(*_log_file, "magnetar bookie")) return EXIT_FAILURE;
  const auto stop_signals = block_stop_signals();
  bookie_node::bookie_node node(std::move(config).value());
  if (auto started = node.start(); !started) {
    spdlog::error("bookie: {}", started.error());
    fmt::print(stderr, "magnetar bookie: {}\n", started.error());
    node.stop();
    return EXIT_FAILURE;
  }
  if (_ready_file && !write_ready_file(*_ready_file, fmt::format(R"({{"bookieId": "{}", "httpPort": {}, "pid": {}}})",
                                                                 node.id(), node.http_port(), ::getpid()))) {
    node.stop();
    return EXIT_FAILURE;
  }
  wait_for_stop_signal(stop_signals);
  node.stop();
  spdlog::info("stopped");
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
