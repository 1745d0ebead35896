#include "broker/api/errc.h"
#include "broker/protocol/handlers/consumer_commands.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/topic.h"

#include <limits>

namespace magnetar::broker::handlers {

// Moves the consumer's subscription; the subscription then closes its consumers
// (CLOSE_CONSUMER), and clients subscribe again from the new position.
void seek(connection& conn, const proto::CommandSeek& command) {
  auto c = find_consumer_for(conn, command.consumer_id(), command.request_id());
  if (!c) return;
  if (!command.has_message_id() && !command.has_message_publish_time()) {
    conn.send(
        error_frame(command.request_id(), proto::UnknownError, "SEEK without message_id or message_publish_time"));
    return;
  }
  start_request(conn, [c, command](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = c->owner();
    auto done = co_await io::run_on(owner->shard(), [&]() { return owner->seek(*c, command); });
    if (!done) {
      self->send(error_frame(command.request_id(), done.error()));
      co_return;
    }
    self->send(success_frame(command.request_id()));
  });
}

}  // namespace magnetar::broker::handlers
