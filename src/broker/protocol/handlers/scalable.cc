#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/scalable/scalable_service.h"

namespace magnetar::broker::handlers {

// Any broker answers a layout watch; a stream consumer registers with the controller
// (this broker, in a standalone). The service answers from its own shard.
void scalable_lookup(connection& conn, const proto::CommandScalableTopicLookup& command) {
  if (!command.has_session_id() || !command.has_topic()) {
    proto::BaseCommand reply;
    reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
    auto& update = *reply.mutable_scalabletopicupdate();
    update.set_session_id(command.session_id());
    update.set_error(proto::UnknownError);
    update.set_message("SCALABLE_TOPIC_LOOKUP needs a session_id and a topic");
    conn.send(wire::encode_command(reply));
    return;
  }
  conn.broker().scalable().watch(conn.shared_from_this(), command);
}

void scalable_close(connection& conn, const proto::CommandScalableTopicClose& command) {
  conn.broker().scalable().unwatch(conn.id(), command.session_id());
}

void scalable_subscribe(connection& conn, const proto::CommandScalableTopicSubscribe& command) {
  if (missing(conn, command.has_request_id() && command.has_topic() && command.has_consumer_id(), command.request_id(),
              "SCALABLE_TOPIC_SUBSCRIBE", "request_id, topic or consumer_id")) {
    return;
  }
  conn.broker().scalable().subscribe(conn.shared_from_this(), command);
}

void watch_scalable_topics(connection& conn, const proto::CommandWatchScalableTopics& command) {
  if (!command.has_watch_id() || !command.has_namespace_()) {
    proto::BaseCommand reply;
    reply.set_type(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE);
    reply.mutable_watchscalabletopicsupdate()->set_watch_id(command.watch_id());
    reply.mutable_watchscalabletopicsupdate()->set_error(proto::UnknownError);
    reply.mutable_watchscalabletopicsupdate()->set_message("WATCH_SCALABLE_TOPICS needs a watch_id and a namespace");
    conn.send(wire::encode_command(reply));
    return;
  }
  conn.broker().scalable().watch_namespace(conn.shared_from_this(), command);
}

void watch_scalable_topics_close(connection& conn, const proto::CommandWatchScalableTopicsClose& command) {
  conn.broker().scalable().unwatch_namespace(conn.id(), command.watch_id());
}

}  // namespace magnetar::broker::handlers
