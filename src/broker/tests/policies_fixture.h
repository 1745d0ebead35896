// The broker fixture plus what policy tests need: admin REST calls to the same
// standalone, topic stats as JSON, and waiting for a condition that the broker's
// periodic checks bring about (polled, with a generous deadline: no fixed sleeps).
#pragma once

#include "broker/tests/broker_fixture.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

namespace magnetar::broker::testing {

class policies_test : public broker_test {
 protected:
  static constexpr const char* ns = "/admin/v2/namespaces/public/default";

  static std::string topic_path(const std::string& topic) { return "/admin/v2/persistent/public/default/" + topic; }

  nlohmann::json stats(const std::string& topic) {
    auto r = call("GET", topic_path(topic) + "/stats");
    EXPECT_EQ(r.status, 200) << r.body;
    return nlohmann::json::parse(r.body, nullptr, false);
  }

  std::int64_t backlog(const std::string& topic, const std::string& subscription) {
    auto s = stats(topic);
    if (!s.is_object() || !s["subscriptions"].contains(subscription)) return -1;
    return s["subscriptions"][subscription]["msgBacklog"].get<std::int64_t>();
  }

  template <class F>
  static bool eventually(F condition, std::chrono::seconds timeout = std::chrono::seconds(60)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (condition()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return condition();
  }

  // A producer named `name`; the PRODUCER_SUCCESS (or the ERROR) it got.
  static wire::frame create_producer(raw_client& client, const std::string& topic, std::uint64_t id,
                                     const std::string& name,
                                     proto::BaseCommand::Type expected = proto::BaseCommand::PRODUCER_SUCCESS) {
    client.send(producer_command(topic, id, 1000 + id, name));
    return client.expect(expected);
  }

  // One SEND of `name`'s message `sequence_id` (payload "m<id>"), and its answer.
  static wire::frame send(raw_client& client, std::uint64_t producer_id, const std::string& name,
                          std::uint64_t sequence_id,
                          proto::BaseCommand::Type expected = proto::BaseCommand::SEND_RECEIPT) {
    client.send_payload(send_command(producer_id, sequence_id), metadata(name, sequence_id),
                        "m" + std::to_string(sequence_id));
    return client.expect(expected);
  }

  // Entries stored in the topic (internalStats numberOfEntries).
  std::int64_t entries(const std::string& topic) {
    auto r = call("GET", topic_path(topic) + "/internalStats");
    EXPECT_EQ(r.status, 200) << r.body;
    auto j = nlohmann::json::parse(r.body, nullptr, false);
    return j.is_object() ? j["numberOfEntries"].get<std::int64_t>() : -1;
  }

  // The first `count` payloads a new Exclusive subscription from the earliest receives.
  std::vector<std::string> receive(const std::string& topic, const std::string& subscription, int count) {
    auto client = connected_client();
    client->send(subscribe_command(topic, subscription, 1, 20));
    client->expect(proto::BaseCommand::SUCCESS);
    client->send(flow_command(1, 1000));
    std::vector<std::string> out;
    for (int i = 0; i < count; ++i) out.emplace_back(client->expect(proto::BaseCommand::MESSAGE).payload.as_chars());
    return out;
  }
};

}  // namespace magnetar::broker::testing
