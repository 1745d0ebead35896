// consumer_impl: redelivery the client asks for (negative acks, the ack timeout, an
// explicit redeliver), and the dead letter and retry topics.
#include "client/commands.h"
#include "client/consumer_impl.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace magnetar::client_detail {

bool consumer_impl::single_active() const {
  return _options.config.type == subscription_type::exclusive || _options.config.type == subscription_type::failover;
}

void consumer_impl::forget_redelivery_locked() {
  _nacks.clear();
  if (_unacked) _unacked->clear();
}

void consumer_impl::redeliver_all_locked() {
  if (!_connection || _state != state::ready) return;  // the resubscribe redelivers anyway
  // Acks still in the group go first, or the broker would send those messages again too.
  flush_acks_locked();
  const auto dropped = static_cast<unsigned>(_queue.size());
  _queue.clear();
  _queued_bytes = 0;
  _batch_acks.clear();
  forget_redelivery_locked();
  _connection->write(encode_command(redeliver_command(_consumer_id)));
  return_permits_locked(dropped);
}

void consumer_impl::redeliver_locked(const std::vector<message_id>& entries) {
  if (entries.empty()) return;
  // A single-active broker (upstream's too) sends everything unacknowledged again,
  // whatever the list says, to keep the order; what is queued would come twice.
  if (single_active()) {
    redeliver_all_locked();
    return;
  }
  if (!_connection || _state != state::ready) return;
  flush_acks_locked();
  const std::set<message_id> wanted(entries.begin(), entries.end());
  // The entries come again whole: their messages still queued would come twice.
  unsigned dropped = 0;
  std::erase_if(_queue, [&](const message& m) {
    if (!wanted.contains(m.id().entry())) return false;
    _queued_bytes -= m.size();
    ++dropped;
    return true;
  });
  for (const auto& e : entries) {
    if (_unacked) _unacked->remove(e);
    _nacks.remove(e);
  }
  _connection->write(encode_command(redeliver_command(_consumer_id, entries)));
  return_permits_locked(dropped);
}

result<void> consumer_impl::negative_acknowledge(const message_id& id) {
  std::lock_guard lock(_mutex);
  if (_state == state::closed || _state == state::failed) return closed_error_locked();
  // It comes again by the nack, not by the ack timeout.
  if (_unacked) _unacked->remove(id);
  _nacks.add(id, negative_ack_tracker::clock::now());
  arm_nack_timer_locked();
  return success();
}

void consumer_impl::arm_nack_timer_locked() {
  if (_nack_timer_armed) return;
  const auto due = _nacks.next_due();
  if (!due) return;
  _nack_timer_armed = true;
  _nack_timer.expires_at(*due);
  _nack_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->_mutex);
    self->_nack_timer_armed = false;
    if (ec || self->_state == state::closed || self->_state == state::failed) return;
    self->on_nack_timer();
  });
}

void consumer_impl::on_nack_timer() {
  // Every entry due now goes in one request, as upstream gathers them.
  const auto due = _nacks.take_due(negative_ack_tracker::clock::now());
  redeliver_locked(due);
  arm_nack_timer_locked();
}

void consumer_impl::arm_unacked_timer_locked() {
  if (_unacked_timer_armed || !_unacked || _unacked->empty()) return;
  _unacked_timer_armed = true;
  _unacked_timer.expires_after(_unacked->tick_interval());
  _unacked_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->_mutex);
    self->_unacked_timer_armed = false;
    if (ec || self->_state == state::closed || self->_state == state::failed) return;
    self->on_unacked_tick();
  });
}

void consumer_impl::on_unacked_tick() {
  const auto expired = _unacked->tick();
  if (!expired.empty()) {
    spdlog::info("client: consumer {} on {}: {} entries not acknowledged within {} ms; redelivering", _consumer_name,
                 _options.topic, expired.size(), _options.config.ack_timeout.count());
    redeliver_locked(expired);
  }
  arm_unacked_timer_locked();
}

