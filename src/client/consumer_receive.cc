// consumer_impl: incoming messages, the receive queue, flow permits and acks.
#include "client/batch_format.h"
#include "client/commands.h"
#include "client/compression.h"
#include "client/consumer_impl.h"
#include "client/wait_ready.h"
#include "client/wake_batch.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::client_detail {

namespace {

struct received_message {
  std::shared_ptr<message_data> data;
  bool compacted_out = false;
};

// An entry's messages, decoded from the frame alone (no consumer state): a checksum that
// fails, a payload that doesn't decompress or a batch that doesn't parse is an error.
result<std::vector<received_message>> decode_entry(const proto::CommandMessage& command, wire::frame& frame, int count,
                                                   const message_id& entry,
                                                   const std::shared_ptr<const std::string>& topic) {
  if (frame.has_checksum && !frame.checksum_valid) return fail(client_errc::corrupt_message, "fails its checksum");
  const auto& md = frame.metadata;
  MAGNETAR_TRY(payload, decompress(md.compression(), frame.payload, md.uncompressed_size()));
  auto base = [&](wire::shared_bytes bytes) {
    auto d = std::make_shared<message_data>();
    d->payload = std::move(bytes);
    d->publish_time = md.publish_time();
    d->producer_name = md.producer_name();
    d->redelivery_count = command.redelivery_count();
    return d;
  };
  std::vector<received_message> out;
  if (!md.has_num_messages_in_batch()) {
    auto d = base(std::move(payload));
    d->id = entry;
    if (md.has_partition_key()) d->key = md.partition_key();
    if (md.has_ordering_key()) d->ordering_key = md.ordering_key();
    for (const auto& kv : md.properties()) d->properties[kv.key()] = kv.value();
    d->event_time = md.event_time();
    d->sequence_id = md.sequence_id();
    out.push_back({std::move(d)});
    return out;
  }
  MAGNETAR_TRY(messages, decode_batch(payload, count));
  out.reserve(messages.size());
  for (int i = 0; i < count; ++i) {
    auto& e = messages[static_cast<std::size_t>(i)];
    auto d = base(std::move(e.payload));
    d->id = message_id_access::with_topic({entry.ledger_id(), entry.entry_id(), entry.partition(), i, count}, topic);
    if (e.metadata.has_partition_key()) d->key = std::move(*e.metadata.mutable_partition_key());
    if (e.metadata.has_ordering_key()) d->ordering_key = std::move(*e.metadata.mutable_ordering_key());
    for (const auto& kv : e.metadata.properties()) d->properties[kv.key()] = kv.value();
    d->event_time = e.metadata.event_time();
    d->sequence_id =
        e.metadata.has_sequence_id() ? e.metadata.sequence_id() : md.sequence_id() + static_cast<std::uint64_t>(i);
    out.push_back({std::move(d), e.metadata.compacted_out()});
  }
  return out;
}

}  // namespace

void consumer_impl::on_message(const std::shared_ptr<connection>& c, const proto::CommandMessage& command,
                               wire::frame& frame) {
  const auto& md = frame.metadata;
  const int count = md.has_num_messages_in_batch() ? std::max(1, md.num_messages_in_batch()) : 1;
  const auto entry = message_id_access::with_topic(from_proto(command.message_id(), _partition), _topic_ref);
  // Decoded before taking the lock, which the application's receive and ack calls share:
  // they wait for the queue, not for a batch's decompression and parse.
  auto decoded = decode_entry(command, frame, count, entry, _topic_ref);
  actions out;
  std::vector<message> dead;
  bool wake = false;
  {
    std::lock_guard lock(_mutex);
    if (c != _connection || _state != state::ready) return;
    if (_seeking) {
      // From before the seek; the permits go back in case the broker keeps this consumer.
      return_permits_locked(static_cast<unsigned>(count));
      return;
    }
    if (!decoded) {
      spdlog::error("client: consumer {} on {}: entry {}: {}; skipped", _consumer_name, _options.topic,
                    entry.to_string(), decoded.error().message());
      return_permits_locked(static_cast<unsigned>(count));
      return;
    }
    const bool batched = md.has_num_messages_in_batch();
    int index = 0;
    for (auto& r : decoded.value()) {
      const int i = index++;
      // Compacted out, before the start, or acked before (the broker's ack set, batch-index
      // acks): acked with the rest of its entry, so that the entry can complete.
      if (r.compacted_out || filtered_locked(r.data->id, md.publish_time()) ||
          (batched && acked_in(command.ack_set(), i))) {
        if (batched) _batch_acks.ack_individual(r.data->id);
        return_permits_locked(1);
        continue;
      }
      auto m = message_data::make(std::move(r.data));
      if (divert_to_dead_letter_locked(m, dead)) {
        return_permits_locked(1);
      } else {
        enqueue_locked(std::move(m), out);
      }
    }
    wake = _blocked_receives.any_can_go_on(_queue.size(), _queued_bytes);
  }
  if (wake) wake_batch::notify_all(shared_from_this(), _arrived);
  run(out);
  if (!dead.empty()) dead_letter(std::move(dead));
}

