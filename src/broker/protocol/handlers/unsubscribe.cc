#include "broker/api/errc.h"
#include "broker/protocol/handlers/consumer_commands.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/topic.h"

namespace magnetar::broker::handlers {

void unsubscribe(connection& conn, const proto::CommandUnsubscribe& command) {
  auto c = find_consumer_for(conn, command.consumer_id(), command.request_id());
  if (!c) return;
  start_request(conn, [c, command](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = c->owner();
    auto done = co_await io::run_on(owner->shard(), [&]() -> awaitable<result<void>> {
      co_return co_await owner->unsubscribe(*c, command.force());
    });
    if (!done) {
      self->send(error_frame(command.request_id(), done.error()));
      co_return;
    }
    self->detach_consumer(consumer_id{command.consumer_id()});
    self->send(success_frame(command.request_id()));
  });
}

void close_consumer(connection& conn, const proto::CommandCloseConsumer& command) {
  auto c = conn.detach_consumer(consumer_id{command.consumer_id()});
  if (!c) {
    conn.send(success_frame(command.request_id()));
    return;
  }
  start_request(conn, [c, request_id = command.request_id()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = c->owner();
    co_await io::run_on(owner->shard(), [&] { owner->remove_consumer(*c); });
    self->send(success_frame(request_id));
  });
}

}  // namespace magnetar::broker::handlers
