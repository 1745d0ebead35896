#include "broker/protocol/handlers/consumer_commands.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"

namespace magnetar::broker::handlers {

// No answer is expected: a FLOW for an unknown consumer is dropped (it may be one the
// broker closed a moment ago).
void flow(connection& conn, const proto::CommandFlow& command) {
  auto c = find_consumer(conn, command.consumer_id());
  if (!c) return;
  auto owner = c->owner();
  asio::post(owner->shard().executor(), [c, permits = command.messagepermits()] {
    if (c->closed()) return;
    c->owner()->flow(*c, permits);
  });
}

void redeliver_unacknowledged(connection& conn, const proto::CommandRedeliverUnacknowledgedMessages& command) {
  auto c = find_consumer(conn, command.consumer_id());
  if (!c) return;
  auto owner = c->owner();
  std::vector<mledger::position> which;
  which.reserve(static_cast<std::size_t>(command.message_ids_size()));
  for (const auto& id : command.message_ids()) {
    which.emplace_back(ledger_id(static_cast<std::int64_t>(id.ledgerid())),
                       entry_id(static_cast<std::int64_t>(id.entryid())));
  }
  asio::post(owner->shard().executor(), [c, which = std::move(which)] {
    if (c->closed()) return;
    c->owner()->redeliver(*c, which);
  });
}

}  // namespace magnetar::broker::handlers
