// producer_impl: creation, reconnection and closing. The send path is in producer_send.cc.
#include "client/producer_impl.h"

#include "client/commands.h"
#include "client/compression.h"
#include "client/first_attempt.h"
#include "client/server_error.h"
#include "io/await_callback.h"
#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::client_detail {

namespace {
std::int32_t partition_of(const std::string& topic) {
  auto name = wire::topic_name::parse(topic);
  return name ? name.value().partition() : -1;
}
}  // namespace

producer_impl::producer_impl(std::shared_ptr<client_impl> client, std::string topic, producer_config config)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _partition(partition_of(_topic)),
      _config(std::move(config)),
      _producer_id(_client->next_producer_id()),
      _home(_client->next_shard()),
      _producer_name(_config.producer_name),
      _last_sequence_id_published(_config.initial_sequence_id),
      _next_sequence_id(static_cast<std::uint64_t>(_config.initial_sequence_id + 1)),
      _batch(_config.batching_max_messages, _config.batching_max_bytes, _config.batching),
      _backoff(_client->config().initial_backoff, _client->config().max_backoff),
      _timeout_timer(_home.executor()),
      _reconnect_timer(_home.executor()) {}

producer_impl::~producer_impl() {
  // The last handle went without close(): tell the broker, fail what is left.
  actions out;
  std::shared_ptr<connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::closed) {
      c = std::move(_connection);
      fail_all_locked(error(client_errc::already_closed, "the producer was destroyed"), out);
    }
    _state = state::closed;
  }
  if (c) {
    c->remove_producer(_producer_id);
    c->write(encode_command(close_producer_command(_producer_id, _client->next_request_id())));
  }
  run(out);
}

void producer_impl::run(actions& a) {
  for (auto& f : a) f();
  a.clear();
}

std::string producer_impl::producer_name() const {
  std::lock_guard lock(_mutex);
  return _producer_name;
}

std::int64_t producer_impl::last_sequence_id() const {
  std::lock_guard lock(_mutex);
  return _last_sequence_id_published;
}

bool producer_impl::is_connected() const {
  std::lock_guard lock(_mutex);
  return _state == state::ready;
}

awaitable<result<void>> producer_impl::start() {
  if (!is_supported(_config.compression)) {
    co_return fail(client_errc::not_supported, "only none, lz4 and zstd compression are implemented");
  }
  if (_config.max_pending_messages == 0) co_return fail(client_errc::invalid_argument, "max_pending_messages is 0");
  co_return co_await retry_first_attempt(_client->config(), [this] { return connect_once(); });
}

awaitable<result<void>> producer_impl::connect_once() {
  MAGNETAR_CO_TRY(c, co_await _client->connection_for(_topic, _producer_id));
  producer_request request;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closing || _state == state::closed) {
      co_return fail(client_errc::already_closed, "the producer is closed");
    }
    request.topic = _topic;
    request.producer_id = _producer_id;
    request.request_id = _client->next_request_id();
    request.producer_name = _producer_name;
    request.user_provided_name = !_config.producer_name.empty();
    request.epoch = _epoch;
    request.access_mode = _config.access_mode;
    request.topic_epoch = _topic_epoch;
    request.metadata = _config.properties;
    request.initial_subscription_name = _initial_subscription_name;
  }
  c->add_producer(_producer_id, weak_from_this());
  const auto command = producer_command(request);
  auto response = co_await c->request(request.request_id, command);
  if (!response) {
    c->remove_producer(_producer_id);
    co_return response.error();
  }
  if (response.value().type() != proto::BaseCommand::PRODUCER_SUCCESS) {
    c->remove_producer(_producer_id);
    co_return fail(client_errc::protocol_error,
                   fmt::format("PRODUCER answered with {}", wire::command_name(response.value())));
  }
  const auto& created = response.value().producer_success();
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closing || _state == state::closed) {
      c->remove_producer(_producer_id);
      c->write(encode_command(close_producer_command(_producer_id, _client->next_request_id())));
      co_return fail(client_errc::already_closed, "the producer was closed while connecting");
    }
    _producer_name = created.producer_name();
    if (created.has_topic_epoch()) _topic_epoch = created.topic_epoch();
    if (!_created_once) {
      _created_once = true;
      // As upstream: the broker's last stored sequence id (deduplication) continues the
      // numbering unless the application chose where to start.
      if (_config.initial_sequence_id == -1 && created.last_sequence_id() >= 0) {
        _last_sequence_id_published = created.last_sequence_id();
        _next_sequence_id = static_cast<std::uint64_t>(created.last_sequence_id() + 1);
      }
    }
    _connection = c;
    _state = state::ready;
    _backoff.reset();
    if (!_pending.empty()) {
      spdlog::info("client: producer {} on {} re-sends {} pending entries", _producer_name, _topic, _pending.size());
    }
    for (auto& o : _pending) c->write(o.frame);
  }
  if (c->is_closed()) connection_lost(c, "closed during producer creation");
  co_return success();
}

