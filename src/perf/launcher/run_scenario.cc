// The run's flow: the one file of the launcher that calls into the other parts
// (scenario, measure, report; the workloads run as processes). See run_scenario.h.
#include "perf/launcher/run_scenario.h"

#include "base/version.h"
#include "http/url.h"
#include "perf/cluster/cluster_json.h"
#include "perf/cluster/node_configs.h"
#include "perf/launcher/admin_requests.h"
#include "perf/launcher/console_log.h"
#include "perf/launcher/host_info.h"
#include "perf/launcher/progress_monitor.h"
#include "perf/launcher/replication_setup.h"
#include "perf/launcher/run_directory.h"
#include "perf/launcher/run_info.h"
#include "perf/launcher/run_network.h"
#include "perf/launcher/run_plan.h"
#include "perf/launcher/run_target.h"
#include "perf/launcher/run_verdict.h"
#include "perf/launcher/topic_stats_sampler.h"
#include "perf/launcher/workload_wait.h"
#include "perf/measure/device_state.h"
#include "perf/measure/events_log.h"
#include "perf/report/run_report.h"
#include "perf/scenario/scenario_loader.h"
#include "perf/workload/priority.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <fstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

constexpr int exit_passed = 0;
constexpr int exit_failed = 1;
constexpr int exit_usage = 2;

// Set by SIGINT/SIGTERM: the run stops its workloads and still writes what it has.
volatile std::sig_atomic_t interrupted = 0;

void on_stop_signal(int) { interrupted = 1; }

void install_stop_handlers() {
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = 0;  // no SA_RESTART: a wait returns early and looks at the flag
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

fs::path self_executable() {
  std::error_code ec;
  auto path = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("magnetar-perf") : path;
}

// `applications`: the folder of the run directory the application wrote to
// ("applications", or "remote-applications" for a remote cluster's).
application_outcome judge_application(const fs::path& run_dir, std::string_view applications,
                                      const std::string& subscription,
                                      const result<std::vector<std::uint64_t>>& gateways_state) {
  application_outcome out{.subscription = subscription};
  const auto folder = run_dir / applications / subscription;
  if (auto summary = read_json_file(folder / "application-summary.json")) out.summary = std::move(summary).value();
  if (!gateways_state) {
    out.state_error = gateways_state.error().message();
    return out;
  }
  auto state = read_device_state(folder / "application-state.bin");
  if (!state) {
    out.state_error = state.error().message();
    return out;
  }
  auto missing = compare_device_state(gateways_state.value(), state.value());
  if (!missing) {
    out.state_error = missing.error().message();
    return out;
  }
  out.missing_messages = missing.value().missing_messages;
  out.devices_missing = missing.value().devices_missing;
  out.missing_samples = missing.value().samples;
  if (out.missing_samples.size() > 3) out.missing_samples.resize(3);
  return out;
}

// Allows the tenant in both clusters and replicates public/default to both (with its
// retention), asked of the first cluster from the monitor's namespace; the reason it
// could not, for the verdict.
std::optional<std::string> switch_replication_on(const run_target& target, const http::url& admin,
                                                 int retention_minutes, console_log& console) {
  result<void> done = success();
  const std::vector<std::string> clusters = {std::string(launched_cluster_name), std::string(remote_cluster_name)};
  const auto reached = target.from_monitor([&] { done = enable_replication(admin, clusters, retention_minutes); });
  if (!reached) done = reached.error();
  if (!done) {
    const auto failure = fmt::format("replication not switched on: {}", done.error().message());
    console.error_line(fmt::format("warning: {}", failure));
    return failure;
  }
  console.line(fmt::format("replication: {} replicated between {} and {}{}", replicated_namespace, clusters[0],
                           clusters[1],
                           retention_minutes > 0 ? fmt::format(", retention {} min", retention_minutes) : ""));
  return std::nullopt;
}

}  // namespace

