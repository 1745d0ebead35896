// magnetar-perf: load against a Pulsar-protocol broker, measured.
//
//   magnetar-perf produce  -u pulsar://host:6650 -t topic -s 100 -r 30000 -d 20
//   magnetar-perf consume  -u ... -t topic --subscription perf-sub -d 20
//   magnetar-perf pubsub   -u ... -t topic -s 100 -d 20 [--report-dir DIR]
//   magnetar-perf run --scenario FILE [--set k=v] [--reports-dir D]   (launcher_commands.h)
//   magnetar-perf compare RUN_A RUN_B
//   magnetar-perf report RUN_DIR
//   magnetar-perf st-split -u ... --admin-url http://host:8080 -r 30000 -d 30   (st_split_run.h)
//
// Flags follow pulsar-perf's vocabulary where one exists. pubsub runs a consumer and a
// producer in one process and reports throughput and publish / end-to-end latency
// percentiles; --report-dir writes report.md there.
#include "base/log.h"
#include "launcher_commands.h"
#include "perf_run.h"
#include "st_split_run.h"
#include "workload_commands.h"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace {

void add_options(CLI::App& command, magnetar::perf::perf_options& o) {
  command.add_option("-u,--service-url", o.service_url, "Broker service URL")->capture_default_str();
  command.add_option("-t,--topic", o.topic, "Topic")->capture_default_str();
  command.add_option("--subscription", o.subscription, "Subscription name")->capture_default_str();
  command.add_option("-s,--size", o.message_size, "Message size in bytes (at least 8)")
      ->capture_default_str()
      ->check(CLI::Range(8, 5 * 1024 * 1024));
  command.add_option("-r,--rate", o.rate, "Messages per second; 0 is as fast as possible")->capture_default_str();
  command.add_option_function<int>(
             "-d,--duration", [&o](int s) { o.duration = std::chrono::seconds(s); }, "Seconds to run (default 10)")
      ->check(CLI::Range(1, 3600));
  command.add_flag("!--disable-batching", o.batching, "Send every message in its own entry");
  command.add_option("-b,--batch-max-messages", o.batch_max_messages, "Messages per batch")->capture_default_str();
  command.add_option_function<int>(
      "--batch-time-window", [&o](int ms) { o.batch_max_delay = std::chrono::milliseconds(ms); },
      "Batching delay in milliseconds (default 1)");
  command.add_option("-o,--max-outstanding", o.max_pending, "Messages awaiting their receipt")->capture_default_str();
  command.add_option("-z,--compression", o.compression, "none, lz4 or zstd")->capture_default_str();
  command.add_option("-q,--receiver-queue-size", o.receiver_queue_size, "Consumer receive queue")->capture_default_str();
  command.add_option("--subscription-type", o.subscription_type, "Exclusive, Shared, Failover or Key_Shared")
      ->capture_default_str()
      ->check(CLI::IsMember({"Exclusive", "Shared", "Failover", "Key_Shared"}));
  command.add_option("-n,--num-consumers", o.consumers, "Consumers on the subscription")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  command.add_option("--keys", o.keys, "Distinct message keys, round robin (0: none); batches per key")
      ->capture_default_str();
  command.add_option("--num-listener-threads", o.listener_threads, "Threads running the consumers' message listeners")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"magnetar-perf: load a Pulsar-protocol broker and measure it"};
  app.require_subcommand(1);
  magnetar::perf::perf_options options;
  std::string report_dir;
  auto* produce = app.add_subcommand("produce", "Publish messages and measure publish latency");
  auto* consume = app.add_subcommand("consume", "Consume messages and measure end-to-end latency");
  auto* pubsub = app.add_subcommand("pubsub", "Publish and consume in one process; report both");
  for (auto* command : {produce, consume, pubsub}) add_options(*command, options);
  pubsub->add_option("--report-dir", report_dir, "Write report.md into this directory");
  magnetar::perf::st_split_options split;
  auto* st_split = app.add_subcommand("st-split", "Keep a scalable topic under load through a split and a merge");
  st_split->add_option("-u,--service-url", split.service_url, "Broker service URL")->capture_default_str();
  st_split->add_option("--admin-url", split.admin_url, "Broker admin URL")->capture_default_str();
  st_split->add_option("-t,--topic", split.topic, "topic://public/default/<name> (default: a new one)");
  st_split->add_option("-r,--rate", split.rate, "Messages per second")->capture_default_str();
  st_split->add_option("-s,--size", split.message_size, "Message size in bytes")->capture_default_str();
  st_split->add_option("--keys", split.keys, "Distinct keys, round robin")->capture_default_str();
  st_split->add_option_function<int>("-d,--duration", [&](int s) { split.duration = std::chrono::seconds(s); },
                                     "Seconds of publishing (default 30)");
  st_split->add_option_function<int>("--split-at", [&](int s) { split.split_at = std::chrono::seconds(s); },
                                     "Split segment 0 after this many seconds (default 10)");
  st_split->add_option_function<int>("--merge-at", [&](int s) { split.merge_at = std::chrono::seconds(s); },
                                     "Merge segments 1 and 2 after this many seconds (default 20)");
  magnetar::perf::workload_commands workloads;
  magnetar::perf::add_workload_commands(app, workloads);
  magnetar::perf::launcher_commands launcher;
  magnetar::perf::add_launcher_commands(app, launcher);
  CLI11_PARSE(app, argc, argv);

  if (auto logging = magnetar::base::init_logging("magnetar-perf", "warn"); !logging) {
    fmt::print(stderr, "magnetar-perf: {}\n", logging.error());
    return EXIT_FAILURE;
  }
  if (const int workload = magnetar::perf::run_workload_command(workloads); workload >= 0) return workload;
  if (const int launched = magnetar::perf::run_launcher_command(launcher); launched >= 0) return launched;
  if (st_split->parsed()) {
    auto ran = magnetar::perf::run_st_split(split);
    if (!ran) fmt::print(stderr, "magnetar-perf: {}\n", ran.error());
    if (ran) fmt::print("{}", magnetar::perf::summary(split, ran.value()));
    return ran && ran.value().missing == 0 && ran.value().out_of_order == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
  }
  auto results = produce->parsed()   ? magnetar::perf::run_produce(options)
                 : consume->parsed() ? magnetar::perf::run_consume(options)
                                     : magnetar::perf::run_pubsub(options);
  if (!results) {
    fmt::print(stderr, "magnetar-perf: {}\n", results.error());
    return EXIT_FAILURE;
  }
  fmt::print("{}", magnetar::perf::summary(options, results.value()));
  if (!report_dir.empty()) {
    std::filesystem::create_directories(report_dir);
    const auto path = std::filesystem::path(report_dir) / "report.md";
    std::ofstream(path) << magnetar::perf::markdown_report(options, results.value());
    fmt::print("report: {}\n", path.string());
  }
  return results.value().sent > 0 || consume->parsed() ? EXIT_SUCCESS : EXIT_FAILURE;
}
