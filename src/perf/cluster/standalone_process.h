// standalone_process: the `magnetar standalone` a run starts when it is given no
// service URL: data, log, configuration and ready file inside <run>/standalone/, ports
// chosen by the kernel and read back from the ready file.
//
//   auto conf = make_standalone_conf(settings.cluster.brokers.env);
//   for (auto& line : conf.notes) console.line(line);
//   auto standalone = standalone_process::start({.magnetar_bin = bin, .directory = run / "standalone",
//                                                .conf = conf});
//   standalone->service_url();  // pulsar://127.0.0.1:<port>
//
// Thread-safety: one owner. The destructor stops a standalone that still runs.
#pragma once

#include "base/result.h"
#include "perf/cluster/child_process.h"
#include "perf/cluster/node_configs.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

// The standalone.conf made from `cluster.brokers.env` (node_configs.h).
using standalone_conf = env_conf;
inline standalone_conf make_standalone_conf(const std::map<std::string, std::string>& env) {
  return conf_from_env(env, "cluster.brokers.env");
}

struct standalone_options {
  std::filesystem::path magnetar_bin;
  std::filesystem::path directory;  // <run>/standalone; created when missing
  standalone_conf conf;
  std::chrono::seconds ready_timeout{120};
  std::vector<std::pair<std::string, std::string>> environment;  // added to the child's
};

// The URLs in the standalone's ready file.
struct standalone_urls {
  std::string service_url;  // brokerServiceUrl
  std::string admin_url;    // webServiceUrl
};
// Parses the ready file's JSON ({"brokerServiceUrl": ..., "webServiceUrl": ..., "pid": ...}).
result<standalone_urls> parse_ready_file(std::string_view json_text);

class standalone_process {
 public:
  // Starts the standalone and waits for its ready file. Fails when the process exits
  // first or the timeout passes, quoting the tail of its output and of its log.
  static result<standalone_process> start(const standalone_options& options);

  const std::string& service_url() const { return _urls.service_url; }
  const std::string& admin_url() const { return _urls.admin_url; }
  pid_t pid() const { return _child.pid(); }
  // Warnings of the standalone worth showing on the console (upstream settings in the
  // conf that magnetar ignores), read from its log once it was ready.
  const std::vector<std::string>& warnings() const { return _warnings; }

  // SIGTERM (a graceful stop: nothing acknowledged is lost), SIGKILL after `grace`; the
  // exit code.
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(30)) { return _child.terminate(grace); }

 private:
  standalone_process(child_process child, standalone_urls urls, std::vector<std::string> warnings)
      : _child(std::move(child)), _urls(std::move(urls)), _warnings(std::move(warnings)) {}

  child_process _child;
  standalone_urls _urls;
  std::vector<std::string> _warnings;
};

// The magnetar binary: `given` when set (it must exist), else beside this program
// (/proc/self/exe's folder: `../magnetar/magnetar` in the build tree, `magnetar` when
// installed side by side). not_found says where it looked.
result<std::filesystem::path> find_magnetar_binary(const std::optional<std::filesystem::path>& given);
// The same search from another program path (for tests).
result<std::filesystem::path> find_magnetar_binary_near(const std::filesystem::path& program);

}  // namespace magnetar::perf
