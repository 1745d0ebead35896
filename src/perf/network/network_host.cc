#include "perf/network/network_host.h"

#include "base/errc.h"
#include "perf/cluster/network_namespace.h"
#include "perf/cluster/ready_file.h"

#include <fmt/format.h>

#include <csignal>
#include <fstream>

namespace magnetar::perf {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> in_namespace(const std::string& ns, const std::vector<std::string>& argv) {
  if (ns.empty()) return argv;
  std::vector<std::string> wrapped{"ip", "netns", "exec", ns};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

}  // namespace

system_network_host::system_network_host(fs::path work_dir, fs::path program)
    : _work_dir(std::move(work_dir)), _program(std::move(program)) {}

system_network_host::~system_network_host() {
  for (auto& [device, forwarder] : _forwarders) forwarder.terminate(std::chrono::seconds(5));
}

fs::path system_network_host::stats_file(const std::string& device) const {
  return _work_dir / fmt::format("forwarder-{}.json", device);
}

result<std::string> system_network_host::run(const std::string& ns, const std::vector<std::string>& argv) {
  return run_tool(in_namespace(ns, argv));
}

result<std::string> system_network_host::run_script(const std::string& ns, const std::vector<std::string>& argv,
                                                    const std::string& script) {
  std::error_code ec;
  fs::create_directories(_work_dir, ec);
  const auto file = _work_dir / fmt::format("{:03}-{}-{}.txt", ++_scripts, argv.front(), ns.empty() ? "host" : ns);
  std::ofstream out(file);
  out << script;
  if (!out.flush()) return fail(base::errc::io_error, fmt::format("write {}", file.string()));
  auto args = argv;
  args.push_back(file.string());
  return run(ns, args);
}

result<void> system_network_host::start_forwarder(const std::string& ns, const forwarder_options& options) {
  std::error_code ec;
  fs::create_directories(_work_dir, ec);
  const auto ready = _work_dir / fmt::format("forwarder-{}.ready", options.device);
  fs::remove(ready, ec);
  std::vector<std::string> args{"netem-forward",
                                "--device",
                                options.device,
                                "--delay-us",
                                std::to_string(options.delay.count()),
                                "--jitter-us",
                                std::to_string(options.jitter.count()),
                                "--seed",
                                std::to_string(options.seed),
                                "--stats-file",
                                stats_file(options.device).string(),
                                "--ready-file",
                                ready.string()};
  if (options.reorder) args.emplace_back("--reorder");
  auto started = child_process::start({.program = _program,
                                       .args = args,
                                       .log_file = _work_dir / fmt::format("forwarder-{}.log", options.device),
                                       .network_namespace = ns.empty() ? fs::path() : fs::path("/run/netns") / ns});
  if (!started) return started.error();
  auto child = std::move(started).value();
  auto up = wait_for_ready_file(child, ready, std::chrono::steady_clock::now() + std::chrono::seconds(10));
  if (!up) {
    child.terminate(std::chrono::seconds(2));
    return fail(base::errc::io_error, fmt::format("delay forwarder on {}: {} (log: {})", options.device,
                                                  up.error().message(), child.log_file().string()));
  }
  _forwarders.emplace(options.device, std::move(child));
  return success();
}

result<std::string> system_network_host::stop_forwarder(const std::string& device) {
  const auto found = _forwarders.find(device);
  if (found == _forwarders.end()) return fail(base::errc::not_found, fmt::format("no forwarder on {}", device));
  const int code = found->second.terminate(std::chrono::seconds(5));
  _forwarders.erase(found);
  const auto stats = read_text_file(stats_file(device));
  if (code != 0 && code != child_process::signal_exit_base + SIGTERM) {
    return fail(base::errc::io_error,
                fmt::format("delay forwarder on {} exited with code {} (log in {})", device, code, _work_dir.string()));
  }
  return stats;
}

}  // namespace magnetar::perf
