// A standalone broker (broker, bookie, metadata store) in the test's process on a fresh
// data directory and an ephemeral port, and a client connected to it. restart_broker()
// keeps the port, so the client's service URL stays valid across restarts.
#pragma once

#include "broker/standalone/standalone.h"
#include "io/temp_directory.h"
#include "magnetar/client.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

namespace magnetar::client_testing {

class client_test : public ::testing::Test {
 protected:
  client_test() {
    broker.data_dir = dir / "data";
    broker.broker_service_port = 0;
    broker.web_service_port = 0;
    broker.bind_address = "127.0.0.1";
    broker.advertised_address = "127.0.0.1";
    broker.num_io_threads = 1;
    broker.journal_sync_data = false;
    config.operation_timeout = std::chrono::seconds(20);
    config.initial_backoff = std::chrono::milliseconds(50);
    config.max_backoff = std::chrono::milliseconds(500);
  }

  void SetUp() override {
    start_broker();
    auto c = client::create(service_url(), config);
    ASSERT_TRUE(c) << c.error();
    sdk.emplace(std::move(c).value());
  }

  void TearDown() override {
    if (sdk) (void)sdk->close();
    sdk.reset();
    server.reset();
  }

  void start_broker() {
    server = std::make_unique<broker::standalone>(broker);
    auto started = server->start();
    ASSERT_TRUE(started) << started.error();
    broker.broker_service_port = server->broker_port();
    broker.web_service_port = server->web_port();
  }
  void stop_broker() { server.reset(); }
  void restart_broker() {
    stop_broker();
    start_broker();
  }

  std::string service_url() const { return fmt::format("pulsar://127.0.0.1:{}", *broker.broker_service_port); }

  // A topic of this test's own.
  static std::string topic(const std::string& suffix = "") {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = info->name();
    std::replace(name.begin(), name.end(), '/', '-');  // parameterised tests: "name/0"
    return fmt::format("persistent://public/default/{}{}", name, suffix);
  }

  static message text(const std::string& payload) { return message_builder().payload(payload).build(); }

  // Polls `condition` until it holds or 30 s pass.
  static bool eventually(const std::function<bool()>& condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return condition();
  }

  io::temp_directory dir{"client-test"};
  broker::broker_config broker;
  client_config config;
  std::unique_ptr<broker::standalone> server;
  std::optional<client> sdk;
};

}  // namespace magnetar::client_testing
