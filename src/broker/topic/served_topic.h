// served_topic: what a client's producers and consumers are attached to, persistent or
// not: the commands that reach a topic through its producers and consumers (SEND, FLOW,
// ACK, REDELIVER, UNSUBSCRIBE, GET_LAST_MESSAGE_ID, a close), so that the protocol layer
// routes them without knowing which kind of topic serves them.
//
//   topic                  persistent://, segment://: a managed ledger and its cursors
//   non_persistent_topic   non-persistent://: in-memory dispatch, nothing stored
//
// Everything here runs on the topic's shard() unless it says otherwise.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "io/shard.h"
#include "mledger/position.h"
#include "proto/pulsar_api.pb.h"
#include "wire/shared_bytes.h"
#include "wire/topic_name.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::broker {

class consumer;
class producer;

class served_topic {
 public:
  virtual ~served_topic() = default;

  virtual const wire::topic_name& name() const = 0;
  virtual io::shard& shard() = 0;
  // Any thread.
  virtual bool is_terminated() const = 0;
  // The id of one of its entries as the protocol carries it (with a partition's index).
  virtual proto::MessageIdData message_id(mledger::position at) const = 0;

  // Takes one SEND; the producer gets the receipt or the error.
  virtual void publish(std::shared_ptr<producer> p, std::uint64_t sequence_id, std::uint64_t highest_sequence_id,
                       int messages, wire::shared_bytes entry, bool partial_chunk) = 0;
  virtual void remove_producer(const producer& p) = 0;

  virtual void flow(consumer& c, std::uint32_t permits) = 0;
  virtual result<void> ack(consumer& c, const proto::CommandAck& ack) = 0;
  virtual void redeliver(consumer& c, const std::vector<mledger::position>& which) = 0;
  virtual void remove_consumer(const consumer& c) = 0;
  virtual awaitable<result<void>> unsubscribe(const consumer& c, bool force) = 0;
  virtual awaitable<result<proto::MessageIdData>> last_message_id() = 0;
  // Moves the consumer's subscription to the id or publish time the SEEK names.
  virtual awaitable<result<void>> seek(consumer& c, const proto::CommandSeek& command) = 0;
};

}  // namespace magnetar::broker
