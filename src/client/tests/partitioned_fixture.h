// What the partitioned-topic and multi-topic tests share: the client_test broker, plus
// admin calls to create partitioned topics and read a subscription's backlog.
#pragma once

#include "client/tests/client_test_fixture.h"
#include "http/client.h"

#include <nlohmann/json.hpp>

#include <string>

namespace magnetar::client_testing {

class partitioned_test : public client_test {
 protected:
  // "persistent://public/default/x" -> "/admin/v2/persistent/public/default/x"
  static std::string admin_path(const std::string& topic) {
    return "/admin/v2/persistent/" + topic.substr(std::string("persistent://").size());
  }

  void create_partitioned(const std::string& topic, int partitions) {
    auto created = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port},
                                        "PUT", admin_path(topic) + "/partitions", std::to_string(partitions));
    ASSERT_TRUE(created) << created.error();
    ASSERT_LT(created.value().status, 300) << created.value().body;
  }

  // The subscription's backlog on a topic (or partition); -1 when the stats can't be read.
  long backlog(const std::string& topic, const std::string& subscription) {
    auto stats = magnetar::http::call(magnetar::http::url{.host = "127.0.0.1", .port = *broker.web_service_port}, "GET",
                                      admin_path(topic) + "/stats");
    if (!stats || stats.value().status >= 300) return -1;
    auto json = nlohmann::json::parse(stats.value().body, nullptr, false);
    if (json.is_discarded() || !json["subscriptions"].contains(subscription)) return -1;
    return json["subscriptions"][subscription]["msgBacklog"].get<long>();
  }

  static consumer_config from_earliest() {
    consumer_config c;
    c.position = initial_position::earliest;
    return c;
  }

  static producer_config unbatched() {
    producer_config c;
    c.batching_enabled = false;
    return c;
  }

  static message keyed(const std::string& key, const std::string& payload) {
    return message_builder().key(key).payload(payload).build();
  }
};

}  // namespace magnetar::client_testing
