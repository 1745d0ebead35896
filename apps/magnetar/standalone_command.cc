#include "standalone_command.h"

#include "broker/api/config_file.h"
#include "broker/standalone/standalone.h"
#include "process_signals.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>
#include <cstdio>
#include <cstdlib>

namespace magnetar::app {

standalone_command::standalone_command(CLI::App& app) {
  _command = app.add_subcommand("standalone",
                                "Run a broker with an embedded bookie and metadata store, serving the Pulsar "
                                "protocol (brokerServicePort, 6650) and the admin REST API (webServicePort, 8080)");
  _command
      ->add_option("--config,-c", _config_file,
                   "A Pulsar-style .conf file (key=value; keys as in Pulsar's standalone.conf)")
      ->check(CLI::ExistingFile);
  _command->add_option("--data-dir", _data_dir, "Where data lives (overrides dataDir; default data/standalone)");
  _command->add_option("--broker-port", _broker_port, "Overrides brokerServicePort (0: any free port)")
      ->check(CLI::Range(0, 65535));
  _command->add_option("--web-port", _web_port, "Overrides webServicePort (0: any free port)")
      ->check(CLI::Range(0, 65535));
  _command->add_option("--log-file", _log_file, "Write the log to this file instead of stderr");
  _command->add_option("--ready-file", _ready_file,
                       "Once serving, write the service URLs as JSON to this file (for scripts and tests "
                       "that start the standalone on port 0)");
}

int standalone_command::run() const {
  broker::broker_config config;
  if (_config_file) {
    auto loaded = broker::load_broker_config(*_config_file);
    if (!loaded) {
      fmt::print(stderr, "magnetar standalone: {}\n", loaded.error());
      return EXIT_FAILURE;
    }
    config = std::move(loaded).value();
  }
  if (_data_dir) config.data_dir = *_data_dir;
  if (_broker_port) config.broker_service_port = static_cast<std::uint16_t>(*_broker_port);
  if (_web_port) config.web_service_port = static_cast<std::uint16_t>(*_web_port);

  if (_log_file && !log_to_file(*_log_file, "magnetar standalone")) return EXIT_FAILURE;
  const auto stop_signals = block_stop_signals();

  broker::standalone server(config);
  if (auto started = server.start(); !started) {
    fmt::print(stderr, "magnetar standalone: {}\n", started.error());
    server.stop();
    return EXIT_FAILURE;
  }
  const auto tls_url = [](std::string_view scheme, std::uint16_t port) {
    return port == 0 ? std::string() : fmt::format("{}://127.0.0.1:{}", scheme, port);
  };
  const auto ready = fmt::format(
      R"({{"brokerServiceUrl": "pulsar://127.0.0.1:{}", "webServiceUrl": "http://127.0.0.1:{}", "pid": {}, )"
      R"("brokerServiceUrlTls": "{}", "webServiceUrlTls": "{}"}})",
      server.broker_port(), server.web_port(), ::getpid(), tls_url("pulsar+ssl", server.broker_tls_port()),
      tls_url("https", server.web_tls_port()));
  if (_ready_file && !write_ready_file(*_ready_file, ready)) {
    server.stop();
    return EXIT_FAILURE;
  }
  wait_for_stop_signal(stop_signals);
  server.stop();
  spdlog::info("stopped");
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
