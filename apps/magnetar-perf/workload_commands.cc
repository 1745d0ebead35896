#include "workload_commands.h"

#include "perf/workload/applications.h"
#include "perf/workload/gateways.h"
#include "perf/workload/priority.h"

#include <fmt/format.h>

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
}

int run_workload_command(const workload_commands& commands) {
  if (!commands.produce->parsed() && !commands.consume->parsed()) return -1;
  auto options = commands.options;
  if (options.coordination_dir.empty()) options.coordination_dir = options.output / "coordination";
  // Before any thread starts. A run at the broker's priority is still a valid run: it
  // goes on, with a warning.
  if (auto lowered = lower_priority(options.nice); !lowered) {
    fmt::print(stderr, "magnetar-perf: could not lower this workload's priority: {}\n", lowered.error().message());
  }
  return commands.produce->parsed() ? run_gateways(options) : run_applications(options);
}

}  // namespace magnetar::perf