int run_scenario(const launcher_options& options) {
  console_log console;
  const auto refuse = [&](std::string_view message) {
    console.error_line(fmt::format("magnetar-perf run: {}", message));
    return exit_usage;
  };
  if (options.service_url.has_value() != options.admin_url.has_value()) {
    return refuse("--service-url and --admin-url go together (the admin URL is for topic stats)");
  }
  auto resolved = resolve_scenario(options.scenario, {.extends = options.extends, .sets = options.sets});
  if (!resolved) return refuse(resolved.error().message());
  auto parsed = parse_settings(resolved.value());
  if (!parsed) return refuse(parsed.error().message());
  const scenario_settings& settings = parsed.value();
  const auto& iot = settings.iot;
  if (auto ready = run_target::check(settings.cluster, settings.network, options); !ready) {
    return refuse(ready.error().message());
  }
  // What the network section needs is probed before anything starts.
  network_capabilities capabilities;
  if (settings.network.any_enabled()) {
    auto probed = run_network::probe(settings.network);
    if (!probed) return refuse(probed.error().message());
    capabilities = probed.value();
  }
  std::optional<http::url> admin;
  if (options.admin_url) {
    auto endpoint = http::url::parse(*options.admin_url, 80, "admin URL");
    if (!endpoint) return refuse(endpoint.error().message());
    admin = std::move(endpoint).value();
  }

  const auto started_at = std::chrono::system_clock::now();
  const auto name = run_name(options, settings.output_name);
  auto created = create_run_directory(options.reports_dir, name, started_at);
  if (!created) return refuse(created.error().message());
  const run_directory run = std::move(created).value();
  if (auto attached = console.attach(run.root / "console.log.txt"); !attached)
    return refuse(attached.error().message());
  auto events_opened = events_log::open(run.root / "events.csv");
  if (!events_opened) return refuse(events_opened.error().message());
  events_log events = std::move(events_opened).value();
  const auto log_event = [&](std::string_view event) {
    if (auto appended = events.append("launcher", event); !appended) console.error_line(appended.error().message());
  };
  {
    std::ofstream config(run.root / "resolved-config.yaml");
    config << emit_yaml(resolved.value()) << '\n';
    if (!config.flush()) return refuse(fmt::format("write {}", (run.root / "resolved-config.yaml").string()));
  }
  install_stop_handlers();
  console.line(fmt::format("run {} ({}): {}", name, run.run_id, run.root.string()));
  log_event("run-started");

  run_info info{.run_id = run.run_id,
                .name = name,
                .scenario = fs::absolute(options.scenario),
                .started_at = started_at,
                .workload_nice = available_nice_steps(options.workload_nice),
                .host = read_host_info(),
                .magnetar_version = std::string(base::version())};
  std::vector<std::string> setup_failures;
  // Replication that could not be switched on fails the run, and the remote applications
  // still run: their missing messages show what it meant.
  std::optional<std::string> replication_failure;
  auto target = run_target::start(settings.cluster, settings.network, options, run.root, run.run_id, console);
  std::unique_ptr<run_network> network;
  if (target) {
    info.service_url = target.value()->service_url();
    info.admin_url = target.value()->admin_url();
    info.standalone = target.value()->is_standalone();
    info.cluster = target.value()->is_cluster();
    if (!options.service_url) {
      admin = http::url::parse(info.admin_url).value();
      log_event(info.standalone ? "standalone-ready" : "cluster-ready");
    }
    result<bool> made = false;
    const auto reached =
        target.value()->from_monitor([&] { made = ensure_namespace(*admin, iot.topics.prefix + "0"); });
    if (!reached) made = reached.error();
    if (!made) console.error_line(fmt::format("warning: {}", made.error().message()));
    if (target.value()->has_remote()) {
      info.remote_service_url = target.value()->remote_service_url();
      info.remote_admin_url = target.value()->remote_admin_url();
      replication_failure =
          switch_replication_on(*target.value(), *admin, settings.cluster.remote->retention_minutes, console);
    }
    if (settings.network.any_enabled()) {
      auto started = run_network::start({.settings = &settings,
                                         .network = target.value()->network(),
                                         .capabilities = capabilities,
                                         .run_dir = run.root,
                                         .program = self_executable(),
                                         .log_event = log_event,
                                         .print = [&](std::string_view line) { console.line(line); }});
      if (started) {
        network = std::move(started).value();
      } else {
        setup_failures.push_back(started.error().message());
      }
    }
  } else {
    setup_failures.push_back(target.error().detail());
  }

  verdict_inputs inputs{.timeout_seconds = iot.timeout_seconds};
  inputs.gateways.log = (run.root / "workloads" / "gateways.log").string();
  inputs.applications.log = (run.root / "workloads" / "applications.log").string();
  // The remote cluster (geo-replication), when the scenario has one.
  const auto& remote = settings.cluster.remote;
  if (setup_failures.empty()) {
    const workload_paths paths{.program = self_executable(),
                               .run_dir = run.root,
                               .run_id = run.run_id,
                               .service_url = info.service_url,
                               .nice = options.workload_nice};
    auto& system = *target.value();
    auto applications_spec =
        workload_spec(workload_kind::applications, paths, options.drop_one_message, iot.applications.env);
    applications_spec.network_namespace = system.client_namespace("applications");
    auto gateways_spec = workload_spec(workload_kind::gateways, paths, false, iot.gateways.env);
    gateways_spec.network_namespace = system.client_namespace("gateways");
    auto applications = child_process::start(applications_spec);
    // The remote cluster's applications start before the gateways, which wait for them.
    std::optional<result<child_process>> remote_applications;
    if (remote) {
      auto remote_paths = paths;
      remote_paths.service_url = info.remote_service_url;
      auto remote_spec =
          workload_spec(workload_kind::remote_applications, remote_paths, false, remote->applications.env);
      remote_spec.network_namespace = system.client_namespace(remote_applications_node);
      remote_applications =
          applications ? child_process::start(remote_spec) : result<child_process>(applications.error());
    }
    const error* not_started = !applications                                  ? &applications.error()
                               : remote_applications && !*remote_applications ? &remote_applications->error()
                                                                              : nullptr;
    auto gateways = not_started == nullptr ? child_process::start(gateways_spec) : result<child_process>(*not_started);
    if (!gateways) {
      setup_failures.push_back(fmt::format("workloads: {}", gateways.error().message()));
    } else {
      console.line(fmt::format(
          "workloads started: applications (pid {}), {}gateways (pid {}); logs in {}", applications.value().pid(),
          remote_applications ? fmt::format("remote applications (pid {}), ", remote_applications->value().pid()) : "",
          gateways.value().pid(), (run.root / "workloads").string()));
      std::vector<std::string> topics;
      for (int t = 0; t < iot.topics.count; ++t) topics.push_back(iot.topic(t));
      topic_stats_sampler sampler({.admin = *admin,
                                   .topics = topics,
                                   .csv_file = run.root / "topic-stats.csv",
                                   .metrics_csv_file = run.root / "broker-metrics.csv",
                                   .on_error = [&](std::string_view m) { console.error_line(m); },
                                   .network_namespace = system.client_namespace("monitor"),
                                   .brokers = system.broker_metrics(),
                                   .bookies = system.bookie_metrics(),
                                   .bookie_metrics_csv_file = run.root / "bookie-metrics.csv",
                                   .replication_csv_file = remote ? run.root / "replication-stats.csv" : fs::path()});
      if (auto sampling = sampler.start(); !sampling) console.error_line(sampling.error().message());
      // The remote cluster's topics (the replicated messages' backlog at the remote
      // applications' subscriptions), read from its own brokers.
      std::optional<topic_stats_sampler> remote_sampler;
      if (remote) {
        remote_sampler.emplace(topic_stats_sampler_options{
            .admin = http::url::parse(info.remote_admin_url).value(),
            .topics = topics,
            .csv_file = run.root / "remote-topic-stats.csv",
            .on_error = [&](std::string_view m) { console.error_line(fmt::format("remote cluster: {}", m)); },
            .network_namespace = system.client_namespace("monitor")});
        if (auto sampling = remote_sampler->start(); !sampling) console.error_line(sampling.error().message());
      }
      progress_monitor progress(
          {.run_dir = run.root,
           .interval = std::chrono::seconds(options.progress_interval_seconds),
           .backlog = [&] { return sampler.latest_backlog(); },
           .print = [&](std::string_view line) { console.line(line); },
           .remote = remote.has_value(),
           .remote_backlog = [&] { return remote_sampler ? remote_sampler->latest_backlog() : std::nullopt; },
           .replication_backlog = [&] { return sampler.latest_replication_backlog(); }});
      progress.start();
      if (network) network->start_schedule();
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(iot.timeout_seconds + workload_grace_seconds);
      // A node that ends mid-run (a crash, or a fault's kill) is an event of the run; the
      // verdict still comes from the messages.
      // A failed network impairment stops the run at once: what follows would measure
      // a network other than the scenario's.
      const auto watch_nodes = [&] {
        for (const auto& [node, code] : system.newly_exited_nodes()) {
          console.error_line(fmt::format("warning: cluster node {} exited with code {}", node, code));
          log_event(fmt::format("node-exited-{}", node));
        }
        return network ? network->failure() : std::string();
      };
      std::vector<running_workload> running = {
          {.name = "gateways", .child = &gateways.value(), .outcome = &inputs.gateways},
          {.name = "applications", .child = &applications.value(), .outcome = &inputs.applications}};
      if (remote_applications) {
        running.push_back({.name = "remote applications",
                           .child = &remote_applications->value(),
                           .outcome = &inputs.remote_applications.emplace(workload_outcome{
                               .log = (run.root / "workloads" / "remote-applications.log").string()})});
      }
      wait_for_workloads(running, {.deadline = deadline,
                                   .timeout_seconds = iot.timeout_seconds,
                                   .grace_seconds = workload_grace_seconds,
                                   .interrupted = [] { return interrupted != 0; },
                                   .each_second = watch_nodes,
                                   .error_line = [&](std::string_view line) { console.error_line(line); }});
      progress.stop();
      progress.print_line();
      sampler.stop();
      if (remote_sampler) remote_sampler->stop();
    }
  }

  if (auto summary = read_json_file(run.root / "gateways" / "gateways-summary.json")) {
    inputs.gateways_summary = std::move(summary).value();
  }
  const auto gateways_state = read_device_state(run.root / "gateways" / "gateways-state.bin");
  std::vector<std::string> network_failures;
  if (network) network_failures = network->finish();
  if (setup_failures.empty()) {
    for (int a = 0; a < iot.applications.count; ++a) {
      inputs.each_application.push_back(
          judge_application(run.root, "applications", iot.subscription(a), gateways_state));
    }
    for (int a = 0; remote && a < remote->applications.count; ++a) {
      inputs.each_remote_application.push_back(
          judge_application(run.root, "remote-applications", iot.subscription(a), gateways_state));
    }
  }
  info.verdict = judge_run(inputs);
  if (replication_failure) info.verdict.failures.insert(info.verdict.failures.begin(), *replication_failure);
  for (auto& failure : network_failures) info.verdict.failures.push_back(std::move(failure));
  if (!setup_failures.empty()) {
    // What did not start explains everything after it: it goes first, alone.
    info.verdict.failures = setup_failures;
    info.verdict.passed = false;
  }
  if (interrupted != 0) info.verdict.failures.insert(info.verdict.failures.begin(), "interrupted (SIGINT/SIGTERM)");
  info.verdict.passed = info.verdict.failures.empty();

  if (target) {
    if (options.leave_running) {
      target.value()->leave_running(console, run.root);
    } else {
      target.value()->stop(console);
    }
  }
  info.finished_at = std::chrono::system_clock::now();
  log_event("run-finished");
  if (auto written = write_run_info(run.root, info); !written) console.error_line(written.error().message());

  if (auto report = write_run_report(run.root)) {
    console.line(fmt::format("report: {}", report.value().string()));
    console.line(fmt::format("report: {}", (run.root / "README.md").string()));
  } else {
    console.error_line(fmt::format("report: {}", report.error().message()));
  }
  if (info.verdict.passed) {
    console.line("PASSED");
    return exit_passed;
  }
  console.error_line("FAILED:");
  for (const auto& failure : info.verdict.failures) console.error_line(fmt::format("  - {}", failure));
  return exit_failed;
}

