// traffic: numbered messages through the SDK for end-to-end tests that check
// what survives a fault: produce_numbered sends "0", "1", ... and returns what
// the broker receipted; consume_from_start reads a topic back from its start.
#pragma once

#include "magnetar/client.h"
#include "magnetar/consumer.h"
#include "magnetar/producer.h"

#include <gtest/gtest.h>

#include <functional>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace magnetar::e2e {

// Sends `count` messages, calling `during(i)` after the i-th send; returns
// those receipted, in the order sent. Sends never time out: a message is
// receipted or its producer fails.
inline std::vector<std::string> produce_numbered(const std::string& service_url, const std::string& topic, int count,
                                                 const std::function<void(int)>& during = {}) {
  auto c = client::create(service_url);
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  std::mutex mutex;
  std::set<int> receipted;
  producer_config config;
  config.block_if_queue_full = true;
  config.send_timeout = std::chrono::milliseconds(0);
  auto p = c.value().create_producer(topic, config);
  EXPECT_TRUE(p) << p.error();
  if (!p) return {};
  for (int i = 0; i < count; ++i) {
    p.value().send_async(message_builder().payload(std::to_string(i)).build(), [&, i](result<message_id> id) {
      if (!id) return;
      std::lock_guard lock(mutex);
      receipted.insert(i);
    });
    if (during) during(i);
  }
  EXPECT_TRUE(p.value().flush());
  std::lock_guard lock(mutex);
  std::vector<std::string> out;
  for (int i : receipted) out.push_back(std::to_string(i));
  return out;
}

// Reads `topic` from its start with a new subscription until `count` messages
// came or none came for 30 s; in the order delivered.
inline std::vector<std::string> consume_from_start(const std::string& service_url, const std::string& topic,
                                                   std::size_t count) {
  auto c = client::create(service_url);
  EXPECT_TRUE(c) << c.error();
  if (!c) return {};
  consumer_config config;
  config.position = initial_position::earliest;
  auto cons = c.value().subscribe(topic, "check", config);
  EXPECT_TRUE(cons) << cons.error();
  std::vector<std::string> out;
  while (cons && out.size() < count) {
    auto m = cons.value().receive(std::chrono::seconds(30));
    if (!m) break;
    out.emplace_back(m.value().payload());
  }
  return out;
}

}  // namespace magnetar::e2e
