#include "workload_commands.h"

#include "perf/workload/applications.h"
#include "perf/workload/gateways.h"
#include "perf/workload/priority.h"

#include <fmt/format.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace magnetar::perf {

void add_workload_commands(CLI::App& app, workload_commands& commands) {
  commands.produce = app.add_subcommand("iot-produce", "Run the IoT telemetry gateways (started by `run`)");
  commands.consume = app.add_subcommand("iot-consume", "Run the IoT telemetry applications (started by `run`)");
  auto& o = commands.options;
  for (auto* command : {commands.produce, commands.consume}) {
    command->add_option("--config", o.config, "The run's resolved-config.yaml")->required()->check(CLI::ExistingFile);
    command->add_option("--output", o.output, "Directory for this process's results")->required();
    command->add_option("--run-id", o.run_id, "The run id that tags coordination markers")->required();
    command->add_option("--coordination-dir", o.coordination_dir,
                        "Shared marker directory (default OUTPUT/coordination)");
    command->add_option("--service-url", o.service_url, "Broker service URL")->capture_default_str();
    command->add_option("--events", o.events_file, "The run's events.csv to append to");
    command->add_option("--nice", o.nice, "Run this many nice steps below the caller")->check(CLI::Range(0, 19));
  }
  commands.consume->add_flag("--drop-one-message", o.drop_one_message,
                             "Test hook: forget one received message so that the run must fail");
  commands.consume->add_flag("--remote", o.remote,
                             "Run the remote cluster's applications (cluster.remote.applications, geo-replication)");
}

namespace {

// The client library's own lines (reconnections, timeouts, lookups) go to
// <output>/pulsar-client.log.txt, as upstream's framework keeps them, at the level of
// PULSAR_CLIENT_LOG_LEVEL (or MAGNETAR_CLIENT_LOG_LEVEL): trace, debug, info, warn
// (the default), error or off.
void log_client_to_file(const std::filesystem::path& output) {
  std::string level_name = "warn";
  for (const char* variable : {"MAGNETAR_CLIENT_LOG_LEVEL", "PULSAR_CLIENT_LOG_LEVEL"}) {
    if (const char* value = std::getenv(variable); value != nullptr && *value != '\0') level_name = value;
  }
  std::transform(level_name.begin(), level_name.end(), level_name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto level = spdlog::level::from_str(level_name);
  std::error_code ec;
  std::filesystem::create_directories(output, ec);
  try {
    auto logger = spdlog::basic_logger_mt("pulsar-client", (output / "pulsar-client.log.txt").string());
    logger->set_level(level);
    logger->flush_on(spdlog::level::warn);
    spdlog::set_default_logger(std::move(logger));
  } catch (const spdlog::spdlog_ex& e) {
    fmt::print(stderr, "magnetar-perf: client log stays on stderr: {}\n", e.what());
  }
}

}  // namespace

int run_workload_command(const workload_commands& commands) {
  if (!commands.produce->parsed() && !commands.consume->parsed()) return -1;
  auto options = commands.options;
  if (options.coordination_dir.empty()) options.coordination_dir = options.output / "coordination";
  // Before any thread starts. A run at the broker's priority is still a valid run: it
  // goes on, with a warning.
  if (auto lowered = lower_priority(options.nice); !lowered) {
    fmt::print(stderr, "magnetar-perf: could not lower this workload's priority: {}\n", lowered.error().message());
  }
  log_client_to_file(options.output);
  return commands.produce->parsed() ? run_gateways(options) : run_applications(options);
}

}  // namespace magnetar::perf
