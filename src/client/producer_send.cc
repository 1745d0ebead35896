// producer_impl: the send path (queueing, batching, framing), receipts and timeouts.
#include "client/commands.h"
#include "client/producer_impl.h"
#include "client/server_error.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::client_detail {

namespace {
// Send timeouts are checked this often; they are seconds long, so this is fine-grained.
constexpr auto timeout_tick = std::chrono::milliseconds(100);

std::uint64_t wall_millis() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}
}  // namespace

void producer_impl::send_async(message m, send_callback done) {
  auto data = message_data::share(m);
  std::unique_lock lock(_mutex);
  auto refuse = [&](client_errc e, std::string detail) {
    lock.unlock();
    if (done) done(fail(e, std::move(detail)));
  };
  if (_state == state::closing || _state == state::closed) {
    return refuse(client_errc::already_closed, fmt::format("producer {} on {} is closed", _producer_name, _topic));
  }
  if (_state == state::failed) {
    return refuse(client_errc::already_closed, fmt::format("producer {} on {} has failed", _producer_name, _topic));
  }
  if (_state == state::terminated) {
    return refuse(client_errc::topic_terminated,
                  fmt::format("producer {}: topic {} is terminated", _producer_name, _topic));
  }
  const std::size_t max_size = _connection ? _connection->max_message_size() : _client->config().max_frame_size;
  if (data->payload.size() > max_size) {
    return refuse(client_errc::message_too_big,
                  fmt::format("{} bytes; the broker takes up to {}", data->payload.size(), max_size));
  }
  while (_pending_messages >= _config.max_pending_messages) {
    // Blocking an io thread would stop the receipts that make room.
    if (!_config.block_if_queue_full || _client->on_io_thread()) {
      return refuse(client_errc::producer_queue_is_full,
                    fmt::format("{} messages pending on producer {}", _pending_messages, _producer_name));
    }
    _room.wait(lock);
    if (_state == state::terminated) {
      return refuse(client_errc::topic_terminated,
                    fmt::format("producer {}: topic {} is terminated", _producer_name, _topic));
    }
    if (_state == state::closing || _state == state::closed || _state == state::failed) {
      return refuse(client_errc::already_closed, fmt::format("producer {} on {} is closed", _producer_name, _topic));
    }
  }
  const std::uint64_t sequence_id = data->sequence_id ? *data->sequence_id : _next_sequence_id++;
  ++_pending_messages;
  queued_message q{std::move(data), sequence_id, std::move(done)};
  if (!_config.batching_enabled || q.data->deliver_at_time) {
    // As upstream, a delayed message goes alone: the broker delays whole entries. What is
    // batched goes first, so the order stays.
    flush_batch_locked();
    entry_context context{_producer_name, wall_millis(), _config.compression};
    push_op_locked(build_single(std::move(q), context));
    return;
  }
  if (!_batch.has_room_for(*q.data)) flush_batch_locked();
  _batch.add(std::move(q));
  if (_batch.is_full()) {
    flush_batch_locked();
  } else if (_batch.size() == 1) {
    arm_batch_timer_locked();
  }
}

void producer_impl::send_entry_async(proto::MessageMetadata metadata, std::vector<std::byte> payload,
                                     std::uint64_t sequence_id, send_callback done) {
  std::unique_lock lock(_mutex);
  if (_state == state::closing || _state == state::closed || _state == state::failed || _state == state::terminated) {
    lock.unlock();
    done(fail(_state == state::terminated ? client_errc::topic_terminated : client_errc::already_closed,
              fmt::format("producer {} on {} can't send", _producer_name, _topic)));
    return;
  }
  ++_pending_messages;
  built_entry e;
  e.num_messages = metadata.has_num_messages_in_batch() ? metadata.num_messages_in_batch() : 1;
  e.batched = metadata.has_num_messages_in_batch();
  e.sequence_id = sequence_id;
  e.metadata = std::move(metadata);
  e.payload = std::move(payload);
  e.callbacks.push_back(std::move(done));
  push_op_locked(std::move(e));
}

