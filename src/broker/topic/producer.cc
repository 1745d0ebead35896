#include "broker/topic/producer.h"

#include "broker/api/client_channel.h"
#include "broker/api/protocol_error.h"
#include "broker/topic/served_topic.h"
#include "wire/frame.h"

namespace magnetar::broker {

producer::producer(std::shared_ptr<client_channel> conn, std::shared_ptr<served_topic> owner, producer_id id,
                   std::string name, proto::ProducerAccessMode mode, std::uint64_t epoch, std::uint64_t request_id,
                   bool ready, std::optional<std::uint64_t> asked_topic_epoch)
    : _conn(std::move(conn)),
      _topic(std::move(owner)),
      _id(id),
      _name(std::move(name)),
      _mode(mode),
      _epoch(epoch),
      _request_id(request_id),
      _asked_topic_epoch(asked_topic_epoch),
      _ready(ready) {}

void producer::send_receipt(std::uint64_t sequence_id, std::uint64_t highest_sequence_id, mledger::position at) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEND_RECEIPT);
  auto& receipt = *command.mutable_send_receipt();
  receipt.set_producer_id(_id.value());
  receipt.set_sequence_id(sequence_id);
  receipt.set_highest_sequence_id(highest_sequence_id);
  *receipt.mutable_message_id() = _topic->message_id(at);
  _conn->send(wire::encode_command(command));
  _conn->publish_completed();
}

void producer::send_error(std::uint64_t sequence_id, proto::ServerError code, const std::string& message) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::SEND_ERROR);
  auto& error = *command.mutable_send_error();
  error.set_producer_id(_id.value());
  error.set_sequence_id(sequence_id);
  error.set_error(code);
  error.set_message(message);
  _conn->send(wire::encode_command(command));
  _conn->publish_completed();
}

void producer::send_close() {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::CLOSE_PRODUCER);
  command.mutable_close_producer()->set_producer_id(_id.value());
  command.mutable_close_producer()->set_request_id(0);
  _conn->send(wire::encode_command(command));
}

void producer::make_ready(std::int64_t last_sequence_id) {
  // Sequentially consistent with answered(): one of the two sees the other's store, so
  // the ready answer goes out at least once (twice is harmless: the client takes the first).
  _ready_sequence_id.store(last_sequence_id);
  _ready.store(true);
  if (_answered.load()) {
    _conn->send(wire::encode_command(producer_success(_request_id, _name, last_sequence_id, true, topic_epoch())));
  }
}

bool producer::answered() {
  _answered.store(true);
  if (!_ready.load()) return false;
  _conn->send(
      wire::encode_command(producer_success(_request_id, _name, _ready_sequence_id.load(), true, topic_epoch())));
  return true;
}

void producer::fail_waiting(proto::ServerError code, const std::string& message) {
  mark_closed();
  _conn->send(error_frame(_request_id, code, message));
}

proto::BaseCommand producer_success(std::uint64_t request_id, const std::string& name, std::int64_t last_sequence_id,
                                    bool ready, std::optional<std::uint64_t> topic_epoch) {
  proto::BaseCommand command;
  command.set_type(proto::BaseCommand::PRODUCER_SUCCESS);
  auto& success = *command.mutable_producer_success();
  success.set_request_id(request_id);
  success.set_producer_name(name);
  success.set_last_sequence_id(last_sequence_id);
  success.set_producer_ready(ready);
  if (topic_epoch) success.set_topic_epoch(*topic_epoch);
  return command;
}

}  // namespace magnetar::broker
