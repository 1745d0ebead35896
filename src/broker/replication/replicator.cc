#include "broker/replication/replicator.h"

#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/topic/entry_format.h"
#include "io/run_on.h"
#include "io/timer.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::broker {

namespace {

// The SEND's sequence id: the entry's position, which only grows along the topic, so
// that the producer's receipts match its sends in order. (The remote deduplicates by
// the ids inside the metadata, not by this.)
std::uint64_t sequence_of(mledger::position at) {
  return (static_cast<std::uint64_t>(at.ledger().value()) << 32) | static_cast<std::uint64_t>(at.entry().value());
}

std::uint64_t now_ms() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
          .count());
}

}  // namespace

// The client's threads call back: a replicator stopped (its topic closed, perhaps its
// broker and shards gone by now) takes nothing more, so nothing is posted to its shard.
bool replicator::still_running(const std::weak_ptr<replicator>& weak) {
  auto self = weak.lock();
  return self && !self->_stopping.load(std::memory_order_acquire);
}

replicator::replicator(wire::topic_name topic, std::string local_cluster, std::string remote_cluster,
                       mledger::managed_ledger& ledger, io::shard& shard, replication_clients& clients,
                       base::clock& clock, replicator_settings settings)
    : _topic(std::move(topic)),
      _local(std::move(local_cluster)),
      _remote(std::move(remote_cluster)),
      _ledger(ledger),
      _shard(shard),
      _clients(clients),
      _clock(clock),
      _settings(settings),
      _gate(fmt::format("replicator {} -> {}", _topic.full(), _remote)),
      _backoff(settings.initial_backoff) {}

replicator::~replicator() = default;

awaitable<result<void>> replicator::start() {
  MAGNETAR_CO_TRY(cursor, co_await _ledger.open_cursor(cursor_name(_remote), mledger::initial_position::latest));
  _cursor = cursor;
  spdlog::info("{}: replicating to cluster {} from {}", _topic.full(), _remote, _cursor->read_position());
  connect();
  co_return success();
}

awaitable<void> replicator::stop() {
  _stopping.store(true, std::memory_order_release);
  ++_generation;
  if (_producer) _producer->close();
  _producer.reset();
  co_await _gate.close();
  _in_flight.clear();
  spdlog::info("{}: replication to cluster {} stopped", _topic.full(), _remote);
}

void replicator::connect() {
  if (_stopping || _connecting || _producer) return;
  _connecting = true;
  auto pass = _gate.enter();
  if (!pass) return;
  io::spawn(_shard.executor(),
            [self = shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
              return self->connect_after(std::chrono::milliseconds(0), held);
            });
}

awaitable<void> replicator::connect_after(std::chrono::milliseconds delay, std::shared_ptr<io::gate::pass> /*held*/) {
  result<std::shared_ptr<client>> c = fail(errc::service_not_ready, "not asked yet");
  for (;;) {
    if (delay.count() > 0) {
      io::timer timer(_shard.executor(), _clock);
      co_await timer.wait_for(delay);
    }
    if (_stopping) co_return;
    c = co_await _clients.client_for(_remote);
    if (_stopping) co_return;
    if (c) break;
    spdlog::warn("{}: replication to {}: {}; trying again in {} ms", _topic.full(), _remote, c.error(),
                 _backoff.count());
    delay = next_backoff();
  }
  producer_config config;
  config.producer_name = "pulsar.repl." + _local;
  config.send_timeout = std::chrono::milliseconds(0);  // resend until receipted, never skip
  config.batching_enabled = false;                     // entries are batched already
  config.max_pending_messages = _settings.max_in_flight + 1;
  client_detail::entry_producer::start_async(
      *c.value(), _topic.full(), config, [weak = weak_from_this(), executor = _shard.executor()](auto made) {
        if (!still_running(weak)) return;
        asio::post(executor, [weak, made = std::move(made)]() mutable {
          auto self = weak.lock();
          if (!self) return;
          if (made) {
            self->connected(std::move(made).value());
            return;
          }
          spdlog::warn("{}: replication to {}: producer: {}; trying again in {} ms", self->_topic.full(), self->_remote,
                       made.error(), self->_backoff.count());
          auto pass = self->_gate.enter();
          if (!pass) return;
          io::spawn(self->_shard.executor(), [self, next = self->next_backoff(),
                                              held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
            return self->connect_after(next, held);
          });
        });
      });
}

std::chrono::milliseconds replicator::next_backoff() {
  const auto now = _backoff;
  _backoff = std::min(_backoff * 2, _settings.max_backoff);
  return now;
}

void replicator::connected(std::shared_ptr<client_detail::entry_producer> producer) {
  _connecting = false;
  if (_stopping) {
    producer->close();
    return;
  }
  _producer = std::move(producer);
  _backoff = _settings.initial_backoff;
  spdlog::info("{}: replication to {}: producer connected", _topic.full(), _remote);
  pump();
}