void producer_impl::flush_batch_locked() {
  if (_batch.empty()) return;
  entry_context context{_producer_name, wall_millis(), _config.compression};
  for (auto& e : _batch.build(context)) push_op_locked(std::move(e));
}

void producer_impl::push_op_locked(built_entry e) {
  op o;
  o.sequence_id = e.sequence_id;
  o.num_messages = e.num_messages;
  o.batched = e.batched;
  o.callbacks = std::move(e.callbacks);
  o.deadline = clock::now() + _config.send_timeout;
  const auto command = send_command(_producer_id, e.sequence_id, e.batched ? e.num_messages : 1, 0);
  o.frame = std::make_shared<const std::vector<std::byte>>(encode_payload_command(command, e.metadata, e.payload));
  if (_state == state::ready && _connection) _connection->write(o.frame);
  _pending.push_back(std::move(o));
  arm_timeout_timer_locked();
}

void producer_impl::arm_batch_timer_locked() {
  if (_batch_timer_armed) return;
  _batch_timer_armed = true;
  _client->batch_flusher_of(_home).schedule(_config.batching_max_delay, [weak = weak_from_this()] {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->_mutex);
    self->_batch_timer_armed = false;
    if (self->_state == state::closed) return;
    self->flush_batch_locked();
  });
}

void producer_impl::arm_timeout_timer_locked() {
  if (_timeout_timer_armed || _config.send_timeout.count() <= 0) return;
  _timeout_timer_armed = true;
  _timeout_timer.expires_after(std::min<clock::duration>(timeout_tick, _config.send_timeout));
  _timeout_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->on_timeout_tick();
  });
}

void producer_impl::on_timeout_tick() {
  actions out;
  {
    std::lock_guard lock(_mutex);
    _timeout_timer_armed = false;
    if (_state == state::closed) return;
    const auto now = clock::now();
    // Ops time out in order; a receipt arriving later for one of them is ignored.
    while (!_pending.empty() && _pending.front().deadline <= now) {
      auto o = std::move(_pending.front());
      _pending.pop_front();
      complete_locked(
          o, fail(client_errc::timeout, fmt::format("no receipt within {} ms", _config.send_timeout.count())), out);
    }
    if (!_pending.empty()) arm_timeout_timer_locked();
  }
  _room.notify_all();
  run(out);
}

void producer_impl::complete_locked(op& o, result<message_id> r, actions& out) {
  _pending_messages -= std::min<std::size_t>(_pending_messages, o.callbacks.size());
  const int count = static_cast<int>(o.callbacks.size());
  for (int i = 0; i < count; ++i) {
    auto& cb = o.callbacks[static_cast<std::size_t>(i)];
    if (!cb) continue;
    if (!r) {
      out.push_back([cb = std::move(cb), e = r.error()] { cb(e); });
      continue;
    }
    const message_id id = o.batched
                              ? message_id(r.value().ledger_id(), r.value().entry_id(), r.value().partition(), i, count)
                              : r.value();
    out.push_back([cb = std::move(cb), id] { cb(id); });
  }
  result<void> flushed = r ? result<void>(success()) : result<void>(r.error());
  for (auto& f : o.flush_callbacks) out.push_back([f = std::move(f), flushed] { f(flushed); });
  if (_pending.empty()) {
    for (auto& f : _idle_flush_callbacks) out.push_back([f = std::move(f)] { f(success()); });
    _idle_flush_callbacks.clear();
  }
}

void producer_impl::fail_all_locked(const error& e, actions& out) {
  for (auto& q : _batch.take_all()) {
    if (q.callback) out.push_back([cb = std::move(q.callback), e] { cb(e); });
  }
  auto pending = std::move(_pending);
  _pending.clear();
  for (auto& o : pending) complete_locked(o, e, out);
  for (auto& f : _idle_flush_callbacks) out.push_back([f = std::move(f), e] { f(e); });
  _idle_flush_callbacks.clear();
  _pending_messages = 0;
}

