#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/authorize.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/consumer.h"
#include "broker/topic/non_persistent_topic.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"
#include "wire/topic_name.h"

namespace magnetar::broker::handlers {

namespace {

awaitable<result<std::shared_ptr<consumer>>> create_consumer(std::shared_ptr<connection> conn,
                                                             proto::CommandSubscribe command, wire::topic_name name) {
  auto& broker = conn->broker();
  MAGNETAR_CO_TRY(partitions, co_await broker.topics().partitions_of(name));
  if (partitions > 0) {
    co_return fail(errc::not_allowed,
                   fmt::format("{} is a partitioned topic: subscribe to its partitions", name.full()));
  }
  if (!name.is_persistent() && !name.is_scalable()) {
    co_return co_await io::run_on(
        broker.topics().owner_of(name), [&]() -> awaitable<result<std::shared_ptr<consumer>>> {
          MAGNETAR_CO_TRY(t, co_await broker.topics().get_non_persistent_topic(name, command.force_topic_creation()));
          co_return t->subscribe(conn, command);
        });
  }
  co_return co_await io::run_on(broker.topics().owner_of(name), [&]() -> awaitable<result<std::shared_ptr<consumer>>> {
    MAGNETAR_CO_TRY(t, co_await broker.topics().get_topic(name, command.force_topic_creation()));
    co_return co_await t->subscribe(conn, command);
  });
}

}  // namespace

void subscribe(connection& conn, const proto::CommandSubscribe& command) {
  const auto request_id = command.request_id();
  if (missing(conn, command.has_topic(), request_id, "SUBSCRIBE", "topic")) return;
  if (missing(conn, command.has_subscription(), request_id, "SUBSCRIBE", "subscription")) return;
  if (missing(conn, command.has_consumer_id(), request_id, "SUBSCRIBE", "consumer_id")) return;
  auto name = wire::topic_name::parse(command.topic());
  if (!name) {
    conn.send(error_frame(request_id, name.error()));
    return;
  }
  if (auto existing = conn.consumer_of(consumer_id{command.consumer_id()})) {
    if (!existing->closed()) {
      conn.send(error_frame(request_id, proto::ConsumerBusy,
                            fmt::format("consumer id {} is in use on this connection", command.consumer_id())));
      return;
    }
    // Closed by the broker (a seek, an unload): the client subscribes again with its id.
    conn.detach_consumer(consumer_id{command.consumer_id()});
  }
  start_request(conn, [command, name = std::move(name).value()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto allowed = co_await authorize(*self, topic_operation::consume, name, "Client is not authorized to subscribe",
                                      command.subscription());
    if (!allowed) {
      self->send(error_frame(command.request_id(), allowed.error()));
      co_return;
    }
    auto created = co_await create_consumer(self, command, name);
    if (!created) {
      self->send(error_frame(command.request_id(), created.error()));
      co_return;
    }
    auto c = std::move(created).value();
    if (self->is_closed()) {
      auto owner = c->owner();
      asio::post(owner->shard().executor(), [owner, c] { owner->remove_consumer(*c); });
      co_return;
    }
    self->attach(consumer_id{command.consumer_id()}, c);
    self->send(success_frame(command.request_id()));
    spdlog::debug("consumer {} on {} subscription {} (connection {})", command.consumer_name(), name.full(),
                  command.subscription(), self->id());
  });
}

}  // namespace magnetar::broker::handlers