bool consumer_impl::filtered_locked(const message_id& id, std::uint64_t publish_time) const {
  if (_options.durable) return false;
  if (_skip_before_publish_time && publish_time < *_skip_before_publish_time) return true;
  if (_start == message_id::earliest() || _start == message_id::latest()) return false;
  const message_id a(id.ledger_id(), id.entry_id(), -1, id.batch_index());
  const message_id s(_start.ledger_id(), _start.entry_id(), -1, _start.batch_index());
  return _start_inclusive ? a < s : a <= s;
}

void consumer_impl::enqueue_locked(message m, actions& out) {
  if (!_waiters.empty()) {
    auto w = std::move(_waiters.front());
    _waiters.pop_front();
    dequeued_locked(m);
    out.push_back([w = std::move(w), m = std::move(m)] { w(m); });
    return;
  }
  _queued_bytes += m.size();
  _queue.push_back(std::move(m));
}

void consumer_impl::dequeued_locked(const message& m) {
  _last_dequeued = m.id();
  return_permits_locked(1);
  if (_unacked && _options.durable) {
    _unacked->add(m.id());
    arm_unacked_timer_locked();
  }
}

void consumer_impl::return_permits_locked(unsigned count) {
  _permits_to_return += count;
  // As upstream: permits go back in chunks of half the queue, so the broker refills it
  // before it runs dry without a FLOW per message.
  const unsigned threshold = std::max(1u, _queue_size / 2);
  if (_permits_to_return >= threshold && _connection && _state == state::ready) {
    _connection->write(encode_command(flow_command(_consumer_id, _permits_to_return)));
    _permits_to_return = 0;
  }
}

bool consumer_impl::has_queued() const {
  std::lock_guard lock(_mutex);
  return !_queue.empty();
}

result<message> consumer_impl::receive(std::optional<std::chrono::milliseconds> timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  std::unique_lock lock(_mutex);
  const receive_waits::scope blocked(_blocked_receives, 1, 1);
  MAGNETAR_TRY(wait_ready(_arrived, lock, timeout, [&] { return !_queue.empty() || drained_locked(); }));
  if (_queue.empty()) return drained_error_locked();
  auto m = std::move(_queue.front());
  _queue.pop_front();
  _queued_bytes -= m.size();
  dequeued_locked(m);
  return m;
}

bool consumer_impl::drained_locked() const {
  return _queue.empty() && (_end_of_topic || _state == state::closed || _state == state::failed);
}

error consumer_impl::drained_error_locked() const {
  if (_state == state::closed || _state == state::failed) return closed_error_locked();
  return error(client_errc::topic_terminated,
               fmt::format("consumer {} on {}: the topic is terminated and every message was received", _consumer_name,
                           _options.topic));
}

void consumer_impl::receive_async(std::function<void(result<message>)> done) {
  std::unique_lock lock(_mutex);
  if (drained_locked()) {
    auto e = drained_error_locked();
    lock.unlock();
    done(e);
    return;
  }
  if (_queue.empty()) {
    _waiters.push_back(std::move(done));
    return;
  }
  auto m = std::move(_queue.front());
  _queue.pop_front();
  _queued_bytes -= m.size();
  dequeued_locked(m);
  lock.unlock();
  done(std::move(m));
}

result<std::vector<message>> consumer_impl::batch_receive(const batch_receive_policy& policy) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  const std::size_t max_messages = std::max<std::size_t>(1, policy.max_messages);
  std::unique_lock lock(_mutex);
  if (policy.timeout.count() > 0) {
    // With no time to wait, what is queued goes at once: a wait_for(0) still cost a futex
    // call and a context switch (the listener threads' turns make one per consumer).
    const receive_waits::scope blocked(_blocked_receives, max_messages, policy.max_bytes);
    _arrived.wait_for(lock, policy.timeout, [&] {
      return _queue.size() >= max_messages || _queued_bytes >= policy.max_bytes || drained_locked() ||
             (_end_of_topic && !_queue.empty());
    });
  }
  if (drained_locked()) return drained_error_locked();
  std::vector<message> out;
  std::size_t bytes = 0;
  while (!_queue.empty() && out.size() < max_messages) {
    // A message bigger than max_bytes alone still goes, so that it can't block forever.
    if (!out.empty() && bytes + _queue.front().size() > policy.max_bytes) break;
    auto m = std::move(_queue.front());
    _queue.pop_front();
    _queued_bytes -= m.size();
    bytes += m.size();
    dequeued_locked(m);
    out.push_back(std::move(m));
  }
  return out;
}

