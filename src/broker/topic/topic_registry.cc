#include "broker/topic/topic_registry.h"

#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/api/protocol_error.h"
#include "broker/api/topic_ownership.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/topic/non_persistent_topic.h"
#include "broker/topic/topic.h"
#include "io/run_on.h"
#include "mledger/metadata.h"

#include <fmt/format.h>

namespace magnetar::broker {

topic_registry::topic_registry(const broker_config& config, topic_registry_deps deps)
    : _config(config), _deps(deps), _topics(deps.shards.size()) {
  // managedLedgerCacheSizeMB is the broker's; each shard's topics share an equal part.
  const auto share = (_config.managed_ledger_cache_size_mb << 20) / deps.shards.size();
  for (unsigned i = 0; i < deps.shards.size(); ++i) {
    _cache_budgets.push_back(std::make_shared<mledger::entry_cache_budget>(share));
  }
}

topic_registry::~topic_registry() = default;

io::shard& topic_registry::owner_of(const wire::topic_name& name) {
  return _deps.shards.for_key(std::hash<std::string>{}(name.full()));
}

void topic_registry::segment_drained(const wire::topic_name& segment, const std::string& subscription) {
  if (_links.segment_drained) _links.segment_drained(segment, subscription);
}

awaitable<void> topic_registry::unload_shard(io::shard& s) {
  auto& state = _topics[s.id()];
  state.stopping = true;
  // A topic still loading would land in the map after it was emptied and never close.
  while (!state.loading.empty()) {
    auto signal = std::make_shared<io::oneshot_signal>(s.executor());
    state.loading.begin()->second.push_back(signal);
    co_await signal->wait();
  }
  for (auto& [name, t] : std::exchange(state.non_persistent, {})) t->close();
  auto topics = std::exchange(state.topics, {});
  for (auto& [name, t] : topics) {
    auto closed = co_await t->close();
    if (!closed) spdlog::warn("unloading {}: {}", name, closed.error());
  }
}

// ---------------------------------------------------------------------------------------
// Topics

mledger::managed_ledger_config topic_registry::ledger_config(const io::shard& owner) const {
  mledger::managed_ledger_config c;
  // A topic's cache may take its shard's whole share; together they stay within it.
  c.cache.budget = _cache_budgets[owner.id()];
  c.cache.max_bytes = c.cache.budget->max_bytes();
  c.max_entries_per_ledger = _config.managed_ledger_max_entries_per_ledger;
  c.minimum_rollover_time = _config.managed_ledger_min_ledger_rollover_time;
  c.maximum_rollover_time = _config.managed_ledger_max_ledger_rollover_time;
  c.ensemble_size = _config.managed_ledger_default_ensemble_size;
  c.write_quorum = _config.managed_ledger_default_write_quorum;
  c.ack_quorum = _config.managed_ledger_default_ack_quorum;
  c.retention_time = std::chrono::minutes(_config.default_retention_time_minutes);
  c.retention_size_bytes = _config.default_retention_size_mb < 0 ? -1 : _config.default_retention_size_mb * 1024 * 1024;
  if (_config.default_retention_time_minutes < 0) c.retention_time = std::chrono::milliseconds(-1);
  return c;
}

awaitable<result<void>> topic_registry::check_partition(const wire::topic_name& name) {
  if (name.partition() < 0) co_return success();
  // A partition past its topic's count is never served, nor created (a name ending in
  // -partition-N is an ordinary topic only where no partitioned topic owns it).
  MAGNETAR_CO_TRY(partitions, co_await partitions_of(name.partitioned_parent()));
  if (partitions > 0 && name.partition() >= partitions) {
    co_return fail(errc::not_allowed, fmt::format("Illegal topic partition name {} with max allowed {} partitions",
                                                  name.full(), partitions));
  }
  co_return success();
}

awaitable<result<bool>> topic_registry::topic_exists(const wire::topic_name& name) {
  co_return co_await _deps.store.exists(mledger::managed_ledger_path(name.persistence_name()));
}

awaitable<result<int>> topic_registry::partitions_of(wire::topic_name name) {
  // A partition is itself a plain topic; only a partitioned topic's base name has some.
  // A segment of a scalable topic is never partitioned.
  if (name.partition() >= 0 || name.is_segment()) co_return 0;
  co_return co_await _deps.resources.partitioned_partitions(std::move(name));
}

awaitable<result<std::shared_ptr<topic>>> topic_registry::get_topic_anywhere(wire::topic_name name, bool create) {
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() { return get_topic(name, create); });
}

