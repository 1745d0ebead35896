#include "client/partitioned_producer.h"

#include "client/run_all.h"
#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

namespace magnetar::client_detail {

namespace {

// As upstream: each partition's queue is capped so that all of them together stay within
// max_pending_messages_across_partitions.
producer_config partition_config(producer_config config, unsigned partitions) {
  const std::size_t share = config.max_pending_messages_across_partitions / std::max(1u, partitions);
  config.max_pending_messages = std::max<std::size_t>(1, std::min(config.max_pending_messages, share));
  return config;
}

// Calls `done` once every one of `count` parts has reported, with the first failure.
std::function<void(result<void>)> joined(std::size_t count, std::function<void(result<void>)> done) {
  struct state {
    std::mutex mutex;
    std::size_t remaining;
    result<void> outcome = success();
    std::function<void(result<void>)> done;
  };
  auto s = std::make_shared<state>();
  s->remaining = count;
  s->done = std::move(done);
  return [s](result<void> r) {
    std::function<void(result<void>)> finish;
    result<void> outcome = success();
    {
      std::lock_guard lock(s->mutex);
      if (!r && s->outcome) s->outcome = r.error();
      if (--s->remaining > 0) return;
      finish = std::move(s->done);
      outcome = s->outcome;
    }
    finish(std::move(outcome));
  };
}

}  // namespace

partitioned_producer::partitioned_producer(std::shared_ptr<client_impl> client, std::string topic, unsigned partitions,
                                           producer_config config, std::unique_ptr<partition_router> router)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _config(partition_config(std::move(config), partitions)),
      _router(std::move(router)),
      _partitions(partitions) {
  const auto name = wire::topic_name::parse(_topic);
  MAGNETAR_ASSERT(name, "partitioned_producer on a bad topic name {}", _topic);
  for (unsigned i = 0; i < partitions; ++i) {
    _partitions[i].producer =
        std::make_shared<producer_impl>(_client, name.value().partition_of(static_cast<int>(i)).full(), _config);
  }
}

awaitable<result<void>> partitioned_producer::start() {
  std::vector<unsigned> now;
  {
    std::lock_guard lock(_mutex);
    // As upstream: lazily only for shared access; an exclusive producer must hold every
    // partition from the start.
    if (_config.lazy_start_partitioned_producers && _config.access_mode == producer_access_mode::shared) {
      // The partition a keyless message would go to starts now, so that errors such as
      // a refused producer show at creation.
      const auto probe = message_builder().payload("x").build();
      now.push_back(std::min(_router->choose(probe, partitions()), partitions() - 1));
    } else {
      for (unsigned i = 0; i < partitions(); ++i) now.push_back(i);
    }
    for (unsigned i : now) _partitions[i].st = state::starting;
  }
  std::vector<task<void>> starts;
  for (unsigned i : now) starts.push_back([p = _partitions[i].producer]() { return p->start(); });
  auto started = co_await run_all(*_client, std::move(starts));
  if (auto failed = first_failure(started); !failed) {
    shutdown();
    co_return failed.error();
  }
  {
    std::lock_guard lock(_mutex);
    for (unsigned i : now) _partitions[i].st = state::started;
  }
  co_return success();
}

void partitioned_producer::send_async(message m, send_callback done) {
  std::unique_lock lock(_mutex);
  if (_closed) {
    lock.unlock();
    if (done) done(fail(client_errc::already_closed, fmt::format("producer on {} is closed", _topic)));
    return;
  }
  const unsigned index = _router->choose(m, partitions());
  if (index >= partitions()) {
    lock.unlock();
    if (done) {
      done(fail(client_errc::invalid_argument,
                fmt::format("the message router chose partition {} of {} on {}", index, partitions(), _topic)));
    }
    return;
  }
  auto& p = _partitions[index];
  if (p.st == state::started) {
    auto producer = p.producer;
    lock.unlock();
    producer->send_async(std::move(m), std::move(done));
    return;
  }
  p.waiting.emplace_back(std::move(m), std::move(done));
  if (p.st == state::idle) start_lazily_locked(index);
}

void partitioned_producer::start_lazily_locked(unsigned index) {
  _partitions[index].st = state::starting;
  asio::co_spawn(
      _client->next_shard().executor(), [self = shared_from_this(), index]() { return self->lazy_start(index); },
      asio::detached);
}

awaitable<void> partitioned_producer::lazy_start(unsigned index) {
  auto started = co_await _partitions[index].producer->start();
  if (started) {
    drain(index);
    co_return;
  }
  spdlog::warn("client: producer of {} partition {} failed to start: {}", _topic, index, started.error().message());
  std::vector<std::pair<message, send_callback>> sends;
  std::vector<std::function<void(result<void>)>> flushes;
  {
    std::lock_guard lock(_mutex);
    auto& p = _partitions[index];
    // Back to idle: the next message to this partition tries again.
    if (p.st == state::starting) p.st = state::idle;
    sends.swap(p.waiting);
    flushes.swap(p.waiting_flushes);
  }
  for (auto& [m, done] : sends) {
    if (done) done(started.error());
  }
  for (auto& f : flushes) f(started.error());
}

void partitioned_producer::drain(unsigned index) {
  auto& p = _partitions[index];
  for (;;) {
    std::vector<std::pair<message, send_callback>> sends;
    std::vector<std::function<void(result<void>)>> flushes;
    {
      std::lock_guard lock(_mutex);
      if (p.st != state::starting && p.st != state::draining) return;  // closed meanwhile
      if (p.waiting.empty() && p.waiting_flushes.empty()) {
        p.st = state::started;
        return;
      }
      // Sends keep queueing behind these until the queue is empty, so none overtakes.
      p.st = state::draining;
      sends.swap(p.waiting);
      flushes.swap(p.waiting_flushes);
    }
    for (auto& [m, done] : sends) p.producer->send_async(std::move(m), std::move(done));
    for (auto& f : flushes) p.producer->flush_async(std::move(f));
  }
}

void partitioned_producer::flush_async(std::function<void(result<void>)> done) {
  std::vector<std::shared_ptr<producer_impl>> started;
  std::unique_lock lock(_mutex);
  if (_closed) {
    lock.unlock();
    done(fail(client_errc::already_closed, fmt::format("producer on {} is closed", _topic)));
    return;
  }
  std::size_t parts = 0;
  for (const auto& p : _partitions) {
    if (p.st != state::idle) ++parts;
  }
  if (parts == 0) {
    lock.unlock();
    done(success());
    return;
  }
  auto part_done = joined(parts, std::move(done));
  for (auto& p : _partitions) {
    if (p.st == state::started) {
      started.push_back(p.producer);
    } else if (p.st != state::idle) {
      // Behind the sends that wait for this partition to start.
      p.waiting_flushes.push_back(part_done);
    }
  }
  lock.unlock();
  for (auto& producer : started) producer->flush_async(part_done);
}

awaitable<result<void>> partitioned_producer::close() {
  std::vector<std::pair<message, send_callback>> sends;
  std::vector<std::function<void(result<void>)>> flushes;
  std::vector<task<void>> closes;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return success();
    _closed = true;
    for (auto& p : _partitions) {
      for (auto& s : p.waiting) sends.push_back(std::move(s));
      for (auto& f : p.waiting_flushes) flushes.push_back(std::move(f));
      p.waiting.clear();
      p.waiting_flushes.clear();
      p.st = state::idle;
      closes.push_back([producer = p.producer]() { return producer->close(); });
    }
  }
  const error closed(client_errc::already_closed, fmt::format("producer on {} was closed", _topic));
  for (auto& [m, done] : sends) {
    if (done) done(closed);
  }
  for (auto& f : flushes) f(closed);
  auto results = co_await run_all(*_client, std::move(closes));
  co_return first_failure(results);
}