result<void> consumer_impl::acknowledge(const message_id& id) {
  std::lock_guard lock(_mutex);
  if (_state == state::closed || _state == state::failed) return closed_error_locked();
  bool full = false;
  if (!_batch_acks.ack_individual(id)) {
    if (!_options.config.batch_index_ack_enabled) return success();
    // The broker learns now which messages of the batch are acked (and the entry's
    // ack timeout stays, as upstream: the rest of the batch may still time out).
    full = _acks.add_partial(id.entry(), _batch_acks.ack_set_of(id));
  } else {
    if (_unacked) _unacked->remove(id);
    _nacks.remove(id);
    full = _acks.add_individual(id.entry());
  }
  if (full || _options.config.ack_group_time.count() <= 0) {
    flush_acks_locked();
  } else {
    arm_ack_timer_locked();
  }
  return success();
}

result<void> consumer_impl::acknowledge_cumulative(const message_id& id) {
  if (_options.config.type == subscription_type::shared || _options.config.type == subscription_type::key_shared) {
    return fail(client_errc::not_supported, "cumulative acks are not allowed on Shared and Key_Shared subscriptions");
  }
  std::lock_guard lock(_mutex);
  if (_state == state::closed || _state == state::failed) return closed_error_locked();
  // The entry before `id`'s: what a cumulative ack inside a batch wholly covers.
  const message_id previous(id.ledger_id(), id.entry_id() - 1, id.partition());
  if (_batch_acks.ack_cumulative(id)) {
    _acks.add_cumulative(id.entry());
    if (_unacked) _unacked->remove_upto(id.entry());
  } else if (_options.config.batch_index_ack_enabled) {
    _acks.add_partial_cumulative(id.entry(), _batch_acks.ack_set_of(id));
    if (_unacked) _unacked->remove_upto(previous);
  } else if (id.entry_id() > 0) {
    if (_unacked) _unacked->remove_upto(previous);
    // Part of a batch is acked: everything before its entry is.
    _acks.add_cumulative(message_id(id.ledger_id(), id.entry_id() - 1, id.partition()));
  } else {
    return success();
  }
  if (_options.config.ack_group_time.count() <= 0) {
    flush_acks_locked();
  } else {
    arm_ack_timer_locked();
  }
  return success();
}

void consumer_impl::flush_acks_locked() {
  if (_acks.empty()) return;
  auto group = _acks.take();
  if (!_connection) return;  // the broker redelivers what wasn't acked
  if (group.cumulative) {
    const std::vector<entry_ack> upto{{*group.cumulative, std::move(group.cumulative_ack_set)}};
    _connection->write(encode_command(ack_command(_consumer_id, proto::CommandAck::Cumulative, upto)));
  }
  if (!group.individual.empty() || !group.partial.empty()) {
    std::vector<entry_ack> acks;
    acks.reserve(group.individual.size() + group.partial.size());
    for (const auto& id : group.individual) acks.push_back({id, {}});
    for (auto& [id, set] : group.partial) acks.push_back({id, std::move(set)});
    _connection->write(encode_command(ack_command(_consumer_id, proto::CommandAck::Individual, acks)));
  }
}

void consumer_impl::arm_ack_timer_locked() {
  if (_ack_timer_armed) return;
  _ack_timer_armed = true;
  _ack_timer.expires_after(_options.config.ack_group_time);
  _ack_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->_mutex);
    self->_ack_timer_armed = false;
    if (ec) return;
    self->flush_acks_locked();
  });
}

result<void> consumer_impl::redeliver_unacknowledged() {
  std::lock_guard lock(_mutex);
  if (_state == state::closed || _state == state::failed) return closed_error_locked();
  redeliver_all_locked();
  return success();
}

void consumer_impl::on_active_consumer_change(bool active) {
  std::function<void(bool)> listener;
  {
    std::lock_guard lock(_mutex);
    if (_active == active) return;
    _active = active;
    listener = _options.config.active_consumer_listener;
  }
  if (listener) listener(active);
}

void consumer_impl::on_reached_end_of_topic() {
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_end_of_topic) return;
    _end_of_topic = true;
    spdlog::info("client: consumer {} on {}: reached the end of the terminated topic", _consumer_name, _options.topic);
    // Receives waiting on an empty queue would wait forever.
    if (_queue.empty()) {
      const auto e = drained_error_locked();
      for (auto& w : std::exchange(_waiters, {})) out.push_back([w = std::move(w), e] { w(e); });
    }
  }
  _arrived.notify_all();
  run(out);
}

}  // namespace magnetar::client_detail
