// scenario_files: a temporary directory of scenario files for the tests, removed at the
// end; and a valid small scenario that tests change one setting of.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace magnetar::perf::testing {

class scenario_files {
 public:
  scenario_files() {
    std::random_device random;
    _dir = std::filesystem::temp_directory_path() /
           ("magnetar-scenario-test-" + std::to_string(random()) + "-" + std::to_string(random()));
    std::filesystem::create_directories(_dir);
  }
  ~scenario_files() {
    std::error_code ec;
    std::filesystem::remove_all(_dir, ec);
  }
  scenario_files(const scenario_files&) = delete;
  scenario_files& operator=(const scenario_files&) = delete;

  const std::filesystem::path& dir() const { return _dir; }

  std::filesystem::path write(const std::string& name, const std::string& text) const {
    const auto path = _dir / name;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path;
  }

 private:
  std::filesystem::path _dir;
};

// A complete, valid scenario in the nested format.
inline const char* valid_scenario = R"(cluster:
  brokers:
    replicas: 1
    env:
      brokerDeduplicationEnabled: "true"
  bookies:
    replicas: 1
workloads:
  iotTelemetry:
    warmup:
      seconds: 10
      messages: 0
      rounds: 1
      roundDelaySeconds: 0
    measurement:
      seconds: 30
      messages: 0
    rate: 1000
    payload:
      size: 64
    timeoutSeconds: 150
    devices:
      count: 10000
    gateways:
      count: 4
      producer:
        ioThreads: 1
        listenerThreads: 1
        maxOutstanding: 20000
        batchingEnabled: true
        precreate: false
    topics:
      count: 6
      prefix: persistent://public/default/iot-telemetry-
    applications:
      count: 3
      podsPerApplication: 3
      subscriptionPrefix: iot-application-
      client:
        ioThreads: 1
        listenerThreads: 1
    behaviors:
      podRestarts:
        intervalSeconds: 0
        fraction: 0.0
metrics:
  intervalSeconds: 1
)";

}  // namespace magnetar::perf::testing
