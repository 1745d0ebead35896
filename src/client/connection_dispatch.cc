// connection's incoming commands: on_frame routes each to the function for its type, the
// way the broker's handlers::dispatch does, and the listener look-ups are written once.
#include "client/commands.h"
#include "client/connection.h"
#include "client/server_error.h"

#include <spdlog/spdlog.h>

namespace magnetar::client_detail {

namespace {
using steady = std::chrono::steady_clock;

// The caller holds the connection's lock.
template <class Listener>
std::shared_ptr<Listener> lookup(const std::map<std::uint64_t, std::weak_ptr<Listener>>& listeners, std::uint64_t id) {
  auto it = listeners.find(id);
  return it == listeners.end() ? nullptr : it->second.lock();
}

// The caller holds the connection's lock.
template <class Listener>
std::shared_ptr<Listener> extract(std::map<std::uint64_t, std::weak_ptr<Listener>>& listeners, std::uint64_t id) {
  auto node = listeners.extract(id);
  return node.empty() ? nullptr : node.mapped().lock();
}
}  // namespace

void connection::on_frame(wire::frame& f) {
  const auto& c = f.command;
  using T = proto::BaseCommand;
  switch (c.type()) {
    case T::CONNECTED: return on_connected(c.connected());
    case T::PING: return write(encode_command(pong_command()));
    case T::AUTH_CHALLENGE: return on_auth_challenge(c.authchallenge());
    case T::PONG: return;  // run() counts every read as liveness
    case T::SEND_RECEIPT: return on_send_receipt(c.send_receipt());
    case T::SEND_ERROR: return on_send_error(c.send_error());
    case T::MESSAGE: return on_message(c.message(), f);
    case T::ACTIVE_CONSUMER_CHANGE: return on_active_consumer_change(c.active_consumer_change());
    case T::REACHED_END_OF_TOPIC: return on_reached_end_of_topic(c.reachedendoftopic());
    case T::CLOSE_PRODUCER: return on_close_producer(c.close_producer());
    case T::CLOSE_CONSUMER: return on_close_consumer(c.close_consumer());
    case T::SCALABLE_TOPIC_UPDATE: return on_scalable_topic_update(c.scalabletopicupdate());
    case T::SCALABLE_TOPIC_ASSIGNMENT_UPDATE: return on_assignment_update(c.scalabletopicassignmentupdate());
    case T::ERROR: return on_error(c.error());
    case T::PRODUCER_SUCCESS: return on_producer_success(c);
    default: return on_response(c);
  }
}

void connection::on_connected(const proto::CommandConnected& c) {
  {
    std::lock_guard lock(_mutex);
    if (c.has_max_message_size() && c.max_message_size() > 0) {
      _max_message_size = static_cast<std::size_t>(c.max_message_size());
    }
    _supports_scalable_topics = c.feature_flags().supports_scalable_topics();
  }
  handshake_done(success());
}

void connection::on_send_receipt(const proto::CommandSendReceipt& c) {
  if (auto p = find_producer(c.producer_id())) p->on_send_receipt(c);
}

void connection::on_send_error(const proto::CommandSendError& c) {
  if (auto p = find_producer(c.producer_id())) p->on_send_error(c);
}

void connection::on_message(const proto::CommandMessage& c, wire::frame& f) {
  if (auto l = find_consumer(c.consumer_id())) l->on_message(shared_from_this(), c, f);
}

void connection::on_active_consumer_change(const proto::CommandActiveConsumerChange& c) {
  if (auto l = find_consumer(c.consumer_id())) l->on_active_consumer_change(c.is_active());
}

void connection::on_reached_end_of_topic(const proto::CommandReachedEndOfTopic& c) {
  if (auto l = find_consumer(c.consumer_id())) l->on_reached_end_of_topic();
}

void connection::on_close_producer(const proto::CommandCloseProducer& c) {
  if (auto p = take_producer(c.producer_id())) p->on_broker_close(shared_from_this());
}

void connection::on_close_consumer(const proto::CommandCloseConsumer& c) {
  if (auto l = take_consumer(c.consumer_id())) l->on_broker_close(shared_from_this());
}

void connection::on_scalable_topic_update(const proto::CommandScalableTopicUpdate& c) {
  auto l = find_dag_watch(c.session_id());
  if (!l) {
    // A session closed meanwhile; not a protocol error.
    spdlog::debug("client: layout update for unknown session {} from {}", c.session_id(), _logical.to_string());
    return;
  }
  l->on_scalable_topic_update(shared_from_this(), c);
}

void connection::on_assignment_update(const proto::CommandScalableTopicAssignmentUpdate& c) {
  if (auto l = find_assignment_listener(c.consumer_id())) l->on_assignment_update(shared_from_this(), c);
}

void connection::on_error(const proto::CommandError& c) {
  bool handshaking;
  {
    std::lock_guard lock(_mutex);
    handshaking = _state == state::connecting;
  }
  if (handshaking) {
    handshake_done(server_failure(c.error(), c.message(), "CONNECT"));
    return;
  }
  complete_request(c.request_id(), server_failure(c.error(), c.message(), "request"));
}

void connection::on_producer_success(const proto::BaseCommand& c) {
  if (c.producer_success().producer_ready()) return on_response(c);
  // WaitForExclusive: the broker queued the producer, and a second PRODUCER_SUCCESS
  // follows once it may write, however long the producers before it stay: the request
  // waits for it without the operation timeout, as upstream's clients wait.
  std::lock_guard lock(_mutex);
  if (auto it = _requests.find(c.producer_success().request_id()); it != _requests.end()) {
    it->second.deadline = steady::time_point::max();
  }
}

// Responses to requests (SUCCESS, LOOKUP_RESPONSE, ...: commands.h's response_request_id
// says which commands answer a request); anything else is ignored.
void connection::on_response(const proto::BaseCommand& c) {
  if (auto id = response_request_id(c)) {
    complete_request(*id, c);
    return;
  }
  spdlog::debug("client: ignored {} from {}", wire::command_name(c), _logical.to_string());
}

std::shared_ptr<producer_listener> connection::find_producer(std::uint64_t producer_id) const {
  std::lock_guard lock(_mutex);
  return lookup(_producers, producer_id);
}

std::shared_ptr<consumer_listener> connection::find_consumer(std::uint64_t consumer_id) const {
  std::lock_guard lock(_mutex);
  return lookup(_consumers, consumer_id);
}

std::shared_ptr<dag_watch_listener> connection::find_dag_watch(std::uint64_t session_id) const {
  std::lock_guard lock(_mutex);
  return lookup(_dag_watches, session_id);
}

std::shared_ptr<assignment_listener> connection::find_assignment_listener(std::uint64_t consumer_id) const {
  std::lock_guard lock(_mutex);
  return lookup(_assignment_listeners, consumer_id);
}

std::shared_ptr<producer_listener> connection::take_producer(std::uint64_t producer_id) {
  std::lock_guard lock(_mutex);
  return extract(_producers, producer_id);
}

std::shared_ptr<consumer_listener> connection::take_consumer(std::uint64_t consumer_id) {
  std::lock_guard lock(_mutex);
  return extract(_consumers, consumer_id);
}

}  // namespace magnetar::client_detail
