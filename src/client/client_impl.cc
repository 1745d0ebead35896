#include "client/client_impl.h"

#include "base/assert.h"
#include "client/consumer_base.h"
#include "client/producer_base.h"
#include "client/running_shards.h"
#include "magnetar/client_resources.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <thread>

namespace magnetar::client_detail {

client_impl::client_impl(client_config config, std::vector<broker_address> service)
    : _config(std::move(config)),
      _shards(_config.shared_resources ? _config.shared_resources->shards() : start_shards(_config.io_threads)),
      _pool(*_shards, _config),
      _lookup(_pool, std::move(service), _config, _request_ids) {
  for (unsigned i = 0; i < _shards->size(); ++i) {
    _batch_flushers.push_back(std::make_shared<batch_flusher>((*_shards)[i].executor()));
  }
}

client_impl::~client_impl() {
  _pool.close_all();
  // Before the threads stop: a flusher's timer must not outlive its io context, and one
  // still waiting is kept by its handler, which goes with the context.
  _batch_flushers.clear();
  // Threads of this client alone stop here, before the pool and the lookup go, so that
  // handlers still queued are dropped with their contexts (from a callback, a thread of
  // its own stops them: running_shards.h). Shared threads run on for the other clients.
  _shards.reset();
  _listener_threads.reset();  // stopped by close(), unless a listener dropped the client
}

io::shard& client_impl::next_listener_thread() {
  std::lock_guard lock(_mutex);
  if (!_listener_threads) _listener_threads = start_shards(_config.message_listener_threads);
  return (*_listener_threads)[_next_listener_thread++ % _listener_threads->size()];
}

batch_flusher& client_impl::batch_flusher_of(const io::shard& home) {
  MAGNETAR_ASSERT(home.id() < _batch_flushers.size() && &(*_shards)[home.id()] == &home,
                  "a batch flusher asked for a thread that is not one of the client's");
  return *_batch_flushers[home.id()];
}

io::shard& client_impl::next_shard() { return (*_shards)[_next_shard.fetch_add(1) % _shards->size()]; }

bool client_impl::on_io_thread() const { return runs_on(*_shards); }

awaitable<result<std::shared_ptr<connection>>> client_impl::connection_for(const std::string& topic,
                                                                           std::uint64_t key) {
  if (_closed) co_return fail(client_errc::already_closed, "the client is closed");
  MAGNETAR_CO_TRY(where, co_await _lookup.lookup(topic));
  auto c = co_await _pool.get(where.logical, where.physical, key);
  if (!c && c.error() == client_errc::connect_error) {
    // The cluster answered but the owner it named doesn't: it died, and keeps the
    // topic until its session expires. The topic is moving (see backoff.h).
    co_return fail(client_errc::service_not_ready,
                   fmt::format("{} is served by {}, which is unreachable ({}); the cluster moves it when that "
                               "broker's session ends",
                               topic, where.logical.to_string(), c.error().detail()));
  }
  co_return c;
}

void client_impl::add(std::weak_ptr<producer_base> p) {
  std::lock_guard lock(_mutex);
  std::erase_if(_producers, [](const auto& w) { return w.expired(); });
  _producers.push_back(std::move(p));
}

void client_impl::add(std::weak_ptr<consumer_base> c) {
  std::lock_guard lock(_mutex);
  std::erase_if(_consumers, [](const auto& w) { return w.expired(); });
  _consumers.push_back(std::move(c));
}

result<void> client_impl::close() {
  if (_closed.exchange(true)) return success();
  std::vector<std::weak_ptr<producer_base>> producers;
  std::vector<std::weak_ptr<consumer_base>> consumers;
  {
    std::lock_guard lock(_mutex);
    producers.swap(_producers);
    consumers.swap(_consumers);
  }
  for (auto& w : producers) {
    if (auto p = w.lock()) p->shutdown();
  }
  for (auto& w : consumers) {
    if (auto c = w.lock()) c->shutdown();
  }
  _pool.close_all();
  // No listener runs once close() returns (from a listener itself, the threads stop
  // when the client goes: a thread can't join itself).
  std::shared_ptr<io::shard_set> listeners;
  {
    std::lock_guard lock(_mutex);
    listeners = _listener_threads;
  }
  if (listeners && !runs_on(*listeners)) listeners->stop();
  return success();
}

}  // namespace magnetar::client_detail
