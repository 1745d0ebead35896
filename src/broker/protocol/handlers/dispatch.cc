#include "base/log.h"
#include "broker/api/protocol_error.h"
#include "broker/protocol/connection.h"
#include "broker/protocol/handlers/handlers.h"

namespace magnetar::broker::handlers {

namespace {

// Commands a broker never receives from a client, or that magnetar does not serve
// (transactions, topic-list watchers): the request, when it
// names one, gets NotAllowed; otherwise the connection closes, since the client waits
// for an answer the broker can't route.
void unsupported(connection& conn, const proto::BaseCommand& command) {
  spdlog::warn("connection {} ({}): {} is not supported: closing", conn.id(), conn.remote_address(),
               wire::command_name(command));
  conn.close();
}

}  // namespace

void dispatch(connection& conn, wire::frame& frame) {
  const auto& c = frame.command;
  using T = proto::BaseCommand;
  switch (c.type()) {
    case T::CONNECT: return connect(conn, c.connect());
    case T::PING: return ping(conn);
    case T::AUTH_RESPONSE: return auth_response(conn, c.authresponse());
    case T::PONG: return;  // the read itself counts as liveness
    case T::LOOKUP: return lookup(conn, c.lookuptopic());
    case T::PARTITIONED_METADATA: return partitioned_metadata(conn, c.partitionmetadata());
    case T::GET_TOPICS_OF_NAMESPACE: return get_topics_of_namespace(conn, c.gettopicsofnamespace());
    case T::PRODUCER: return producer(conn, c.producer());
    case T::SEND: return send(conn, frame);
    case T::CLOSE_PRODUCER: return close_producer(conn, c.close_producer());
    case T::SUBSCRIBE: return subscribe(conn, c.subscribe());
    case T::FLOW: return flow(conn, c.flow());
    case T::ACK: return ack(conn, c.ack());
    case T::REDELIVER_UNACKNOWLEDGED_MESSAGES:
      return redeliver_unacknowledged(conn, c.redeliverunacknowledgedmessages());
    case T::UNSUBSCRIBE: return unsubscribe(conn, c.unsubscribe());
    case T::CLOSE_CONSUMER: return close_consumer(conn, c.close_consumer());
    case T::SEEK: return seek(conn, c.seek());
    case T::GET_LAST_MESSAGE_ID: return get_last_message_id(conn, c.getlastmessageid());
    case T::CONSUMER_STATS: return consumer_stats(conn, c.consumerstats());
    case T::GET_SCHEMA: return get_schema(conn, c.getschema());
    case T::GET_OR_CREATE_SCHEMA: return get_or_create_schema(conn, c.getorcreateschema());
    case T::SCALABLE_TOPIC_LOOKUP: return scalable_lookup(conn, c.scalabletopiclookup());
    case T::SCALABLE_TOPIC_CLOSE: return scalable_close(conn, c.scalabletopicclose());
    case T::SCALABLE_TOPIC_SUBSCRIBE: return scalable_subscribe(conn, c.scalabletopicsubscribe());
    case T::WATCH_SCALABLE_TOPICS: return watch_scalable_topics(conn, c.watchscalabletopics());
    case T::WATCH_SCALABLE_TOPICS_CLOSE: return watch_scalable_topics_close(conn, c.watchscalabletopicsclose());
    default: return unsupported(conn, c);
  }
}

}  // namespace magnetar::broker::handlers