int run_report(const std::filesystem::path& run_dir) {
  if (!fs::is_directory(run_dir)) {
    fmt::print(stderr, "magnetar-perf report: {}: not a run directory\n", run_dir.string());
    return exit_usage;
  }
  auto written = write_run_report(run_dir);
  if (!written) {
    fmt::print(stderr, "magnetar-perf report: {}\n", written.error().message());
    return exit_failed;
  }
  fmt::print("report: {}\n", written.value().string());
  return exit_passed;
}

int run_cluster_down(const std::filesystem::path& run_dir) {
  auto down = cluster_down(run_dir, std::chrono::seconds(20), [](std::string_view line) { fmt::print("{}\n", line); });
  if (!down) {
    fmt::print(stderr, "magnetar-perf cluster down: {}\n", down.error().message());
    return exit_failed;
  }
  fmt::print("cluster of {} stopped\n", run_dir.string());
  return exit_passed;
}

int run_compare(const compare_options& options) {
  for (const auto& dir : {options.run_a, options.run_b}) {
    if (!fs::is_directory(dir)) {
      fmt::print(stderr, "magnetar-perf compare: {}: not a run directory\n", dir.string());
      return exit_usage;
    }
  }
  const auto output = options.output.value_or(default_comparison_dir(options.run_a, options.run_b));
  auto written = write_comparison(options.run_a, options.run_b, output);
  if (!written) {
    fmt::print(stderr, "magnetar-perf compare: {}\n", written.error().message());
    return exit_failed;
  }
  fmt::print("comparison: {}\n", written.value().string());
  return exit_passed;
}

}  // namespace magnetar::perf
