#include "broker/protocol/broker_context.h"
#include "broker/protocol/handlers/handler_support.h"
#include "broker/protocol/handlers/handlers.h"
#include "broker/topic/entry_format.h"
#include "broker/topic/producer.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"

#include <chrono>

namespace magnetar::broker::handlers {

namespace {

void send_error(connection& conn, const proto::CommandSend& command, proto::ServerError code, std::string message) {
  proto::BaseCommand reply;
  reply.set_type(proto::BaseCommand::SEND_ERROR);
  auto& error = *reply.mutable_send_error();
  error.set_producer_id(command.producer_id());
  error.set_sequence_id(command.sequence_id());
  error.set_error(code);
  error.set_message(std::move(message));
  conn.send(wire::encode_command(reply));
}

}  // namespace

void send(connection& conn, wire::frame& frame) {
  const auto& command = frame.command.send();
  auto p = conn.producer_of(producer_id{command.producer_id()});
  if (p && p->closed() && p->owner()->is_terminated()) {
    // Closed by a terminate: the client learns why (and stops), not just that it's gone.
    send_error(conn, command, proto::TopicTerminatedError, "Topic was already terminated");
    return;
  }
  if (!p || p->closed()) {
    send_error(conn, command, proto::NotAllowedError,
               fmt::format("no producer with id {} on this connection", command.producer_id()));
    return;
  }
  if (!frame.checksum_valid) {
    send_error(conn, command, proto::ChecksumError, "the message's checksum does not match its content");
    return;
  }
  // No size check of its own: the frame decoder bounds frames at maxMessageSize plus
  // room for the command and metadata, as upstream does. A chunk's metadata grows by its
  // chunk fields after the client sized it, so a tighter check here refuses chunks.
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(conn.broker().clock().wall_now().time_since_epoch())
          .count();
  auto entry = entry_for_send(frame.metadata, frame.metadata_and_payload, now_ms);
  const int messages = command.has_num_messages() ? command.num_messages() : frame.metadata.num_messages_in_batch();
  const auto highest =
      command.highest_sequence_id() > command.sequence_id() ? command.highest_sequence_id() : command.sequence_id();
  // Every chunk of a message carries its sequence id; only the last completes it.
  const auto& m = frame.metadata;
  const bool partial_chunk =
      m.has_num_chunks_from_msg() && m.num_chunks_from_msg() > 1 && m.chunk_id() + 1 < m.num_chunks_from_msg();
  conn.publish_started();
  auto owner = p->owner();
  conn.defer_publish(owner->shard(), [owner, p, sequence_id = command.sequence_id(), highest, messages,
                                      entry = std::move(entry), partial_chunk]() mutable {
    owner->publish(std::move(p), sequence_id, highest, messages, std::move(entry), partial_chunk);
  });
}

}  // namespace magnetar::broker::handlers