void replicator::pump() {
  if (_stopping || !_producer || _reading || !_cursor) return;
  if (_in_flight.size() >= _settings.max_in_flight) return;  // a receipt pumps again
  if (!_cursor->has_more_entries()) {
    if (_waiting) return;
    _waiting = true;
    // Outside the gate: the managed ledger wakes it with an error when it closes, after
    // stop(); it only looks at `_stopping` then.
    io::spawn(_shard.executor(), [self = shared_from_this()]() { return self->wait_for_entries(); });
    return;
  }
  auto pass = _gate.enter();
  if (!pass) return;
  _reading = true;
  io::spawn(_shard.executor(),
            [self = shared_from_this(), held = std::make_shared<io::gate::pass>(std::move(pass).value())]() {
              return self->read(held);
            });
}

awaitable<void> replicator::wait_for_entries() {
  while (!_stopping && !_cursor->has_more_entries()) {
    auto woke = co_await _ledger.wait_for_entries_after(_ledger.last_confirmed());
    if (!woke) break;
  }
  _waiting = false;
  pump();
}

awaitable<void> replicator::read(std::shared_ptr<io::gate::pass> /*held*/) {
  const auto room = _settings.max_in_flight - std::min(_settings.max_in_flight, _in_flight.size());
  auto entries = co_await _cursor->read_entries(std::min(room, _settings.read_batch));
  _reading = false;
  if (_stopping) co_return;
  if (!entries) {
    spdlog::warn("{}: replication to {}: reading: {}", _topic.full(), _remote, entries.error());
    io::timer timer(_shard.executor(), _clock);
    co_await timer.wait_for(_settings.initial_backoff * 10);
    _cursor->rewind();
  } else {
    for (const auto& e : entries.value()) forward(e);
  }
  pump();
}

void replicator::forward(const mledger::entry& e) {
  auto metadata = entry_metadata(e.data);
  if (!metadata) {
    spdlog::warn("{}: replication to {} skips entry {}: {}", _topic.full(), _remote, e.pos, metadata.error());
    (void)_cursor->delete_entry(e.pos);
    return;
  }
  auto& m = metadata.value();
  // Another cluster's entry goes no further (each cluster replicates its own), and
  // markers are this topic's own business.
  if (m.has_replicated_from() || m.has_marker_type()) {
    (void)_cursor->delete_entry(e.pos);
    return;
  }
  auto encoded = entry_metadata_bytes(e.data);
  const auto payload_offset =
      encoded ? static_cast<std::size_t>(encoded.value().data() - e.data.data()) + encoded.value().size()
              : e.data.size();
  const auto bytes = std::span<const std::byte>(e.data.data(), e.data.size()).subspan(payload_offset);
  std::vector<std::byte> payload(bytes.begin(), bytes.end());
  m.set_replicated_from(_local);
  _in_flight.push_back({e.pos, m.publish_time(), static_cast<std::uint64_t>(messages_in(m)), e.data.size()});
  _producer->send_async(std::move(m), std::move(payload), sequence_of(e.pos),
                        [weak = weak_from_this(), executor = _shard.executor(), at = e.pos,
                         generation = _generation](result<message_id> r) {
                          if (!still_running(weak)) return;
                          asio::post(executor, [weak, at, generation, r = std::move(r)] {
                            if (auto self = weak.lock()) self->receipted(at, generation, r);
                          });
                        });
}

void replicator::receipted(mledger::position at, std::uint64_t generation, const result<message_id>& r) {
  if (generation != _generation || _stopping) return;
  if (!r) {
    restart(r.error().message());
    return;
  }
  // Receipts come in send order.
  while (!_in_flight.empty() && _in_flight.front().at <= at) {
    if (_in_flight.front().at == at) _out.record(_in_flight.front().messages, _in_flight.front().bytes);
    _in_flight.pop_front();
  }
  _behind_since_ms = 0;
  (void)_cursor->delete_entry(at);
  pump();
}

void replicator::restart(std::string_view why) {
  spdlog::warn("{}: replication to {}: {}; starting again from the last receipted entry", _topic.full(), _remote, why);
  ++_generation;
  if (!_in_flight.empty() && _behind_since_ms == 0) _behind_since_ms = _in_flight.front().publish_time_ms;
  _in_flight.clear();
  if (_producer) _producer->close();
  _producer.reset();
  _cursor->rewind();
  connect();
}

replicator_stats replicator::stats() const {
  replicator_stats s;
  s.msg_rate_out = _out.message_rate();
  s.msg_throughput_out = _out.byte_rate();
  s.msg_out_counter = _out.messages();
  s.replication_backlog = _cursor ? _cursor->backlog() : 0;
  s.connected = _producer && _producer->is_connected();
  std::uint64_t oldest = _in_flight.empty() ? _behind_since_ms : _in_flight.front().publish_time_ms;
  if (oldest != 0)
    s.replication_delay_seconds = static_cast<std::int64_t>(now_ms() - std::min(oldest, now_ms())) / 1000;
  return s;
}

}  // namespace magnetar::broker
