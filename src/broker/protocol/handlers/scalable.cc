#include "broker/api/protocol_error.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/authorize.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/scalable/scalable_service.h"

namespace magnetar::broker::handlers {

namespace {

proto::BaseCommand topic_update_error(std::uint64_t session_id, proto::ServerError code, std::string message) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_UPDATE);
  auto& update = *reply.mutable_scalabletopicupdate();
  update.set_session_id(session_id);
  update.set_error(code);
  update.set_message(std::move(message));
  return reply;
}

proto::BaseCommand namespace_watch_error(std::uint64_t watch_id, proto::ServerError code, std::string message) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::WATCH_SCALABLE_TOPICS_UPDATE);
  auto& update = *reply.mutable_watchscalabletopicsupdate();
  update.set_watch_id(watch_id);
  update.set_error(code);
  update.set_message(std::move(message));
  return reply;
}

// With authorizationEnabled: `check()` (an awaitable<result<void>>) first, and on a
// denial the reply `refusal(error)` instead of `then()`.
template <class Check, class Refusal, class Then>
void checked(connection& conn, Check check, Refusal refusal, Then then) {
  if (conn.broker().access() == nullptr) {
    then(conn);
    return;
  }
  start_request(conn,
                [check = std::move(check), refusal = std::move(refusal),
                 then = std::move(then)](std::shared_ptr<connection> self) mutable -> awaitable<void> {
                  auto allowed = co_await check(*self);
                  if (!allowed) {
                    self->send(wire::encode_command(refusal(allowed.error())));
                    co_return;
                  }
                  then(*self);
                });
}

}  // namespace

// Any broker answers a layout watch; a stream consumer registers with the controller
// (this broker, in a standalone). The service answers from its own shard.
void scalable_lookup(connection& conn, const proto::CommandScalableTopicLookup& command) {
  if (!command.has_session_id() || !command.has_topic()) {
    conn.send(wire::encode_command(topic_update_error(command.session_id(), proto::UnknownError,
                                                      "SCALABLE_TOPIC_LOOKUP needs a session_id and a topic")));
    return;
  }
  checked(
      conn,
      [topic = command.topic()](connection& c) -> awaitable<result<void>> {
        MAGNETAR_CO_TRY(name, wire::topic_name::parse(topic));
        co_return co_await authorize(c, topic_operation::lookup, name, "Client is not authorized to Lookup");
      },
      [session = command.session_id()](const error& e) {
        return topic_update_error(session, server_error_of(e), message_of(e));
      },
      [command](connection& c) { c.broker().scalable().watch(c.shared_from_this(), command); });
}

void scalable_close(connection& conn, const proto::CommandScalableTopicClose& command) {
  conn.broker().scalable().unwatch(conn.id(), command.session_id());
}

void scalable_subscribe(connection& conn, const proto::CommandScalableTopicSubscribe& command) {
  if (missing(conn, command.has_request_id() && command.has_topic() && command.has_consumer_id(), command.request_id(),
              "SCALABLE_TOPIC_SUBSCRIBE", "request_id, topic or consumer_id")) {
    return;
  }
  checked(
      conn,
      [topic = command.topic(), subscription = command.subscription()](connection& c) -> awaitable<result<void>> {
        MAGNETAR_CO_TRY(name, wire::topic_name::parse(topic));
        co_return co_await authorize(c, topic_operation::consume, name, "Client is not authorized to subscribe",
                                     subscription);
      },
      [request_id = command.request_id()](const error& e) {
        proto::BaseCommand reply;
        reply.set_type(proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE);
        auto& response = *reply.mutable_scalabletopicsubscriberesponse();
        response.set_request_id(request_id);
        response.set_error(server_error_of(e));
        response.set_message(message_of(e));
        return reply;
      },
      [command](connection& c) { c.broker().scalable().subscribe(c.shared_from_this(), command); });
}

void watch_scalable_topics(connection& conn, const proto::CommandWatchScalableTopics& command) {
  if (!command.has_watch_id() || !command.has_namespace_()) {
    conn.send(wire::encode_command(namespace_watch_error(command.watch_id(), proto::UnknownError,
                                                         "WATCH_SCALABLE_TOPICS needs a watch_id and a namespace")));
    return;
  }
  checked(
      conn,
      [ns = command.namespace_()](connection& c) {
        return authorize_listing(c, ns, "Client is not authorized to GetTopicsOfNamespace");
      },
      [watch = command.watch_id()](const error& e) {
        return namespace_watch_error(watch, server_error_of(e), message_of(e));
      },
      [command](connection& c) { c.broker().scalable().watch_namespace(c.shared_from_this(), command); });
}

void watch_scalable_topics_close(connection& conn, const proto::CommandWatchScalableTopicsClose& command) {
  conn.broker().scalable().unwatch_namespace(conn.id(), command.watch_id());
}

}  // namespace magnetar::broker::handlers
