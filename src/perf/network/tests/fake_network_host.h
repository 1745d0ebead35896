// fake_network_host: a network_host that records every command and script instead of
// running them, answers with canned output by command prefix, and can be told to fail
// a command. For the engine's and the schedule's unit tests.
#pragma once

#include "base/errc.h"
#include "perf/network/network_host.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <string>
#include <vector>

namespace magnetar::perf::testing {

class fake_network_host final : public network_host {
 public:
  // "ns: argv joined by spaces", and scripts as "ns: argv... <<script".
  std::vector<std::string> commands;
  std::map<std::string, std::string> answers;  // command text prefix -> output
  std::string failing;                         // a command text prefix that fails
  std::vector<std::string> forwarders;         // devices with a running forwarder

  result<std::string> run(const std::string& ns, const std::vector<std::string>& argv) override {
    return answer(fmt::format("{}: {}", ns, fmt::join(argv, " ")));
  }
  result<std::string> run_script(const std::string& ns, const std::vector<std::string>& argv,
                                 const std::string& script) override {
    return answer(fmt::format("{}: {} <<{}", ns, fmt::join(argv, " "), script));
  }
  result<void> start_forwarder(const std::string& ns, const forwarder_options& options) override {
    MAGNETAR_TRY(answer(fmt::format("{}: forwarder {} {}us", ns, options.device, options.delay.count())));
    forwarders.push_back(options.device);
    return success();
  }
  result<std::string> stop_forwarder(const std::string& device) override {
    std::erase(forwarders, device);
    return answer(fmt::format("stop forwarder {}", device));
  }

  // The recorded commands that contain `text`.
  std::vector<std::string> containing(std::string_view text) const {
    std::vector<std::string> out;
    for (const auto& c : commands) {
      if (c.find(text) != std::string::npos) out.push_back(c);
    }
    return out;
  }

 private:
  result<std::string> answer(std::string command) {
    commands.push_back(command);
    if (!failing.empty() && command.find(failing) != std::string::npos) {
      return fail(base::errc::io_error, fmt::format("`{}` failed", command));
    }
    for (const auto& [prefix, output] : answers) {
      if (command.find(prefix) != std::string::npos) return output;
    }
    return std::string();
  }
};

// A node as cluster_network makes them, at `position`.
inline network_node fake_node(const std::string& name, int position) {
  return {.name = name,
          .address = fmt::format("10.99.{}.2", position),
          .namespace_name = "mg-test-" + name,
          .router_link = "v-" + name};
}

}  // namespace magnetar::perf::testing
