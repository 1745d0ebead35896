#include "broker/topic/consumer.h"

#include "broker/api/client_channel.h"
#include "broker/topic/served_topic.h"
#include "wire/frame.h"

namespace magnetar::broker {

consumer::consumer(std::shared_ptr<client_channel> conn, std::shared_ptr<served_topic> owner, consumer_id id,
                   std::string name, int priority_level)
    : _conn(std::move(conn)),
      _topic(std::move(owner)),
      _id(id),
      _name(std::move(name)),
      _priority_level(priority_level) {}

void consumer::send_entry(const mledger::entry& e, pending_entry what, std::uint32_t redelivery_count,
                          const std::vector<std::int64_t>& ack_set) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(_id.value());
  *message.mutable_message_id() = _topic->message_id(e.pos);
  if (redelivery_count > 0) message.set_redelivery_count(redelivery_count);
  for (auto word : ack_set) message.add_ack_set(word);
  _conn->send(wire::encode_payload_header(command, e.data.span()), e.data);
  _permits -= what.messages;
  if (_unacked.emplace(e.pos, what).second) _unacked_messages += static_cast<std::uint64_t>(what.messages);
  _meter.record(static_cast<std::uint64_t>(what.messages), e.data.size());
  if (redelivery_count > 0) _redeliveries.record(static_cast<std::uint64_t>(what.messages), e.data.size());
}

void consumer::send_volatile(const wire::shared_bytes& data, int messages) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::MESSAGE);
  auto& message = *command.mutable_message();
  message.set_consumer_id(_id.value());
  *message.mutable_message_id() = _topic->message_id({ledger_id(0), entry_id(0)});
  _conn->send(wire::encode_payload_header(command, data.span()), data);
  _permits -= messages;
  _meter.record(static_cast<std::uint64_t>(messages), data.size());
}

void consumer::forget(const pending_entry& p) { _unacked_messages -= static_cast<std::uint64_t>(p.messages); }

std::unordered_map<std::uint16_t, int> consumer::unacked_hashes() const {
  std::unordered_map<std::uint16_t, int> counts;
  for (const auto& [pos, what] : _unacked) ++counts[what.key_hash];
  return counts;
}

std::optional<pending_entry> consumer::acked(mledger::position p) {
  auto it = _unacked.find(p);
  if (it == _unacked.end()) return std::nullopt;
  auto what = it->second;
  forget(what);
  _unacked.erase(it);
  return what;
}

void consumer::acked_upto(mledger::position upto) {
  auto end = _unacked.upper_bound(upto);
  for (auto it = _unacked.begin(); it != end; ++it) forget(it->second);
  _unacked.erase(_unacked.begin(), end);
}

std::map<mledger::position, pending_entry> consumer::take_unacked() {
  _unacked_messages = 0;
  return std::exchange(_unacked, {});
}

std::map<mledger::position, pending_entry> consumer::take_unacked(const std::vector<mledger::position>& which) {
  std::map<mledger::position, pending_entry> taken;
  for (const auto& p : which) {
    if (auto what = acked(p)) taken.emplace(p, *what);
  }
  return taken;
}

void consumer::send_active_change(bool active) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::ACTIVE_CONSUMER_CHANGE);
  command.mutable_active_consumer_change()->set_consumer_id(_id.value());
  command.mutable_active_consumer_change()->set_is_active(active);
  _conn->send(wire::encode_command(command));
}

void consumer::send_close() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CLOSE_CONSUMER);
  command.mutable_close_consumer()->set_consumer_id(_id.value());
  command.mutable_close_consumer()->set_request_id(0);
  _conn->send(wire::encode_command(command));
}

void consumer::reached_end_of_topic() {
  if (_told_end_of_topic) return;
  _told_end_of_topic = true;
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::REACHED_END_OF_TOPIC);
  command.mutable_reachedendoftopic()->set_consumer_id(_id.value());
  _conn->send(wire::encode_command(command));
}

}  // namespace magnetar::broker
