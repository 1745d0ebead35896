#include "network_commands.h"

#include "perf/network/network_check.h"

#include <fmt/format.h>

#include <csignal>

namespace magnetar::perf {
namespace {

std::atomic<bool> stop_forwarding{false};

void on_stop(int) { stop_forwarding = true; }

int forward(const network_commands& commands) {
  struct sigaction action {};
  action.sa_handler = on_stop;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
  auto options = commands.forward;
  options.delay = std::chrono::microseconds(commands.delay_us);
  options.jitter = std::chrono::microseconds(commands.jitter_us);
  auto stats = run_forwarder(options, stop_forwarding);
  if (!stats) {
    fmt::print(stderr, "magnetar-perf netem-forward: {}\n", stats.error().message());
    return 1;
  }
  fmt::print("{}", stats_json(stats.value()));
  return 0;
}

}  // namespace

void add_network_commands(CLI::App& app, network_commands& commands) {
  auto& f = commands.forward;
  auto* forward = commands.forward_command = app.add_subcommand(
      "netem-forward", "Delay the packets routed into a TUN device (the launcher's delay forwarder)");
  forward->add_option("--device", f.device, "The TUN device, made beforehand (ip tuntap add DEV mode tun)")->required();
  forward->add_option("--delay-us", commands.delay_us, "Delay of each packet, microseconds")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{10'000'000}));
  forward->add_option("--jitter-us", commands.jitter_us, "Uniform jitter around the delay, microseconds")
      ->check(CLI::Range(std::int64_t{0}, std::int64_t{10'000'000}));
  forward->add_flag("--reorder", f.reorder, "Let jitter reorder packets (netem's behaviour)");
  forward->add_option("--seed", f.seed, "The jitter's random seed");
  forward->add_option("--max-queue-bytes", f.max_queue_bytes, "Bytes held at most; more are dropped")
      ->capture_default_str();
  forward->add_option("--stats-file", f.stats_file, "Where its figures go (JSON) when it stops");
  forward->add_option("--ready-file", f.ready_file, "Written once the device is open");
  commands.check_command = app.add_subcommand(
      "network-check", "Check each network impairment between real namespaces (ping, iperf3); needs root");
}

int run_network_command(const network_commands& commands) {
  if (commands.forward_command != nullptr && commands.forward_command->parsed()) return forward(commands);
  if (commands.check_command != nullptr && commands.check_command->parsed()) return run_network_check();
  return -1;
}

}  // namespace magnetar::perf
