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
    auto done = co_await io::run_on(owner->shard(), [&]() -> awaitable<result<void>> {
      auto* sub = c->sub();
      if (sub == nullptr || c->closed()) co_return fail(errc::consumer_busy, "the consumer is closed");
      auto keep = sub->shared_from_this();
      if (command.has_message_publish_time()) {
        MAGNETAR_CO_TRY(
            at, co_await owner->find_by_publish_time(static_cast<std::int64_t>(command.message_publish_time())));
        co_return co_await keep->reset(at);
      }
      const auto& id = command.message_id();
      const auto l = static_cast<std::int64_t>(id.ledgerid());
      const auto e = static_cast<std::int64_t>(id.entryid());
      // Unsigned on the wire: earliest (-1) arrives as all ones, latest as INT64_MAX.
      mledger::position to{ledger_id(l), entry_id(e)};
      if (l == std::numeric_limits<std::int64_t>::max()) {
        to = mledger::position::latest();
      } else if (l < 0 || e < 0) {
        to = mledger::position::earliest();
      }
      co_return co_await keep->reset(to);
    });
    if (!done) {
      self->send(error_frame(command.request_id(), done.error()));
      co_return;
    }
    self->send(success_frame(command.request_id()));
  });
}

}  // namespace magnetar::broker::handlers
