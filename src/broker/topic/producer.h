// producer: a client's producer attached to a topic (broker side).
//
// Created by the PRODUCER handler on the topic's shard and kept in two places: the
// topic's list (for access modes, names and stats) and the connection's map (to find it
// by producer id when a SEND arrives). Publishing and its counters run on the topic's
// shard; the answers go back through the connection, which is thread-safe to send on.
#pragma once

#include "broker/api/client_ids.h"
#include "broker/topic/rate_meter.h"
#include "mledger/position.h"
#include "proto/pulsar_api.pb.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>

namespace magnetar::broker {

class client_channel;
class served_topic;

// PRODUCER_SUCCESS for `request_id`: the producer's name, where its sequence ids resume,
// whether it may write now (a queued WaitForExclusive producer may not), and the topic
// epoch when the topic has one (the client sends it back when it reconnects).
proto::BaseCommand producer_success(std::uint64_t request_id, const std::string& name, std::int64_t last_sequence_id,
                                    bool ready, std::optional<std::uint64_t> topic_epoch);

class producer {
 public:
  // `ready` is false for a WaitForExclusive producer queued behind others: it may not
  // publish until the topic makes it ready, answering `request_id` a second time.
  // `asked_topic_epoch`: the topic epoch the client had (it reconnects), if any.
  producer(std::shared_ptr<client_channel> conn, std::shared_ptr<served_topic> owner, producer_id id, std::string name,
           proto::ProducerAccessMode mode, std::uint64_t epoch, std::uint64_t request_id, bool ready,
           std::optional<std::uint64_t> asked_topic_epoch = std::nullopt);

  producer_id id() const { return _id; }
  const std::string& name() const { return _name; }
  proto::ProducerAccessMode access_mode() const { return _mode; }
  std::uint64_t epoch() const { return _epoch; }
  std::optional<std::uint64_t> asked_topic_epoch() const { return _asked_topic_epoch; }
  // The topic epoch its PRODUCER_SUCCESS carries; set on the topic's shard before the
  // answer goes out, read on the connection's.
  std::optional<std::uint64_t> topic_epoch() const {
    const auto e = _topic_epoch.load();
    return e < 0 ? std::nullopt : std::optional(static_cast<std::uint64_t>(e));
  }
  void set_topic_epoch(std::uint64_t e) { _topic_epoch.store(static_cast<std::int64_t>(e)); }
  const std::shared_ptr<served_topic>& owner() const { return _topic; }
  const std::shared_ptr<client_channel>& conn() const { return _conn; }

  // Topic shard: answers one SEND.
  void send_receipt(std::uint64_t sequence_id, std::uint64_t highest_sequence_id, mledger::position at);
  void send_error(std::uint64_t sequence_id, proto::ServerError code, const std::string& message);
  // Tells the client the broker closed this producer (it re-creates it after a lookup).
  void send_close();

  // Topic shard: a waiting producer gets exclusive access; the client learns it from a
  // second PRODUCER_SUCCESS for its request, with producer_ready set. It goes out once
  // the first answer (not ready) has: before that, the client could send on a producer
  // id its connection does not know yet.
  void make_ready(std::int64_t last_sequence_id);
  // Connection: the first answer (not ready) went out. When the topic made the producer
  // ready meanwhile, sends the ready answer itself (and says so).
  bool answered();
  // Topic shard: a waiting producer that will never be ready (the topic closes, or a
  // fencing producer takes it) fails its pending PRODUCER request with an ERROR.
  void fail_waiting(proto::ServerError code, const std::string& message);
  bool ready() const { return _ready.load(); }
  std::uint64_t request_id() const { return _request_id; }

  // The key-value pairs the client attached to it (PRODUCER's metadata), for stats. Set
  // before the producer is shared.
  const std::map<std::string, std::string>& metadata() const { return _metadata; }
  void set_metadata(std::map<std::string, std::string> m) { _metadata = std::move(m); }

  rate_meter& meter() { return _meter; }
  const rate_meter& meter() const { return _meter; }
  // Set once the topic let go of it; SENDs that still arrive get an error.
  // Read on the connection's shard too (a re-created producer or consumer replaces a
  // closed one with the same id).
  bool closed() const { return _closed.load(std::memory_order_acquire); }
  void mark_closed() { _closed.store(true, std::memory_order_release); }

 private:
  const std::shared_ptr<client_channel> _conn;
  const std::shared_ptr<served_topic> _topic;
  const producer_id _id;
  const std::string _name;
  const proto::ProducerAccessMode _mode;
  const std::uint64_t _epoch;
  const std::uint64_t _request_id;
  const std::optional<std::uint64_t> _asked_topic_epoch;
  std::atomic<std::int64_t> _topic_epoch{-1};
  std::atomic<bool> _ready;
  std::atomic<bool> _answered{false};
  std::atomic<std::int64_t> _ready_sequence_id{-1};
  rate_meter _meter;
  std::map<std::string, std::string> _metadata;
  std::atomic<bool> _closed{false};
};

}  // namespace magnetar::broker
