// dead_letter: what a consumer publishes to its dead letter and retry topics (upstream's
// DeadLetterPolicy and Java's reconsumeLater), and the producer it publishes with.
//
// - dead_letter_message: a message that was delivered too often, as it goes to the dead
//   letter topic: its payload, keys, event time and properties, plus REAL_TOPIC (where
//   it came from) and ORIGIN_MESSAGE_ID (its id there), both kept when already set, so
//   a message that went through the retry topic still names its first topic.
// - retry_message: the same for the retry topic, with RECONSUMETIMES counting the
//   retries, DELAY_TIME, and deliver_at_time = now + delay.
// - letter_producer: an unbatched producer created on first use, so a consumer that
//   never dead-letters opens no producer; sends made while it is being created wait.
//
// Threading: the functions are pure; letter_producer is thread-safe, its callbacks run
// on the client's io threads.
#pragma once

#include "client/client_impl.h"
#include "magnetar/message.h"
#include "magnetar/producer.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace magnetar::client_detail {

class producer_impl;

// Property names upstream clients read and write.
inline constexpr const char* property_real_topic = "REAL_TOPIC";
inline constexpr const char* property_origin_message_id = "ORIGIN_MESSAGE_ID";
inline constexpr const char* property_reconsume_times = "RECONSUMETIMES";
inline constexpr const char* property_delay_time = "DELAY_TIME";

std::string default_dead_letter_topic(const std::string& topic, const std::string& subscription);
std::string default_retry_letter_topic(const std::string& topic, const std::string& subscription);

message dead_letter_message(const message& m);
// How often `m` was reconsumed before: its RECONSUMETIMES, 0 when it has none.
int reconsume_times_of(const message& m);
message retry_message(const message& m, std::chrono::milliseconds delay);

class letter_producer : public std::enable_shared_from_this<letter_producer> {
 public:
  letter_producer(std::shared_ptr<client_impl> client, std::string topic, std::string initial_subscription_name);
  ~letter_producer();

  // Publishes `m`; `done` gets its id there or the error (creating the producer, or
  // sending). A failed creation is tried again by the next send.
  void send(message m, send_callback done);
  // Closes the producer (waiting for what is in flight); later sends fail.
  awaitable<void> close();
  // The same without waiting.
  void shutdown();
  const std::string& topic() const { return _topic; }

 private:
  awaitable<void> create();

  const std::shared_ptr<client_impl> _client;
  const std::string _topic;
  const std::string _initial_subscription_name;
  std::mutex _mutex;
  std::shared_ptr<producer_impl> _producer;
  bool _creating = false;
  bool _closed = false;
  std::vector<std::pair<message, send_callback>> _waiting;
};

}  // namespace magnetar::client_detail
