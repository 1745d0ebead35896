// The command handlers: one function per Pulsar command, one file per command or per
// family of commands (connect.cc: CONNECT and PING; lookup.cc: the lookups; scalable.cc:
// the scalable-topic commands). dispatch.cc routes each frame to its function.
//
// dispatch() is called by the connection's read loop, on the connection's shard, for
// each frame in order. A handler either answers at once or starts a coroutine that hops
// to the topic's shard and answers from there; frames that must keep their order on a
// topic (SEND, FLOW, ACK) are posted to the topic's shard in arrival order, which the
// shard's queue preserves.
//
// A command with a missing or invalid field is answered with an ERROR (or SEND_ERROR)
// naming the field; the connection keeps serving.
#pragma once

#include "proto/pulsar_api.pb.h"
#include "wire/frame.h"

#include <memory>

namespace magnetar::broker {
class connection;
}

namespace magnetar::broker::handlers {

void dispatch(connection& conn, wire::frame& frame);

void connect(connection& conn, const proto::CommandConnect& command);
void ping(connection& conn);
// The client's answer to the broker's AUTH_CHALLENGE (connection::auth_refresh_loop).
void auth_response(connection& conn, const proto::CommandAuthResponse& command);
void lookup(connection& conn, const proto::CommandLookupTopic& command);
void partitioned_metadata(connection& conn, const proto::CommandPartitionedTopicMetadata& command);
void get_topics_of_namespace(connection& conn, const proto::CommandGetTopicsOfNamespace& command);
void producer(connection& conn, const proto::CommandProducer& command);
void send(connection& conn, wire::frame& frame);
void close_producer(connection& conn, const proto::CommandCloseProducer& command);
void subscribe(connection& conn, const proto::CommandSubscribe& command);
void flow(connection& conn, const proto::CommandFlow& command);
void ack(connection& conn, const proto::CommandAck& command);
void redeliver_unacknowledged(connection& conn, const proto::CommandRedeliverUnacknowledgedMessages& command);
void unsubscribe(connection& conn, const proto::CommandUnsubscribe& command);
void close_consumer(connection& conn, const proto::CommandCloseConsumer& command);
void seek(connection& conn, const proto::CommandSeek& command);
void get_last_message_id(connection& conn, const proto::CommandGetLastMessageId& command);
void consumer_stats(connection& conn, const proto::CommandConsumerStats& command);
void get_schema(connection& conn, const proto::CommandGetSchema& command);
void get_or_create_schema(connection& conn, const proto::CommandGetOrCreateSchema& command);
// Scalable topics (scalable.cc): the layout watch and stream-consumer registration.
void scalable_lookup(connection& conn, const proto::CommandScalableTopicLookup& command);
void scalable_close(connection& conn, const proto::CommandScalableTopicClose& command);
void scalable_subscribe(connection& conn, const proto::CommandScalableTopicSubscribe& command);
void watch_scalable_topics(connection& conn, const proto::CommandWatchScalableTopics& command);
void watch_scalable_topics_close(connection& conn, const proto::CommandWatchScalableTopicsClose& command);

}  // namespace magnetar::broker::handlers
