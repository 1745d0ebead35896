#include "broker/api/errc.h"
#include "broker/protocol/handlers/consumer_commands.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/subscription.h"
#include "broker/topic/topic.h"

namespace magnetar::broker::handlers {

void get_last_message_id(connection& conn, const proto::CommandGetLastMessageId& command) {
  auto c = find_consumer_for(conn, command.consumer_id(), command.request_id());
  if (!c) return;
  start_request(conn, [c, request_id = command.request_id()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = c->owner();
    auto answer = co_await io::run_on(owner->shard(), [&]() -> awaitable<result<proto::BaseCommand>> {
      MAGNETAR_CO_TRY(last, co_await owner->last_message_id());
      proto::BaseCommand reply;
      reply.set_type(proto::BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE);
      auto& response = *reply.mutable_getlastmessageidresponse();
      response.set_request_id(request_id);
      *response.mutable_last_message_id() = last;
      if (auto* sub = c->sub(); sub != nullptr) {
        const auto md = sub->cursor().mark_delete_position();
        response.mutable_consumer_mark_delete_position()->set_ledgerid(static_cast<std::uint64_t>(md.ledger().value()));
        response.mutable_consumer_mark_delete_position()->set_entryid(static_cast<std::uint64_t>(md.entry().value()));
      }
      co_return reply;
    });
    if (!answer) {
      self->send(error_frame(request_id, answer.error()));
      co_return;
    }
    self->send(wire::encode_command(answer.value()));
  });
}

void consumer_stats(connection& conn, const proto::CommandConsumerStats& command) {
  auto c = find_consumer_for(conn, command.consumer_id(), command.request_id());
  if (!c) return;
  start_request(conn, [c, request_id = command.request_id()](std::shared_ptr<connection> self) -> awaitable<void> {
    auto owner = c->owner();
    auto reply = co_await io::run_on(owner->shard(), [&] {
      proto::BaseCommand out;
      out.set_type(proto::BaseCommand::CONSUMER_STATS_RESPONSE);
      auto& stats = *out.mutable_consumerstatsresponse();
      stats.set_request_id(request_id);
      stats.set_consumername(c->name());
      stats.set_msgrateout(c->meter().message_rate());
      stats.set_msgthroughputout(c->meter().byte_rate());
      stats.set_msgrateredeliver(c->redeliveries().message_rate());
      stats.set_availablepermits(static_cast<std::uint64_t>(std::max<std::int64_t>(c->permits(), 0)));
      stats.set_unackedmessages(c->unacked_messages());
      stats.set_address(c->conn()->remote_address());
      stats.set_connectedsince(c->conn()->connected_since());
      if (auto* sub = c->sub(); sub != nullptr) {
        stats.set_type(proto::CommandSubscribe::SubType_Name(sub->type()));
        stats.set_msgbacklog(sub->cursor().backlog());
      }
      return out;
    });
    self->send(wire::encode_command(reply));
  });
}

}  // namespace magnetar::broker::handlers