void producer_impl::on_broker_close(const std::shared_ptr<connection>& c) {
  // At once: a terminated segment's pending sends then fail within a round trip, and a
  // scalable-topic producer re-routes them without waiting out a back-off.
  connection_lost(c, "the broker closed the producer", true);
}

void producer_impl::on_connection_closed(const std::shared_ptr<connection>& c) {
  connection_lost(c, "the connection closed");
}

void producer_impl::connection_lost(const std::shared_ptr<connection>& c, std::string_view why, bool at_once) {
  std::lock_guard lock(_mutex);
  if (_connection != c || _state != state::ready) return;
  spdlog::info("client: producer {} on {}: {}; reconnecting", _producer_name, _topic, why);
  _connection.reset();
  _state = state::connecting;
  schedule_reconnect_locked(at_once);
}

void producer_impl::schedule_reconnect_locked(bool at_once, bool topic_moving) {
  if (_reconnect_scheduled) return;
  _reconnect_scheduled = true;
  _reconnect_timer.expires_after(at_once ? std::chrono::steady_clock::duration::zero() : _backoff.next(topic_moving));
  _reconnect_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    asio::co_spawn(
        self->_home.executor(), [self]() { return self->reconnect(); }, asio::detached);
  });
}

awaitable<void> producer_impl::reconnect() {
  {
    std::lock_guard lock(_mutex);
    _reconnect_scheduled = false;
    if (_state != state::connecting) co_return;
    ++_epoch;
  }
  auto r = co_await connect_once();
  if (r) co_return;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::connecting) co_return;
    if (is_retriable(r.error())) {
      spdlog::info("client: producer {} on {}: reconnect failed: {}", _producer_name, _topic, r.error().message());
      schedule_reconnect_locked(false, r.error() == client_errc::service_not_ready);
      co_return;
    }
    spdlog::warn("client: producer {} on {} failed for good: {}", _producer_name, _topic, r.error().message());
    fail_for_good_locked(r.error(), out);
  }
  _room.notify_all();
  run(out);
}

void producer_impl::fail_for_good_locked(const error& e, actions& out) {
  _state = e == client_errc::topic_terminated ? state::terminated : state::failed;
  fail_all_locked(e, out);
}

awaitable<result<void>> producer_impl::close() {
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed || _state == state::closing) co_return success();
    if (_state == state::terminated) {
      // The broker let go of it already; nothing is pending.
      _state = state::closed;
      _reconnect_timer.cancel();
      co_return success();
    }
  }
  auto self = shared_from_this();
  auto start_flush = [self](std::function<void(result<void>)> done) { self->flush_async(std::move(done)); };
  auto flushed = co_await io::await_callback<result<void>>(start_flush);
  std::shared_ptr<connection> c;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) co_return success();
    _state = state::closing;
    c = std::move(_connection);
  }
  result<void> closed = success();
  if (c) {
    c->remove_producer(_producer_id);
    const auto request_id = _client->next_request_id();
    const auto command = close_producer_command(_producer_id, request_id);
    auto response = co_await c->request(request_id, command);
    // A connection that went meanwhile took the producer with it.
    if (!response && response.error() != client_errc::connection_closed) closed = response.error();
  }
  {
    std::lock_guard lock(_mutex);
    _state = state::closed;
    _timeout_timer.cancel();
    _reconnect_timer.cancel();
    fail_all_locked(error(client_errc::already_closed, "the producer was closed"), out);
  }
  _room.notify_all();
  run(out);
  if (!flushed) co_return flushed.error();
  co_return closed;
}

void producer_impl::shutdown() {
  std::shared_ptr<connection> c;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) return;
    _state = state::closed;
    c = std::move(_connection);
    _timeout_timer.cancel();
    _reconnect_timer.cancel();
    fail_all_locked(error(client_errc::already_closed, "the client was closed"), out);
  }
  _room.notify_all();
  if (c) {
    c->remove_producer(_producer_id);
    c->write(encode_command(close_producer_command(_producer_id, _client->next_request_id())));
  }
  run(out);
}

}  // namespace magnetar::client_detail
