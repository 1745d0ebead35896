#include "broker/consumer.h"

#include "broker/connection.h"
#include "wire/frame.h"

namespace magnetar::broker {

consumer::consumer(std::shared_ptr<connection> conn, std::shared_ptr<topic> owner, std::uint64_t id, std::string name,
                   int priority_level)
    : _conn(std::move(conn)), _topic(std::move(owner)), _id(id), _name(std::move(name)), _priority_level(priority_level) {}

void consumer::send_entry(const mledger::entry& e, int messages, std::uint32_t redelivery_count) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(_id);
  message.mutable_message_id()->set_ledgerid(static_cast<std::uint64_t>(e.pos.ledger().value()));
  message.mutable_message_id()->set_entryid(static_cast<std::uint64_t>(e.pos.entry().value()));
  if (redelivery_count > 0) message.set_redelivery_count(redelivery_count);
  _conn->send(wire::encode_payload_header(command, e.data.span()), e.data);
  _permits -= messages;
  if (_unacked.emplace(e.pos, messages).second) _unacked_messages += static_cast<std::uint64_t>(messages);
  _meter.record(static_cast<std::uint64_t>(messages), e.data.size());
  if (redelivery_count > 0) _redeliveries.record(static_cast<std::uint64_t>(messages), e.data.size());
}

void consumer::acked(mledger::position p) {
  auto it = _unacked.find(p);
  if (it == _unacked.end()) return;
  _unacked_messages -= static_cast<std::uint64_t>(it->second);
  _unacked.erase(it);
}

void consumer::acked_upto(mledger::position upto) {
  auto end = _unacked.upper_bound(upto);
  for (auto it = _unacked.begin(); it != end; ++it) _unacked_messages -= static_cast<std::uint64_t>(it->second);
  _unacked.erase(_unacked.begin(), end);
}

std::map<mledger::position, int> consumer::take_unacked() {
  _unacked_messages = 0;
  return std::exchange(_unacked, {});
}

void consumer::send_active_change(bool active) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE);
  command.mutable_active_consumer_change()->set_consumer_id(_id);
  command.mutable_active_consumer_change()->set_is_active(active);
  _conn->send(wire::encode_command(command));
}

void consumer::send_close() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CLOSE_CONSUMER);
  command.mutable_close_consumer()->set_consumer_id(_id);
  command.mutable_close_consumer()->set_request_id(0);
  _conn->send(wire::encode_command(command));
}

void consumer::send_reached_end_of_topic() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::REACHED_END_OF_TOPIC);
  command.mutable_reachedendoftopic()->set_consumer_id(_id);
  _conn->send(wire::encode_command(command));
}

}  // namespace magnetar::broker
