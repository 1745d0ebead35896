#include "standalone_command.h"

#include "broker/api/config_file.h"
#include "broker/standalone/standalone.h"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <pthread.h>
#include <unistd.h>
#include <csignal>
#include <cstdio>
#include <cstdlib>

namespace magnetar::app {

namespace {

// Written to a temporary name and renamed, so a reader never sees half a file.
bool write_ready_file(const std::string& path, const broker::standalone& server) {
  const auto text = fmt::format(
      R"({{"brokerServiceUrl": "pulsar://127.0.0.1:{}", "webServiceUrl": "http://127.0.0.1:{}", "pid": {}}})",
      server.broker_port(), server.web_port(), ::getpid());
  const auto temporary = path + ".tmp";
  std::FILE* file = std::fopen(temporary.c_str(), "w");
  const bool written = file != nullptr && std::fputs(text.c_str(), file) >= 0 && std::fputc('\n', file) != EOF;
  if (file != nullptr) std::fclose(file);
  if (!written || std::rename(temporary.c_str(), path.c_str()) != 0) {
    fmt::print(stderr, "magnetar standalone: cannot write --ready-file {}\n", path);
    return false;
  }
  return true;
}

}  // namespace

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

  if (_log_file) {
    try {
      auto file = spdlog::basic_logger_mt("magnetar-file", *_log_file);
      file->set_level(spdlog::default_logger()->level());
      spdlog::set_default_logger(file);
    } catch (const spdlog::spdlog_ex& e) {
      fmt::print(stderr, "magnetar standalone: --log-file {}: {}\n", *_log_file, e.what());
      return EXIT_FAILURE;
    }
  }

  // The stop signals are waited for by this thread; every thread started later inherits
  // the mask, so no other thread takes them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  broker::standalone server(config);
  if (auto started = server.start(); !started) {
    fmt::print(stderr, "magnetar standalone: {}\n", started.error());
    server.stop();
    return EXIT_FAILURE;
  }
  if (_ready_file && !write_ready_file(*_ready_file, server)) {
    server.stop();
    return EXIT_FAILURE;
  }
  int signal = 0;
  sigwait(&stop_signals, &signal);
  spdlog::info("{}: stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
  server.stop();
  spdlog::info("stopped");
  return EXIT_SUCCESS;
}

}  // namespace magnetar::app
