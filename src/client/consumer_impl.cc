// consumer_impl: subscribing, reconnecting, seeking and closing. Receiving and acks are
// in consumer_receive.cc.
#include "client/consumer_impl.h"

#include "client/commands.h"
#include "client/consumer_config_check.h"
#include "client/first_attempt.h"
#include "client/server_error.h"
#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <random>

namespace magnetar::client_detail {

namespace {
std::string random_name() {
  static const char digits[] = "0123456789abcdef";
  std::random_device device;
  std::mt19937_64 g(device());
  std::string s(10, '0');
  for (auto& c : s) c = digits[g() % 16];
  return s;
}

std::int32_t partition_of(const std::string& topic) {
  auto name = wire::topic_name::parse(topic);
  return name ? name.value().partition() : -1;
}
}  // namespace

consumer_impl::consumer_impl(std::shared_ptr<client_impl> client, consumer_options options)
    : _client(std::move(client)),
      _options(std::move(options)),
      _partition(partition_of(_options.topic)),
      _topic_ref(std::make_shared<const std::string>(_options.topic)),
      _consumer_id(_client->next_consumer_id()),
      _queue_size(std::max(1u, _options.config.receiver_queue_size)),
      _home(_client->next_shard()),
      _consumer_name(_options.config.consumer_name.empty() ? random_name() : _options.config.consumer_name),
      _start(_options.start),
      _start_inclusive(_options.start_inclusive),
      _acks(std::max<std::size_t>(1, _options.config.max_acks_per_group)),
      _ack_timer(_home.executor()),
      _backoff(_client->config().initial_backoff, _client->config().max_backoff),
      _reconnect_timer(_home.executor()),
      _nacks(_options.config.negative_ack_redelivery_delay),
      _nack_timer(_home.executor()),
      _unacked_timer(_home.executor()) {
  if (_options.config.ack_timeout.count() > 0 && _options.config.ack_timeout_tick.count() > 0) {
    _unacked.emplace(_options.config.ack_timeout, _options.config.ack_timeout_tick);
  }
}

consumer_impl::~consumer_impl() {
  std::shared_ptr<connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::closed) c = std::move(_connection);
    _state = state::closed;
    if (c) flush_acks_locked();
  }
  if (c) {
    c->remove_consumer(_consumer_id);
    c->write(encode_command(close_consumer_command(_consumer_id, _client->next_request_id())));
  }
}

void consumer_impl::run(actions& a) {
  for (auto& f : a) f();
  a.clear();
}

std::string consumer_impl::consumer_name() const {
  std::lock_guard lock(_mutex);
  return _consumer_name;
}

bool consumer_impl::is_active() const {
  std::lock_guard lock(_mutex);
  // Only Failover subscriptions are told; an exclusive consumer is active while connected.
  if (_options.config.type == subscription_type::exclusive) return _state == state::ready;
  return _active;
}

bool consumer_impl::is_closed() const {
  std::lock_guard lock(_mutex);
  return _state == state::closing || _state == state::closed || _state == state::failed;
}

bool consumer_impl::is_connected() const {
  std::lock_guard lock(_mutex);
  return _state == state::ready;
}

bool consumer_impl::has_reached_end_of_topic() const {
  std::lock_guard lock(_mutex);
  return _end_of_topic;
}

error consumer_impl::closed_error_locked() const {
  if (_failure) return *_failure;
  return error(client_errc::already_closed,
               fmt::format("consumer {} of {} on {} is closed", _consumer_name, _options.subscription, _options.topic));
}

awaitable<result<void>> consumer_impl::start() {
  if (_options.subscription.empty()) co_return fail(client_errc::invalid_argument, "the subscription name is empty");
  MAGNETAR_CO_TRY(check_consumer_config(_options.config));
  co_return co_await retry_first_attempt(_client->config(), [this] { return connect_once(); });
}

awaitable<result<void>> consumer_impl::connect_once() {
  MAGNETAR_CO_TRY(c, co_await _client->connection_for(_options.topic, _consumer_id));
  subscribe_request request;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closing || _state == state::closed) {
      co_return fail(client_errc::already_closed, "the consumer is closed");
    }
    request.topic = _options.topic;
    request.subscription = _options.subscription;
    request.type = _options.config.type;
    request.consumer_id = _consumer_id;
    request.request_id = _client->next_request_id();
    request.consumer_name = _consumer_name;
    request.priority_level = _options.config.priority_level;
    request.durable = _options.durable;
    request.position = _options.config.position;
    request.metadata = _options.config.properties;
    request.key_shared = _options.config.key_shared_policy;
    if (!_options.durable) {
      // earliest and latest travel as the initial position: brokers read -1 (all ones)
      // in a start id differently.
      if (_start == message_id::earliest()) {
        request.position = initial_position::earliest;
      } else if (_start == message_id::latest()) {
        request.position = initial_position::latest;
      } else {
        // The broker starts at the entry itself; what comes before the start (the start
        // too, unless inclusive) is filtered here (filtered_locked), as upstream does.
        request.start = _start;
      }
    }
  }
  c->add_consumer(_consumer_id, weak_from_this());
  const auto command = subscribe_command(request);
  auto response = co_await c->request(request.request_id, command);
  if (!response) {
    c->remove_consumer(_consumer_id);
    co_return response.error();
  }
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closing || _state == state::closed) {
      c->remove_consumer(_consumer_id);
      c->write(encode_command(close_consumer_command(_consumer_id, _client->next_request_id())));
      co_return fail(client_errc::already_closed, "the consumer was closed while subscribing");
    }
    // What was queued from the old connection comes again from the broker.
    _queue.clear();
    _queued_bytes = 0;
    _batch_acks.clear();
    forget_redelivery_locked();
    _permits_to_return = 0;
    _connection = c;
    _state = state::ready;
    _backoff.reset();
    c->write(encode_command(flow_command(_consumer_id, _queue_size)));
  }
  if (c->is_closed()) connection_lost(c, "closed during subscribe");
  co_return success();
}