void producer_impl::flush_async(std::function<void(result<void>)> done) {
  std::unique_lock lock(_mutex);
  if (_state == state::terminated) {
    lock.unlock();
    done(fail(client_errc::topic_terminated,
              fmt::format("producer {}: topic {} is terminated", _producer_name, _topic)));
    return;
  }
  if (_state == state::closed || _state == state::failed) {
    lock.unlock();
    done(fail(client_errc::already_closed, fmt::format("producer {} on {} is closed", _producer_name, _topic)));
    return;
  }
  flush_batch_locked();
  if (_pending.empty()) {
    lock.unlock();
    done(success());
    return;
  }
  _pending.back().flush_callbacks.push_back(std::move(done));
}

void producer_impl::on_send_receipt(const proto::CommandSendReceipt& receipt) {
  actions out;
  std::shared_ptr<connection> broken;
  bool room = false;
  {
    std::lock_guard lock(_mutex);
    if (_pending.empty()) return;
    auto& front = _pending.front();
    if (receipt.sequence_id() < front.sequence_id) return;  // an op that timed out
    if (receipt.sequence_id() > front.sequence_id) {
      spdlog::warn("client: producer {} on {}: receipt for sequence id {} while {} was expected; reconnecting",
                   _producer_name, _topic, receipt.sequence_id(), front.sequence_id);
      broken = _connection;
    } else {
      auto o = std::move(front);
      _pending.pop_front();
      _last_sequence_id_published =
          static_cast<std::int64_t>(o.sequence_id) + static_cast<std::int64_t>(o.callbacks.size()) - 1;
      message_id id(-1, -1);
      if (receipt.has_message_id()) id = from_proto(receipt.message_id(), _partition);
      complete_locked(o, message_id(id.ledger_id(), id.entry_id(), id.partition()), out);
    }
    // A sender blocked on a full queue goes on once an eighth of the queue is free, not
    // at every receipt: woken per receipt, it sent the few messages that one made room
    // for and slept again, two context switches a receipt. The receipts still pending
    // wake it in time (or their timeouts, or a failure, which always wake).
    const auto max = _config.max_pending_messages;
    room = max - std::min(max, _pending_messages) >= std::max<std::size_t>(1, max / 8);
  }
  if (broken) broken->close(error(client_errc::protocol_error, "out-of-order send receipt"));
  if (room || broken) _room.notify_all();
  run(out);
}

void producer_impl::on_send_error(const proto::CommandSendError& send_error) {
  actions out;
  std::shared_ptr<connection> broken;
  bool fatal = false;
  const auto e = server_failure(send_error.error(), send_error.message(), fmt::format("SEND to {}", _topic));
  {
    std::lock_guard lock(_mutex);
    if (_pending.empty() || send_error.sequence_id() < _pending.front().sequence_id) return;
    if (send_error.error() == proto::ChecksumError && send_error.sequence_id() == _pending.front().sequence_id) {
      // The bytes were damaged on the way; sending them again can't help.
      auto o = std::move(_pending.front());
      _pending.pop_front();
      complete_locked(o, e, out);
    } else if (send_error.error() == proto::TopicTerminatedError || send_error.error() == proto::ProducerFenced) {
      // For good: nothing more will be stored (upstream's producer does the same).
      spdlog::info("client: producer {} on {}: {}", _producer_name, _topic, e.message());
      fatal = true;
      broken = std::move(_connection);
      fail_for_good_locked(e, out);
    } else {
      // Anything else is the broker's trouble, not the message's: start over on a new
      // connection and send everything again, as upstream does.
      spdlog::warn("client: producer {} on {}: {}; reconnecting", _producer_name, _topic, e.message());
      broken = _connection;
    }
  }
  if (broken) {
    if (fatal) {
      broken->remove_producer(_producer_id);
    } else {
      broken->close(e);
    }
  }
  _room.notify_all();
  run(out);
}

}  // namespace magnetar::client_detail