void partitioned_producer::shutdown() {
  std::vector<std::pair<message, send_callback>> sends;
  std::vector<std::function<void(result<void>)>> flushes;
  {
    std::lock_guard lock(_mutex);
    _closed = true;
    for (auto& p : _partitions) {
      for (auto& s : p.waiting) sends.push_back(std::move(s));
      for (auto& f : p.waiting_flushes) flushes.push_back(std::move(f));
      p.waiting.clear();
      p.waiting_flushes.clear();
      p.st = state::idle;
    }
  }
  for (auto& p : _partitions) p.producer->shutdown();
  const error closed(client_errc::already_closed, fmt::format("producer on {} was closed", _topic));
  for (auto& [m, done] : sends) {
    if (done) done(closed);
  }
  for (auto& f : flushes) f(closed);
}

std::string partitioned_producer::producer_name() const {
  std::lock_guard lock(_mutex);
  for (const auto& p : _partitions) {
    if (p.st == state::started) return p.producer->producer_name();
  }
  return {};
}

std::int64_t partitioned_producer::last_sequence_id() const {
  std::int64_t highest = -1;
  for (const auto& p : _partitions) highest = std::max(highest, p.producer->last_sequence_id());
  return highest;
}

bool partitioned_producer::is_connected() const {
  std::lock_guard lock(_mutex);
  bool any = false;
  for (const auto& p : _partitions) {
    if (p.st != state::started) continue;
    if (!p.producer->is_connected()) return false;
    any = true;
  }
  return any;
}

}  // namespace magnetar::client_detail
