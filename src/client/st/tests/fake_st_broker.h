// fake_st_broker: a scripted in-process broker for the st SDK's tests, speaking just
// enough of the protocol over TCP on 127.0.0.1: CONNECT (advertising scalable topics),
// partitioned metadata (never partitioned), LOOKUP (itself), PRODUCER and SEND (kept in
// memory per topic; a sealed topic refuses both with TopicTerminatedError), SUBSCRIBE,
// FLOW (delivers the topic's messages after the subscription's cumulative ack), ACK,
// SCALABLE_TOPIC_LOOKUP (answers the layout set for the topic, and pushes later ones),
// SCALABLE_TOPIC_SUBSCRIBE (answers the assignment set, and pushes later ones).
//
// Not a broker model: no batching, no redelivery, one ledger per topic. Tests change its
// state from their own thread; it applies changes on its io thread.
#pragma once

#include "io/asio.h"
#include "proto/pulsar_api.pb.h"

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <condition_variable>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::st::testing {

class fake_st_broker {
 public:
  struct stored {
    std::string topic;
    std::string key;
    std::string payload;
    std::uint64_t ledger = 0;
    std::uint64_t entry = 0;
  };
  struct ack {
    std::string topic;
    std::string subscription;
    bool cumulative = false;
    std::uint64_t ledger = 0;
    std::uint64_t entry = 0;
  };

  fake_st_broker();
  ~fake_st_broker();

  std::string url() const;

  // The layout answered to SCALABLE_TOPIC_LOOKUP of `topic` (topic://...), pushed to the
  // sessions watching it.
  void set_layout(const std::string& topic, proto::ScalableTopicDAG dag);
  // Sends and new producers on the segment topic are refused as terminated from now on.
  void seal(const std::string& segment_topic);
  // The assignment answered to SCALABLE_TOPIC_SUBSCRIBE, pushed to registered consumers.
  void set_assignment(proto::ScalableConsumerAssignment a);
  // Whether CONNECTED advertises scalable topics (before clients connect).
  void set_supports_scalable_topics(bool on) { _supports_scalable = on; }
  // Stores a message as if a producer had sent it.
  void publish(const std::string& topic, const std::string& key, const std::string& payload);

  std::vector<stored> stored_messages() const;
  std::vector<ack> acks() const;
  // SCALABLE_TOPIC_CLOSE received, by session id.
  std::set<std::uint64_t> closed_sessions() const;
  // Closes every client connection (clients reconnect).
  void drop_connections();
  // SCALABLE_TOPIC_LOOKUPs and SCALABLE_TOPIC_SUBSCRIBEs received.
  std::size_t layout_lookups() const;
  std::size_t scalable_subscribes() const;
  // SENDs refused because their topic is sealed.
  std::size_t refused_sends() const;
  // Segment topics a consumer subscribed to (in order).
  std::vector<std::string> subscriptions() const;

  // Waits (up to `timeout`) until `ready()` holds, checking on every change.
  bool wait_until(const std::function<bool()>& ready, std::chrono::milliseconds timeout = std::chrono::seconds(20));

 private:
  struct connection;
  struct consumer_state {
    std::string topic;
    std::string subscription;
    std::uint64_t permits = 0;
    std::size_t next = 0;  // index of the next message of the topic to deliver
  };

  awaitable<void> accept();
  awaitable<void> serve(std::shared_ptr<connection> c);
  void handle(const std::shared_ptr<connection>& c, const proto::BaseCommand& cmd, const std::string& key,
              const std::string& payload);
  void deliver(const std::shared_ptr<connection>& c, std::uint64_t consumer_id);
  void deliver_all(const std::string& topic);
  std::uint64_t ledger_of(const std::string& topic);
  void push_layout(const std::shared_ptr<connection>& c, std::uint64_t session, const std::string& topic);
  void changed();

  asio::io_context _io;
  asio::ip::tcp::acceptor _acceptor;
  std::thread _thread;
  bool _supports_scalable = true;

  mutable std::mutex _mutex;
  std::condition_variable _changed;
  std::map<std::string, proto::ScalableTopicDAG> _layouts;
  std::set<std::string> _sealed;
  std::optional<proto::ScalableConsumerAssignment> _assignment;
  std::map<std::string, std::vector<stored>> _messages;
  std::vector<stored> _all;
  std::map<std::string, std::uint64_t> _ledgers;
  // (topic, subscription) -> index of the first unacknowledged message.
  std::map<std::pair<std::string, std::string>, std::size_t> _cursors;
  std::vector<ack> _acks;
  std::set<std::uint64_t> _closed_sessions;
  std::vector<std::string> _subscriptions;
  std::size_t _refused = 0;
  std::size_t _layout_lookups = 0;
  std::size_t _scalable_subscribes = 0;
  std::vector<std::shared_ptr<connection>> _connections;
};

}  // namespace magnetar::st::testing