void consumer_impl::on_broker_close(const std::shared_ptr<connection>& c) {
  connection_lost(c, "the broker closed the consumer");
}

void consumer_impl::on_connection_closed(const std::shared_ptr<connection>& c) {
  connection_lost(c, "the connection closed");
}

void consumer_impl::connection_lost(const std::shared_ptr<connection>& c, std::string_view why) {
  std::lock_guard lock(_mutex);
  if (_connection != c || _state != state::ready) return;
  spdlog::info("client: consumer {} of {} on {}: {}; reconnecting", _consumer_name, _options.subscription,
               _options.topic, why);
  _connection.reset();
  _state = state::connecting;
  _active = false;
  // A reader goes on after what the app has taken; what is queued comes again.
  if (!_options.durable && _last_dequeued) {
    _start = *_last_dequeued;
    _start_inclusive = false;
  }
  schedule_reconnect_locked();
}

void consumer_impl::schedule_reconnect_locked(bool topic_moving) {
  if (_reconnect_scheduled) return;
  _reconnect_scheduled = true;
  _reconnect_timer.expires_after(_backoff.next(topic_moving));
  _reconnect_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    asio::co_spawn(
        self->_home.executor(), [self]() { return self->reconnect(); }, asio::detached);
  });
}

awaitable<void> consumer_impl::reconnect() {
  {
    std::lock_guard lock(_mutex);
    _reconnect_scheduled = false;
    if (_state != state::connecting) co_return;
    if (_seeking) {
      // The broker closes the consumer before it answers SEEK; subscribing now would
      // start a reader from where it was, not from where it is going.
      schedule_reconnect_locked();
      co_return;
    }
  }
  auto r = co_await connect_once();
  if (r) co_return;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::connecting) co_return;
    if (is_retriable(r.error())) {
      spdlog::info("client: consumer {} on {}: resubscribe failed: {}", _consumer_name, _options.topic,
                   r.error().message());
      schedule_reconnect_locked(r.error() == client_errc::service_not_ready);
      co_return;
    }
    spdlog::warn("client: consumer {} on {} failed for good: {}", _consumer_name, _options.topic, r.error().message());
    _state = state::failed;
    _failure = r.error();
    close_waiters_locked(r.error(), out);
  }
  _arrived.notify_all();
  run(out);
}

awaitable<result<proto::BaseCommand>> consumer_impl::request(
    const std::function<proto::BaseCommand(std::uint64_t)>& make) {
  std::shared_ptr<connection> c;
  // A request right after a seek (or a dropped connection) waits for the resubscribe,
  // up to the operation timeout.
  const auto deadline = std::chrono::steady_clock::now() + _client->config().operation_timeout;
  while (true) {
    {
      std::lock_guard lock(_mutex);
      if (_state == state::closed || _state == state::closing || _state == state::failed) {
        co_return closed_error_locked();
      }
      c = _connection;
    }
    if (c) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      co_return fail(client_errc::not_connected, fmt::format("consumer of {} is reconnecting", _options.topic));
    }
    asio::steady_timer pause(co_await asio::this_coro::executor, std::chrono::milliseconds(20));
    boost::system::error_code ec;
    co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  const auto request_id = _client->next_request_id();
  const auto command = make(request_id);
  co_return co_await c->request(request_id, command);
}