awaitable<result<std::shared_ptr<topic>>> topic_registry::get_topic(wire::topic_name name, bool create) {
  auto& owner = owner_of(name);
  MAGNETAR_ASSERT(owner.is_current(), "get_topic({}) off its shard", name.full());
  auto& state = _topics[owner.id()];
  const auto key = name.full();
  if (_deps.ownership != nullptr) {
    MAGNETAR_CO_TRY(co_await _deps.ownership->check_owned(name));
  }
  for (;;) {
    if (auto it = state.topics.find(key); it != state.topics.end()) {
      if (!it->second->is_closing()) co_return it->second;
      state.topics.erase(it);
    }
    auto loading = state.loading.find(key);
    if (loading == state.loading.end()) break;
    auto signal = std::make_shared<io::oneshot_signal>(owner.executor());
    loading->second.push_back(signal);
    co_await signal->wait();
  }
  if (state.stopping) co_return fail(errc::service_not_ready, fmt::format("the broker is stopping ({})", key));
  state.loading.emplace(key, std::vector<std::shared_ptr<io::oneshot_signal>>{});
  auto loaded = co_await load_topic(name, create);
  if (loaded && _deps.ownership != nullptr) {
    // Ownership lost while the topic loaded: the sweep that unloads unowned topics
    // may have passed already.
    if (auto owned = co_await _deps.ownership->check_owned(name); !owned) {
      (void)co_await loaded.value()->close();
      loaded = fail(std::move(owned).error());
    }
  }
  auto waiters = std::move(state.loading[key]);
  state.loading.erase(key);
  if (loaded) state.topics[key] = loaded.value();
  for (auto& w : waiters) w->fire();
  co_return loaded;
}

awaitable<result<std::shared_ptr<topic>>> topic_registry::load_topic(const wire::topic_name& name, bool create) {
  if (name.is_scalable()) {
    co_return fail(errc::not_allowed, fmt::format("{} is a scalable topic: its producers and consumers attach to "
                                                  "its segments (the st API)",
                                                  name.full()));
  }
  if (!name.is_persistent()) {
    co_return fail(errc::not_allowed, fmt::format("{}: non-persistent topics are not supported", name.full()));
  }
  MAGNETAR_CO_TRY(co_await check_partition(name));
  MAGNETAR_CO_TRY(exists, co_await topic_exists(name));
  if (!exists) {
    if (!create) co_return fail(errc::topic_not_found, fmt::format("Topic {} does not exist", name.full()));
    // Only the scalable topic's controller makes segments: a client still writing to a
    // deleted topic's segment must not bring it back.
    if (name.is_segment()) {
      co_return fail(
          errc::topic_not_found,
          fmt::format("Segment {} does not exist (its scalable topic's controller creates segments)", name.full()));
    }
    if (!_config.allow_auto_topic_creation) {
      co_return fail(errc::topic_not_found,
                     fmt::format("Topic {} does not exist and allowAutoTopicCreation is off", name.full()));
    }
    MAGNETAR_CO_TRY(namespace_found, co_await _deps.resources.namespace_exists(name.namespace_name()));
    if (!namespace_found) {
      co_return fail(errc::namespace_not_found, fmt::format("Namespace {} does not exist", name.namespace_name()));
    }
  }
  auto& owner = owner_of(name);
  MAGNETAR_CO_TRY(ledger, co_await mledger::managed_ledger::open(name.persistence_name(), ledger_config(owner),
                                                                 {_deps.store, _deps.ledgers, _deps.clock}));
  auto t = std::make_shared<topic>(*this, name, owner, std::move(ledger));
  // Deduplication recovers before the first SEND is taken, as upstream's topic load
  // waits for it; a topic that cannot recover it does not serve (duplicates would pass).
  auto applied = co_await t->refresh_policies();
  if (!applied) {
    auto closed = co_await t->close();
    if (!closed) spdlog::warn("{}: closing after a failed load: {}", name.full(), closed.error());
    co_return fail(errc::service_not_ready,
                   fmt::format("{}: deduplication could not recover: {}", name.full(), message_of(applied.error())));
  }
  t->start();
  spdlog::info("loaded topic {}", name.full());
  co_return t;
}

}  // namespace magnetar::broker
