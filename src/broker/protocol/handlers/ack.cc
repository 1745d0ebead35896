#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/api/protocol_error.h"
#include "broker/protocol/handlers/consumer_commands.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"
#include "wire/frame.h"

namespace magnetar::broker::handlers {

namespace {

void answer(connection& conn, const proto::CommandAck& command, const result<void>& outcome) {
  if (!command.has_request_id()) {
    if (!outcome) spdlog::debug("ack from consumer {}: {}", command.consumer_id(), outcome.error());
    return;
  }
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::ACK_RESPONSE);
  auto& response = *reply.mutable_ackresponse();
  response.set_consumer_id(command.consumer_id());
  response.set_request_id(command.request_id());
  if (!outcome) {
    response.set_error(server_error_of(outcome.error()));
    response.set_message(message_of(outcome.error()));
  }
  conn.send(wire::encode_command(reply));
}

}  // namespace

void ack(connection& conn, const proto::CommandAck& command) {
  auto c = find_consumer(conn, command.consumer_id());
  if (!c) {
    answer(conn, command,
           fail(errc::consumer_busy, fmt::format("no consumer {} on this connection", command.consumer_id())));
    return;
  }
  auto owner = c->owner();
  asio::post(owner->shard().executor(), [c, command, conn = conn.shared_from_this()] {
    if (c->closed()) return answer(*conn, command, fail(errc::consumer_busy, "consumer closed"));
    answer(*conn, command, c->owner()->ack(*c, command));
  });
}

}  // namespace magnetar::broker::handlers