awaitable<result<void>> consumer_impl::seek(std::optional<message_id> id,
                                            std::optional<std::uint64_t> publish_time_ms) {
  {
    std::lock_guard lock(_mutex);
    _seeking = true;
  }
  const std::uint64_t consumer_id = _consumer_id;
  const std::function<proto::BaseCommand(std::uint64_t)> make = [&](std::uint64_t request_id) {
    return id ? seek_command(consumer_id, request_id, *id) : seek_command(consumer_id, request_id, *publish_time_ms);
  };
  auto response = co_await request(make);
  std::lock_guard lock(_mutex);
  _seeking = false;
  if (!response) co_return response.error();
  // Messages lie ahead again; the broker says so anew when the subscription drains.
  _end_of_topic = false;
  // What is queued is from before the seek. The broker closes the consumer (as upstream)
  // or goes on from the new position; either way the next message is the sought one.
  return_permits_locked(static_cast<unsigned>(_queue.size()));
  _queue.clear();
  _queued_bytes = 0;
  _batch_acks.clear();
  forget_redelivery_locked();
  _last_dequeued.reset();
  if (!_options.durable) {
    if (id) {
      _start = *id;
      _start_inclusive = true;
      _skip_before_publish_time.reset();
    } else {
      // A new non-durable subscription can't start at a time: read from the start and
      // skip what was published before it.
      _start = message_id::earliest();
      _start_inclusive = false;
      _skip_before_publish_time = publish_time_ms;
    }
  }
  co_return success();
}

awaitable<result<message_id>> consumer_impl::get_last_message_id() {
  const std::uint64_t consumer_id = _consumer_id;
  const std::function<proto::BaseCommand(std::uint64_t)> make = [&](std::uint64_t request_id) {
    return get_last_message_id_command(consumer_id, request_id);
  };
  MAGNETAR_CO_TRY(response, co_await request(make));
  if (response.type() != proto::BaseCommand::GET_LAST_MESSAGE_ID_RESPONSE) {
    co_return fail(client_errc::protocol_error,
                   fmt::format("GET_LAST_MESSAGE_ID answered with {}", wire::command_name(response)));
  }
  const auto& last = response.getlastmessageidresponse().last_message_id();
  const auto id = from_proto(last);
  if (id.ledger_id() < 0 || id.entry_id() < 0) co_return message_id::earliest();
  co_return id;
}

awaitable<result<bool>> consumer_impl::has_message_available() {
  if (has_queued()) co_return true;
  MAGNETAR_CO_TRY(last, co_await get_last_message_id());
  if (last == message_id::earliest()) co_return false;
  std::lock_guard lock(_mutex);
  if (!_queue.empty()) co_return true;
  // Entries arrive whole, so an entry the app has started on has no more to give.
  if (_last_dequeued) co_return last.entry() > _last_dequeued->entry();
  if (_start == message_id::earliest()) co_return true;
  if (_start == message_id::latest()) co_return false;
  co_return _start_inclusive ? last.entry() >= _start.entry() : last.entry() > _start.entry();
}

awaitable<result<void>> consumer_impl::unsubscribe() {
  const std::uint64_t consumer_id = _consumer_id;
  const std::function<proto::BaseCommand(std::uint64_t)> make = [&](std::uint64_t request_id) {
    return unsubscribe_command(consumer_id, request_id);
  };
  MAGNETAR_CO_TRY(co_await request(make));
  shutdown();
  co_return success();
}

awaitable<result<void>> consumer_impl::close() {
  std::shared_ptr<connection> c;
  std::vector<std::shared_ptr<letter_producer>> letters;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) co_return success();
    letters = {_dead_letters, _retry_letters};
  }
  // Dead and retry letters in flight are published first, so that their acks go out
  // with the others below.
  for (auto& l : letters) {
    if (l) co_await l->close();
  }
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) co_return success();
    flush_acks_locked();
    _state = state::closing;
    c = std::move(_connection);
  }
  result<void> closed = success();
  if (c) {
    c->remove_consumer(_consumer_id);
    const auto request_id = _client->next_request_id();
    const auto command = close_consumer_command(_consumer_id, request_id);
    auto response = co_await c->request(request_id, command);
    if (!response && response.error() != client_errc::connection_closed) closed = response.error();
  }
  {
    std::lock_guard lock(_mutex);
    _state = state::closed;
    _ack_timer.cancel();
    _reconnect_timer.cancel();
    _nack_timer.cancel();
    _unacked_timer.cancel();
    close_waiters_locked(closed_error_locked(), out);
  }
  _arrived.notify_all();
  run(out);
  co_return closed;
}

void consumer_impl::shutdown() {
  std::shared_ptr<connection> c;
  std::vector<std::shared_ptr<letter_producer>> letters;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) return;
    if (_connection) flush_acks_locked();
    _state = state::closed;
    c = std::move(_connection);
    letters = {_dead_letters, _retry_letters};
    _ack_timer.cancel();
    _reconnect_timer.cancel();
    _nack_timer.cancel();
    _unacked_timer.cancel();
    close_waiters_locked(closed_error_locked(), out);
  }
  for (auto& l : letters) {
    if (l) l->shutdown();
  }
  _arrived.notify_all();
  if (c) {
    c->remove_consumer(_consumer_id);
    c->write(encode_command(close_consumer_command(_consumer_id, _client->next_request_id())));
  }
  run(out);
}

void consumer_impl::close_waiters_locked(const error& e, actions& out) {
  for (auto& w : _waiters) out.push_back([w = std::move(w), e] { w(e); });
  _waiters.clear();
}

}  // namespace magnetar::client_detail
