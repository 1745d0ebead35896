// network_host: where the impairment engine's commands run. The system host runs the
// tools (ip, nft, tc, ss, ethtool, sysctl) inside the run's network namespaces and the
// delay forwarders as child processes; the engine's unit tests give it a fake that
// records the commands and answers with canned output.
//
// Every script the system host runs (nft -f, tc -batch) is kept under its work
// directory, numbered in the order applied: what acted on the packets can be read back
// after the run.
//
// Thread-safety: one caller at a time (the engine holds its lock while it calls).
#pragma once

#include "base/result.h"
#include "perf/cluster/child_process.h"
#include "perf/network/tun_forwarder.h"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace magnetar::perf {

class network_host {
 public:
  virtual ~network_host() = default;
  // Runs a tool inside the namespace named `ns` (the launcher's own when empty): its
  // output, or an io_error quoting the command and what it printed.
  virtual result<std::string> run(const std::string& ns, const std::vector<std::string>& argv) = 0;
  // Runs `argv` followed by the path of a file holding `script`.
  virtual result<std::string> run_script(const std::string& ns, const std::vector<std::string>& argv,
                                         const std::string& script) = 0;
  // Starts a forwarder on options.device inside `ns` and returns once it reads the device
  // (the host picks where its stats go).
  virtual result<void> start_forwarder(const std::string& ns, const forwarder_options& options) = 0;
  // Stops the forwarder of `device`: its stats (JSON, tun_forwarder.h) once written.
  virtual result<std::string> stop_forwarder(const std::string& device) = 0;
};

class system_network_host final : public network_host {
 public:
  // `program` is magnetar-perf (its netem-forward subcommand runs the forwarders).
  system_network_host(std::filesystem::path work_dir, std::filesystem::path program);
  ~system_network_host() override;

  result<std::string> run(const std::string& ns, const std::vector<std::string>& argv) override;
  result<std::string> run_script(const std::string& ns, const std::vector<std::string>& argv,
                                 const std::string& script) override;
  result<void> start_forwarder(const std::string& ns, const forwarder_options& options) override;
  result<std::string> stop_forwarder(const std::string& device) override;

 private:
  std::filesystem::path stats_file(const std::string& device) const;

  std::filesystem::path _work_dir;
  std::filesystem::path _program;
  int _scripts = 0;
  std::map<std::string, child_process> _forwarders;  // by device
};

}  // namespace magnetar::perf