bool consumer_impl::divert_to_dead_letter_locked(const message& m, std::vector<message>& out) {
  const int max = _options.config.dead_letter_policy.max_redeliver_count;
  if (max <= 0 || !_options.durable) return false;
  if (_dead_lettering.contains(m.id())) return true;  // on its way there already
  // As upstream, the app sees a message max_redeliver_count + 1 times (redelivery counts
  // 0..max); a delivery past that is the one that goes to the dead letter topic.
  if (m.redelivery_count() <= static_cast<std::uint32_t>(max)) return false;
  _dead_lettering.insert(m.id());
  out.push_back(m);
  return true;
}

std::shared_ptr<letter_producer> consumer_impl::dead_letter_producer_locked() {
  if (!_dead_letters) {
    const auto& policy = _options.config.dead_letter_policy;
    auto topic = policy.dead_letter_topic.empty() ? default_dead_letter_topic(_options.topic, _options.subscription)
                                                  : policy.dead_letter_topic;
    _dead_letters = std::make_shared<letter_producer>(_client, std::move(topic), policy.initial_subscription_name);
  }
  return _dead_letters;
}

std::shared_ptr<letter_producer> consumer_impl::retry_letter_producer_locked() {
  if (!_retry_letters) {
    const auto& policy = _options.config.dead_letter_policy;
    auto topic = policy.retry_letter_topic.empty() ? default_retry_letter_topic(_options.topic, _options.subscription)
                                                   : policy.retry_letter_topic;
    _retry_letters = std::make_shared<letter_producer>(_client, std::move(topic), std::string());
  }
  return _retry_letters;
}

void consumer_impl::dead_letter(std::vector<message> messages) {
  std::shared_ptr<letter_producer> producer;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed || _state == state::failed) return;
    producer = dead_letter_producer_locked();
  }
  for (auto& m : messages) {
    auto done = [weak = weak_from_this(), id = m.id(), topic = producer->topic()](result<message_id> sent) {
      auto self = weak.lock();
      if (!self) return;
      if (sent) {
        // Acked only once the dead letter is stored, so a failure loses nothing; sent at
        // once, so a redelivery asked for meanwhile doesn't bring it back.
        (void)self->acknowledge(id);
        std::lock_guard lock(self->_mutex);
        self->flush_acks_locked();
        self->_dead_lettering.erase(id);
        return;
      }
      spdlog::warn("client: consumer {} on {}: message {} could not go to {}: {}; it will be redelivered",
                   self->consumer_name(), self->_options.topic, id.to_string(), topic, sent.error().message());
      {
        std::lock_guard lock(self->_mutex);
        self->_dead_lettering.erase(id);
      }
      // Redelivered after the nack delay, and dead-lettered again then.
      (void)self->negative_acknowledge(id);
    };
    producer->send(dead_letter_message(m), std::move(done));
  }
}

void consumer_impl::reconsume_later(const message& m, std::chrono::milliseconds delay,
                                    std::function<void(result<void>)> done) {
  std::shared_ptr<letter_producer> producer;
  message letter;
  {
    std::unique_lock lock(_mutex);
    std::optional<error> refused;
    if (_state == state::closed || _state == state::failed) {
      refused = closed_error_locked();
    } else if (!_options.config.retry_enable) {
      refused = error(client_errc::invalid_argument, "reconsume_later needs consumer_config::retry_enable");
    } else if (delay.count() < 0) {
      refused = error(client_errc::invalid_argument, "a negative reconsume delay");
    }
    if (refused) {
      lock.unlock();
      done(*refused);
      return;
    }
    // As upstream's Java client: past max_redeliver_count retries it is a dead letter.
    const int max = _options.config.dead_letter_policy.max_redeliver_count;
    if (max > 0 && reconsume_times_of(m) + 1 > max) {
      producer = dead_letter_producer_locked();
      letter = dead_letter_message(m);
    } else {
      producer = retry_letter_producer_locked();
      letter = retry_message(m, delay);
    }
  }
  auto acked = [weak = weak_from_this(), id = m.id(), done = std::move(done)](result<message_id> sent) {
    if (!sent) {
      done(sent.error());
      return;
    }
    auto self = weak.lock();
    if (!self) {
      done(fail(client_errc::already_closed, "the consumer is gone; the original message stays unacknowledged"));
      return;
    }
    done(self->acknowledge(id));
  };
  producer->send(std::move(letter), std::move(acked));
}

}  // namespace magnetar::client_detail
