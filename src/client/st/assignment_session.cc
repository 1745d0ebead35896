#include "client/st/assignment_session.h"

#include "client/server_error.h"
#include "client/service_url.h"
#include "client/st/dag_watch.h"
#include "client/st/st_commands.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <random>

namespace magnetar::st::detail {

std::string random_stream_consumer_name() {
  std::random_device device;
  std::mt19937 g(device());
  return fmt::format("v5-stream-{:08x}", static_cast<std::uint32_t>(g()));
}

assignment_session::assignment_session(std::shared_ptr<client_detail::client_impl> client, std::string topic,
                                       std::string subscription, std::string consumer_name)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _subscription(std::move(subscription)),
      _consumer_name(std::move(consumer_name)),
      _consumer_id(_client->next_consumer_id()),
      _home(_client->next_shard()),
      _backoff(_client->config().initial_backoff, _client->config().max_backoff),
      _reconnect_timer(_home.executor()) {}

assignment_session::~assignment_session() = default;

awaitable<result<std::shared_ptr<client_detail::connection>>> assignment_session::controller_connection() {
  auto watch = std::make_shared<dag_watch>(_client, _topic, true);
  auto first = co_await watch->start();
  // One-shot: only the controller's address is wanted.
  watch->close();
  if (!first) co_return first.error();
  const auto& url = first.value()->controller_url();
  if (url) {
    auto address = client_detail::parse_broker_url(*url);
    std::optional<error> failure;
    if (address) {
      // Its own connection: the controller learns this consumer left when it closes.
      auto direct = co_await _client->pool().get_dedicated(address.value(), _consumer_id);
      if (direct) co_return direct;
      failure = direct.error();
    } else {
      failure = address.error();
    }
    spdlog::warn("client: st consumer {} on {}: controller at '{}': {}; asking the topic's broker", _consumer_name,
                 _topic, *url, failure->message());
  }
  co_return co_await _client->connection_for(lookup_name_of(_topic), _consumer_id);
}

awaitable<result<assignment>> assignment_session::register_once() {
  MAGNETAR_CO_TRY(c, co_await controller_connection());
  if (!c->supports_scalable_topics()) {
    co_return fail(client_errc::unsupported_version,
                   fmt::format("broker {} does not support scalable topics", c->logical_address().to_string()));
  }
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return fail(client_errc::already_closed, "the consumer is closed");
    _connection = c;
  }
  c->add_assignment_listener(_consumer_id, weak_from_this());
  scalable_subscribe_request request{
      _client->next_request_id(), _topic, _subscription, _consumer_name, _consumer_id, proto::STREAM};
  auto forget = [&] {
    c->remove_assignment_listener(_consumer_id);
    std::lock_guard lock(_mutex);
    if (_connection == c) _connection = nullptr;
  };
  auto answer = co_await c->request(request.request_id, scalable_subscribe_command(request));
  if (!answer) {
    forget();
    co_return answer.error();
  }
  if (answer.value().type() != proto::BaseCommand::SCALABLE_TOPIC_SUBSCRIBE_RESPONSE) {
    forget();
    co_return fail(client_errc::protocol_error,
                   fmt::format("{} answered a scalable subscribe with {}", c->logical_address().to_string(),
                               wire::command_name(answer.value())));
  }
  const auto& response = answer.value().scalabletopicsubscriberesponse();
  if (response.has_error()) {
    forget();
    co_return client_detail::server_failure(response.error(), response.message(),
                                            fmt::format("subscribe {} to {}", _subscription, _topic));
  }
  if (!response.has_assignment()) {
    forget();
    co_return fail(client_errc::protocol_error, fmt::format("the scalable subscribe to {} got no assignment", _topic));
  }
  auto a = assignment::from_proto(response.assignment());
  if (!a) forget();
  co_return a;
}

awaitable<result<void>> assignment_session::start() {
  MAGNETAR_CO_TRY(first, co_await register_once());
  {
    std::lock_guard lock(_mutex);
    _registered = true;
  }
  _gate.offer(std::move(first));
  co_return success();
}

void assignment_session::on_assignment_update(const std::shared_ptr<client_detail::connection>& c,
                                              const proto::CommandScalableTopicAssignmentUpdate& update) {
  {
    std::lock_guard lock(_mutex);
    if (_closed || c != _connection) return;
  }
  auto a = assignment::from_proto(update.assignment());
  if (!a) {
    spdlog::warn("client: st consumer {} on {}: assignment update dropped: {}", _consumer_name, _topic,
                 a.error().message());
    return;
  }
  _gate.offer(std::move(a).value());
}

void assignment_session::on_connection_closed(const std::shared_ptr<client_detail::connection>& c) {
  std::lock_guard lock(_mutex);
  if (_closed || c != _connection) return;
  _connection = nullptr;
  // Before the first assignment the pending subscribe fails, and start() with it.
  if (!_registered) return;
  spdlog::info("client: st consumer {} on {}: connection to the controller closed; registering again", _consumer_name,
               _topic);
  schedule_reconnect_locked();
}

void assignment_session::schedule_reconnect_locked() {
  if (_reconnect_scheduled || _closed) return;
  _reconnect_scheduled = true;
  _reconnect_timer.expires_after(_backoff.next());
  _reconnect_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    asio::co_spawn(
        self->_home.executor(), [self]() { return self->reconnect(); }, asio::detached);
  });
}

awaitable<void> assignment_session::reconnect() {
  {
    std::lock_guard lock(_mutex);
    _reconnect_scheduled = false;
    if (_closed || _connection) co_return;
  }
  auto r = co_await register_once();
  if (r) {
    {
      std::lock_guard lock(_mutex);
      _backoff.reset();
    }
    _gate.offer(std::move(r).value());
    co_return;
  }
  std::lock_guard lock(_mutex);
  if (_closed) co_return;
  spdlog::info("client: st consumer {} on {}: registering again failed: {}", _consumer_name, _topic,
               r.error().message());
  schedule_reconnect_locked();
}

void assignment_session::close() {
  std::shared_ptr<client_detail::connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _closed = true;
    _reconnect_timer.cancel();
    c = std::move(_connection);
  }
  _gate.clear_listener();
  if (c) {
    c->remove_assignment_listener(_consumer_id);
    // The controller keeps the registration for its grace period after this; a consumer
    // that registers again under the same name within it gets its segments back.
    _client->pool().release(c);
  }
}

}  // namespace magnetar::st::detail
