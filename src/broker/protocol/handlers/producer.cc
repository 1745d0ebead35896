#include "broker/topic/producer.h"
#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/authorize.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/non_persistent_topic.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"
#include "wire/topic_name.h"

namespace magnetar::broker::handlers {

namespace {

struct created_producer {
  std::shared_ptr<broker::producer> producer;
  // Where the client resumes its sequence ids: the highest the topic took from this
  // producer name (deduplication on), else -1.
  std::int64_t last_sequence_id = -1;
};

// A producer may name a subscription that must exist before its first message, so that
// nothing it publishes goes unread (a dead-letter topic's producer does): created at
// Earliest whenever it is missing, as upstream does.
awaitable<result<void>> create_initial_subscription(topic& t, const proto::CommandProducer& command) {
  if (!command.has_initial_subscription_name() || command.initial_subscription_name().empty()) co_return success();
  const auto& name = command.initial_subscription_name();
  if (t.find_subscription(name)) co_return success();
  if (!t.config().allow_auto_subscription_creation) {
    co_return fail(errc::not_allowed,
                   "Could not create the initial subscription due to the auto subscription creation is not allowed.");
  }
  auto created = co_await t.create_subscription(name, message_position::earliest());
  if (!created && created.error() != errc::conflict) {
    co_return fail(created.error().code(),
                   fmt::format("Failed to create the initial subscription: {}", message_of(created.error())));
  }
  co_return success();
}

awaitable<result<created_producer>> create_producer(std::shared_ptr<connection> conn, proto::CommandProducer command,
                                                    wire::topic_name name) {
  auto& broker = conn->broker();
  MAGNETAR_CO_TRY(partitions, co_await broker.topics().partitions_of(name));
  if (partitions > 0) {
    co_return fail(errc::not_allowed, fmt::format("{} is a partitioned topic: produce to its partitions", name.full()));
  }
  std::string producer_name = command.has_producer_name() && !command.producer_name().empty()
                                  ? command.producer_name()
                                  : broker.new_producer_name();
  if (!name.is_persistent() && !name.is_scalable()) {
    // Non-persistent: no sequence ids are kept, and no initial subscription (nothing to keep).
    co_return co_await io::run_on(broker.topics().owner_of(name), [&]() -> awaitable<result<created_producer>> {
      MAGNETAR_CO_TRY(t, co_await broker.topics().get_non_persistent_topic(name, true));
      MAGNETAR_CO_TRY(p, t->add_producer(conn, command, producer_name));
      co_return created_producer{std::move(p), -1};
    });
  }
  co_return co_await io::run_on(broker.topics().owner_of(name), [&]() -> awaitable<result<created_producer>> {
    MAGNETAR_CO_TRY(t, co_await broker.topics().get_topic(name, true));
    MAGNETAR_CO_TRY(p, co_await t->add_producer(conn, command, producer_name));
    if (auto made = co_await create_initial_subscription(*t, command); !made) {
      t->remove_producer(*p);
      co_return fail(std::move(made).error());
    }
    co_return created_producer{std::move(p), t->dedup().last_sequence_id(producer_name)};
  });
}

}  // namespace

void producer(connection& conn, const proto::CommandProducer& command) {
  const auto request_id = command.request_id();
  if (missing(conn, command.has_topic(), request_id, "PRODUCER", "topic")) return;
  if (missing(conn, command.has_producer_id(), request_id, "PRODUCER", "producer_id")) return;
  auto name = wire::topic_name::parse(command.topic());
  if (!name) {
    conn.send(error_frame(request_id, name.error()));
    return;
  }
  if (auto existing = conn.producer_of(producer_id{command.producer_id()})) {
    if (!existing->closed()) {
      // A client that re-sends PRODUCER after a timeout gets the producer it has.
      proto::BaseCommand reply;
      reply.set_type(proto::BaseCommand::PRODUCER_SUCCESS);
      reply.mutable_producer_success()->set_request_id(request_id);
      reply.mutable_producer_success()->set_producer_name(existing->name());
      reply.mutable_producer_success()->set_producer_ready(existing->ready());
      if (auto epoch = existing->topic_epoch()) reply.mutable_producer_success()->set_topic_epoch(*epoch);
      conn.send(wire::encode_command(reply));
      return;
    }
    conn.detach_producer(producer_id{command.producer_id()});
  }
  start_request(conn, [command, name = std::move(name).value()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto allowed = co_await authorize(*self, topic_operation::produce, name, "Client is not authorized to Produce");
    if (!allowed) {
      self->send(error_frame(command.request_id(), allowed.error()));
      co_return;
    }
    auto created = co_await create_producer(self, command, name);
    if (!created) {
      self->send(error_frame(command.request_id(), created.error()));
      co_return;
    }
    auto p = created.value().producer;
    if (self->is_closed()) {
      // The connection went while the topic loaded: its release pass has run already.
      auto owner = p->owner();
      asio::post(owner->shard().executor(), [owner, p] { owner->remove_producer(*p); });
      co_return;
    }
    self->attach(producer_id{command.producer_id()}, p);
    // A WaitForExclusive producer queued behind others hears again once it may write.
    const bool ready = p->ready();
    self->send(wire::encode_command(producer_success(command.request_id(), p->name(), created.value().last_sequence_id,
                                                     ready, ready ? p->topic_epoch() : std::nullopt)));
    if (!ready) (void)p->answered();  // sends the ready answer if the topic made it ready meanwhile
    spdlog::debug("producer {} on {} (connection {})", p->name(), name.full(), self->id());
  });
}

void close_producer(connection& conn, const proto::CommandCloseProducer& command) {
  auto p = conn.detach_producer(producer_id{command.producer_id()});
  if (!p) {
    // Closing what is already gone succeeds, as upstream: the client's goal is met.
    conn.send(success_frame(command.request_id()));
    return;
  }
  start_request(conn, [p, request_id = command.request_id()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = p->owner();
    co_await io::run_on(owner->shard(), [&] { owner->remove_producer(*p); });
    self->send(success_frame(request_id));
  });
}

}  // namespace magnetar::broker::handlers
