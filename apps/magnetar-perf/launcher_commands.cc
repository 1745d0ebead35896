#include "launcher_commands.h"

#ifdef MAGNETAR_PERF_LAUNCHER_RUN
#include "perf/launcher/run_scenario.h"
#endif

namespace magnetar::perf {

void add_launcher_commands([[maybe_unused]] CLI::App& app, [[maybe_unused]] launcher_commands& commands) {
#ifdef MAGNETAR_PERF_LAUNCHER_RUN
  auto& o = commands.run;
  auto* run = commands.run_command = app.add_subcommand(
      "run", "Run a scenario (upstream's Performance Testing Framework format) and write its report");
  run->add_option("--scenario", o.scenario, "The scenario YAML file")->required()->check(CLI::ExistingFile);
  run->add_option("--extends", o.extends, "An overlay merged over the scenario (repeatable, in order)");
  run->add_option("--set", o.sets, "Override one setting: a.b.c=value (repeatable)");
  run->add_option("--name", o.name, "The run's name (default: output.name, else the scenario's file name)");
  run->add_option("--reports-dir", o.reports_dir, "Where run directories go")->capture_default_str();
  run->add_option("--service-url", o.service_url, "Run against this cluster instead of a standalone of its own");
  run->add_option("--admin-url", o.admin_url, "That cluster's admin REST URL (with --service-url)");
  run->add_option("--progress-interval", o.progress_interval_seconds, "Seconds between progress lines")
      ->capture_default_str()
      ->check(CLI::Range(1, 3600));
  run->add_option("--magnetar-bin", o.magnetar_bin, "The magnetar binary (default: beside magnetar-perf)");
  run->add_option("--workload-nice", o.workload_nice,
                  "Nice steps below the launcher for the gateways and applications, so that the "
                  "standalone it starts weighs more than they do (0: same priority)")
      ->capture_default_str()
      ->check(CLI::Range(0, 19));
  // A test hook, hidden from --help (an empty group): the run must then fail.
  run->add_flag("--drop-one-message", o.drop_one_message, "The applications forget one message")->group("");
  run->add_flag("--leave-running", o.leave_running,
                "Keep a cluster the launcher started running after the run (stop it with `cluster down RUN_DIR`)");
  run->add_flag("--no-namespaces", o.no_namespaces,
                "Run a cluster's processes on 127.0.0.1 with ports of their own, without network namespaces");
  auto* cluster = app.add_subcommand("cluster", "Clusters the launcher started and left running (--leave-running)");
  cluster->require_subcommand(1);
  commands.cluster_down_command =
      cluster->add_subcommand("down", "Stop a cluster left running: its processes, then its network namespaces");
  commands.cluster_down_command->add_option("RUN_DIR", commands.cluster_run_dir, "The run directory (has cluster.json)")
      ->required()
      ->check(CLI::ExistingDirectory);

  auto* report = commands.report_command =
      app.add_subcommand("report", "Write a run directory's report (README.md, index.html, charts) again");
  report->add_option("RUN_DIR", commands.report_run_dir, "The run directory")
      ->required()
      ->check(CLI::ExistingDirectory);

  auto& c = commands.compare;
  auto* compare = commands.compare_command =
      app.add_subcommand("compare", "Compare two runs: key figures and charts side by side");
  compare->add_option("RUN_A", c.run_a, "The first run directory")->required()->check(CLI::ExistingDirectory);
  compare->add_option("RUN_B", c.run_b, "The second run directory")->required()->check(CLI::ExistingDirectory);
  compare->add_option("--output", c.output, "Where the comparison goes (default: RUN_B/compare-<RUN_A's folder>)");
#endif
}

int run_launcher_command([[maybe_unused]] const launcher_commands& commands) {
#ifdef MAGNETAR_PERF_LAUNCHER_RUN
  if (commands.run_command != nullptr && commands.run_command->parsed()) return run_scenario(commands.run);
  if (commands.compare_command != nullptr && commands.compare_command->parsed()) return run_compare(commands.compare);
  if (commands.cluster_down_command != nullptr && commands.cluster_down_command->parsed())
    return run_cluster_down(commands.cluster_run_dir);
  if (commands.report_command != nullptr && commands.report_command->parsed())
    return run_report(commands.report_run_dir);
#endif
  return -1;
}

}  // namespace magnetar::perf
