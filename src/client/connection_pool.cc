#include "client/connection_pool.h"

#include "io/await_callback.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

namespace magnetar::client_detail {

connection_pool::connection_pool(io::shard_set& shards, const client_config& config)
    : _shards(shards), _config(config) {}

awaitable<result<std::shared_ptr<connection>>> connection_pool::get(broker_address logical, broker_address physical,
                                                                    std::uint64_t key) {
  const unsigned per_broker = std::max(1u, _config.max_connections_per_broker);
  const std::string pool_key = fmt::format("{}|{}|{}", logical.to_string(), physical.to_string(), key % per_broker);
  std::shared_ptr<connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return fail(client_errc::already_closed, "the client is closed");
    auto& slot = _connections[pool_key];
    if (!slot || slot->is_closed()) {
      auto& shard = _shards[_next_shard++ % _shards.size()];
      slot = std::make_shared<connection>(shard, _config, logical, physical);
      slot->start();
    }
    c = slot;
  }
  auto start = [c](std::function<void(result<std::shared_ptr<connection>>)> done) { c->when_ready(std::move(done)); };
  co_return co_await io::await_callback<result<std::shared_ptr<connection>>>(start);
}

awaitable<result<std::shared_ptr<connection>>> connection_pool::get_dedicated(broker_address address,
                                                                              std::uint64_t owner) {
  std::shared_ptr<connection> c;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return fail(client_errc::already_closed, "the client is closed");
    auto& slot = _dedicated[owner];
    if (!slot || slot->is_closed()) {
      auto& shard = _shards[_next_shard++ % _shards.size()];
      slot = std::make_shared<connection>(shard, _config, address, address);
      slot->start();
    }
    c = slot;
  }
  auto start = [c](std::function<void(result<std::shared_ptr<connection>>)> done) { c->when_ready(std::move(done)); };
  co_return co_await io::await_callback<result<std::shared_ptr<connection>>>(start);
}

void connection_pool::release(const std::shared_ptr<connection>& c) {
  std::size_t dropped = 0;
  {
    std::lock_guard lock(_mutex);
    dropped = std::erase_if(_dedicated, [&](const auto& entry) { return entry.second == c; });
  }
  // A shared connection (a fallback path got one from get()) stays open for the others.
  if (dropped > 0) c->close(error(client_errc::already_closed, "its owner closed"));
}

void connection_pool::close_all() {
  std::map<std::string, std::shared_ptr<connection>> all;
  std::map<std::uint64_t, std::shared_ptr<connection>> dedicated;
  {
    std::lock_guard lock(_mutex);
    _closed = true;
    all.swap(_connections);
    dedicated.swap(_dedicated);
  }
  for (auto& [key, c] : all) c->close(error(client_errc::already_closed, "the client is closing"));
  for (auto& [owner, c] : dedicated) c->close(error(client_errc::already_closed, "the client is closing"));
}

}  // namespace magnetar::client_detail
