#include "bench_commands.h"

#include "perf/bench/perf_report.h"
#include "perf/bench/st_split_report.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace magnetar::perf {

namespace {

void add_perf_options(CLI::App& command, perf_options& o) {
  command.add_option("-u,--service-url", o.service_url, "Broker service URL")->capture_default_str();
  command.add_option("--auth-plugin", o.auth_plugin, "Authentication plugin (the token plugin's class name, or token)");
  command.add_option("--auth-params", o.auth_params, "Its parameters: token:<jwt>, file:///path or {\"token\": ...}")
      ->envname("MAGNETAR_AUTH_PARAMS");
  command.add_option("--trust-cert-file", o.trust_cert_file, "CA certificates (PEM) trusted for pulsar+ssl://");
  command.add_flag("--tls-allow-insecure", o.tls_allow_insecure, "Accept any TLS certificate from the broker");
  command.add_option("-t,--topic", o.topic, "Topic")->capture_default_str();
  command.add_option("--subscription", o.subscription, "Subscription name")->capture_default_str();
  command.add_option("-s,--size", o.message_size, "Message size in bytes (at least 8)")
      ->capture_default_str()
      ->check(CLI::Range(8, 5 * 1024 * 1024));
  command.add_option("-r,--rate", o.rate, "Messages per second; 0 is as fast as possible")->capture_default_str();
  command
      .add_option_function<int>(
          "-d,--duration", [&o](int s) { o.duration = std::chrono::seconds(s); }, "Seconds to run (default 10)")
      ->check(CLI::Range(1, 3600));
  command.add_flag("!--disable-batching", o.batching, "Send every message in its own entry");
  command.add_option("-b,--batch-max-messages", o.batch_max_messages, "Messages per batch")->capture_default_str();
  command.add_option_function<int>(
      "--batch-time-window", [&o](int ms) { o.batch_max_delay = std::chrono::milliseconds(ms); },
      "Batching delay in milliseconds (default 1)");
  command.add_option("-o,--max-outstanding", o.max_pending, "Messages awaiting their receipt")->capture_default_str();
  command.add_option("-z,--compression", o.compression, "none, lz4 or zstd")->capture_default_str();
  command.add_option("-q,--receiver-queue-size", o.receiver_queue_size, "Consumer receive queue")
      ->capture_default_str();
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

void add_st_split_options(CLI::App& command, st_split_options& o) {
  command.add_option("-u,--service-url", o.service_url, "Broker service URL")->capture_default_str();
  command.add_option("--admin-url", o.admin_url, "Broker admin URL")->capture_default_str();
  command.add_option("-t,--topic", o.topic, "topic://public/default/<name> (default: a new one)");
  command.add_option("-r,--rate", o.rate, "Messages per second")->capture_default_str();
  command.add_option("-s,--size", o.message_size, "Message size in bytes")->capture_default_str();
  command.add_option("--keys", o.keys, "Distinct keys, round robin")->capture_default_str();
  command.add_option_function<int>(
      "-d,--duration", [&o](int s) { o.duration = std::chrono::seconds(s); }, "Seconds of publishing (default 30)");
  command.add_option_function<int>(
      "--split-at", [&o](int s) { o.split_at = std::chrono::seconds(s); },
      "Split segment 0 after this many seconds (default 10)");
  command.add_option_function<int>(
      "--merge-at", [&o](int s) { o.merge_at = std::chrono::seconds(s); },
      "Merge segments 1 and 2 after this many seconds (default 20)");
}

int run_st_split_command(const st_split_options& options) {
  auto ran = run_st_split(options);
  if (!ran) {
    fmt::print(stderr, "magnetar-perf: {}\n", ran.error());
    return EXIT_FAILURE;
  }
  fmt::print("{}", summary(options, ran.value()));
  return ran.value().missing == 0 && ran.value().out_of_order == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

// The pipeline, then pubsub against the broker with the same messages, batches and
// window, and the broker's share of the pipeline's rate.
int run_limit_command(const bench_commands& commands) {
  auto pipeline = commands.pipeline;
  const auto& perf = commands.perf;
  pipeline.message_size = perf.message_size;
  pipeline.duration = perf.duration;
  pipeline.batch_messages = perf.batch_max_messages;
  pipeline.max_outstanding = perf.max_pending;
  auto limit = run_limit_pipeline(pipeline);
  if (!limit) {
    fmt::print(stderr, "magnetar-perf: {}\n", limit.error());
    return EXIT_FAILURE;
  }
  fmt::print("{}", limit_summary(pipeline, limit.value()));
  if (commands.pipeline_only) return EXIT_SUCCESS;
  auto broker = run_pubsub(perf);
  if (!broker) {
    fmt::print(stderr, "magnetar-perf: {}\n", broker.error());
    return EXIT_FAILURE;
  }
  fmt::print("{}", summary(perf, broker.value()));
  const auto& b = broker.value();
  const double broker_rate = b.consume_seconds > 0 ? static_cast<double>(b.received) / b.consume_seconds : 0;
  const double limit_rate = delivered_rate(limit.value());
  fmt::print("broker end to end over the zero-logic pipeline: {:.0f} / {:.0f} msg/s = {:.1f} %\n", broker_rate,
             limit_rate, limit_rate > 0 ? 100 * broker_rate / limit_rate : 0);
  return b.received > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace

void add_bench_commands(CLI::App& app, bench_commands& commands) {
  commands.produce = app.add_subcommand("produce", "Publish messages and measure publish latency");
  commands.consume = app.add_subcommand("consume", "Consume messages and measure end-to-end latency");
  commands.pubsub = app.add_subcommand("pubsub", "Publish and consume in one process; report both");
  for (auto* command : {commands.produce, commands.consume, commands.pubsub}) add_perf_options(*command, commands.perf);
  commands.pubsub->add_option("--report-dir", commands.report_dir, "Write report.md into this directory");
  commands.st_split = app.add_subcommand("st-split", "Keep a scalable topic under load through a split and a merge");
  add_st_split_options(*commands.st_split, commands.split);
  commands.limit = app.add_subcommand(
      "limit",
      "Run a zero-logic persist-and-forward pipeline (loopback TCP, fdatasync), then pubsub against the "
      "broker with the same messages, and print the broker's share of the pipeline's rate");
  add_perf_options(*commands.limit, commands.perf);
  commands.limit->add_option("--dir", commands.pipeline.directory, "Where the pipeline's file goes (the broker's disk)")
      ->capture_default_str();
  commands.limit->add_flag("--pipeline-only", commands.pipeline_only, "Run the pipeline alone");
}

int run_bench_command(const bench_commands& commands) {
  if (commands.st_split->parsed()) return run_st_split_command(commands.split);
  if (commands.limit->parsed()) return run_limit_command(commands);
  const bool consume_only = commands.consume->parsed();
  if (!commands.produce->parsed() && !consume_only && !commands.pubsub->parsed()) return -1;
  const auto& options = commands.perf;
  auto results = commands.produce->parsed() ? run_produce(options)
                 : consume_only             ? run_consume(options)
                                            : run_pubsub(options);
  if (!results) {
    fmt::print(stderr, "magnetar-perf: {}\n", results.error());
    return EXIT_FAILURE;
  }
  fmt::print("{}", summary(options, results.value()));
  if (!commands.report_dir.empty()) {
    std::filesystem::create_directories(commands.report_dir);
    const auto path = std::filesystem::path(commands.report_dir) / "report.md";
    std::ofstream(path) << markdown_report(options, results.value());
    fmt::print("report: {}\n", path.string());
  }
  return results.value().sent > 0 || consume_only ? EXIT_SUCCESS : EXIT_FAILURE;
}

}  // namespace magnetar::perf
