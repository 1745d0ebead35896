#include "broker_command.h"

#include "broker/api/config_file.h"
#include "broker/node/broker_node.h"
#include "process_signals.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>

namespace magnetar::app {

broker_command::broker_command(CLI::App& app) {
  _command = app.add_subcommand("broker",
                                "Run one broker of a cluster: the Pulsar protocol (brokerServicePort) and the admin "
                                "REST API (webServicePort) over ZooKeeper (metadataStoreUrl) and the cluster's "
                                "bookies, serving the namespace bundles it owns");
  _command->add_option("--config,-c", _config_file, "A Pulsar broker.conf (key=value)")
      ->required()
      ->check(CLI::ExistingFile);
  _command->add_option("--broker-port", _broker_port, "Overrides brokerServicePort (0: any free port)")
      ->check(CLI::Range(0, 65535));
  _command->add_option("--web-port", _web_port, "Overrides webServicePort (0: any free port)")
      ->check(CLI::Range(0, 65535));
  _command->add_option("--log-file", _log_file, "Write the log to this file instead of stderr");
  _command->add_option("--ready-file", _ready_file,
                       "Once serving, write the service URLs as JSON to this file (for scripts and tests)");
}

int broker_command::run() const {
  auto loaded = broker::load_broker_config(_config_file);
  if (!loaded) {
    fmt::print(stderr, "magnetar broker: {}\n", loaded.error());
    return EXIT_FAILURE;
  }
  auto config = std::move(loaded).value();
  if (_broker_port) config.broker_service_port = static_cast<std::uint16_t>(*_broker_port);
  if (_web_port) config.web_service_port = static_cast<std::uint16_t>(*_web_port);

  if (_log_file && !log_to_file(*_log_file, "magnetar broker")) return EXIT_FAILURE;
  const auto stop_signals = block_stop_signals();

  broker::broker_node node(config);
  if (auto started = node.start(); !started) {
    fmt::print(stderr, "magnetar broker: {}\n", started.error());
    spdlog::error("magnetar broker: {}", started.error());
    node.stop();
    return EXIT_FAILURE;
  }
  const auto ready = fmt::format(
      R"({{"brokerServiceUrl": "{}", "webServiceUrl": "{}", "pid": {}, "brokerServiceUrlTls": "{}", "webServiceUrlTls": "{}"}})",
      node.service_url(), node.web_service_url(), ::getpid(), node.service_url_tls(), node.web_service_url_tls());
  if (_ready_file && !write_ready_file(*_ready_file, ready)) {
    node.stop();
    return EXIT_FAILURE;
  }
  wait_for_stop_signal(stop_signals);
  spdlog::info("stopping: handing the bundles to the other brokers");
  node.stop();
  spdlog::info("stopped");
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
