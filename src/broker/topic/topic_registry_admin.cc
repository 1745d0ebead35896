// topic_registry's topic_admin side: each call hops to the topic's shard, loads the
// topic when it exists (admin calls never create one implicitly), and asks it.
#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/topic/cursor_moves.h"
#include "broker/topic/non_persistent_topic.h"
#include "broker/topic/topic.h"
#include "broker/topic/topic_registry.h"
#include "io/run_on.h"
#include "mledger/metadata.h"

#include <fmt/format.h>

#include <set>
#include <tuple>

namespace magnetar::broker {

namespace {

mledger::position position_of(message_position p) {
  if (p.ledger_id == message_position::latest().ledger_id) return mledger::position::latest();
  if (p.ledger_id < 0) return mledger::position::earliest();
  return {ledger_id(p.ledger_id), entry_id(p.entry_id)};
}

}  // namespace

awaitable<result<void>> topic_registry::create_topic(wire::topic_name name) {
  MAGNETAR_CO_TRY(exists, co_await topic_exists(name));
  if (exists) co_return fail(errc::conflict, fmt::format("Topic {} already exists", name.full()));
  MAGNETAR_CO_TRY(namespace_found, co_await _deps.resources.namespace_exists(name.namespace_name()));
  if (!namespace_found) {
    co_return fail(errc::namespace_not_found, fmt::format("Namespace {} does not exist", name.namespace_name()));
  }
  MAGNETAR_CO_TRY(partitions, co_await partitions_of(name));
  if (partitions > 0) co_return fail(errc::conflict, fmt::format("{} is a partitioned topic", name.full()));
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() -> awaitable<result<void>> {
    // Created whatever allowAutoTopicCreation says: this is an explicit creation.
    MAGNETAR_CO_TRY(ledger, co_await mledger::managed_ledger::open(name.persistence_name(), ledger_config(owner),
                                                                   {_deps.store, _deps.ledgers, _deps.clock}));
    co_return co_await ledger->close();
  });
}

awaitable<result<void>> topic_registry::delete_topic(wire::topic_name name, bool force) {
  // A non-persistent topic has nothing stored: deleting it is unloading it.
  if (!name.is_persistent()) co_return co_await unload_non_persistent(std::move(name));
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(co_await t->remove(force));
    _topics[owner_of(name).id()].topics.erase(name.full());
    co_return success();
  });
}

awaitable<result<std::vector<std::string>>> topic_registry::list_topics(std::string namespace_name) {
  MAGNETAR_CO_TRY(children,
                  co_await _deps.store.children(mledger::managed_ledger_path(namespace_name + "/persistent")));
  std::set<std::string> names;
  for (const auto& local : children) names.insert(fmt::format("persistent://{}/{}", namespace_name, local));
  // Partitions of partitioned topics are topics too, used yet or not (as upstream lists them).
  MAGNETAR_CO_TRY(partitioned, co_await _deps.resources.list_partitioned(namespace_name));
  for (const auto& full : partitioned) {
    MAGNETAR_CO_TRY(name, wire::topic_name::parse(full));
    MAGNETAR_CO_TRY(count, co_await _deps.resources.partitioned_partitions(name));
    for (int i = 0; i < count; ++i) names.insert(name.partition_of(i).full());
  }
  co_return std::vector<std::string>(names.begin(), names.end());
}

awaitable<result<topic_stats>> topic_registry::stats(wire::topic_name name) {
  if (!name.is_persistent()) co_return co_await non_persistent_stats(std::move(name));
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<topic_stats>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    co_return t->stats();
  });
}

awaitable<result<topic_internal_stats>> topic_registry::internal_stats(wire::topic_name name) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<topic_internal_stats>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    co_return t->internal_stats();
  });
}

awaitable<result<std::vector<std::string>>> topic_registry::list_subscriptions(wire::topic_name name) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<std::vector<std::string>>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    std::vector<std::string> names;
    for (auto* cursor : subscription_cursors(t->ledger())) names.push_back(cursor->name());
    co_return names;
  });
}

awaitable<result<void>> topic_registry::create_subscription(wire::topic_name name, std::string subscription,
                                                            message_position start) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    // A partition of a partitioned topic exists once the partitioned topic does, used or
    // not (upstream creates partitions on demand).
    MAGNETAR_CO_TRY(t, co_await get_topic(name, name.partition() >= 0));
    co_return co_await t->create_subscription(subscription, start);
  });
}

awaitable<result<void>> topic_registry::delete_subscription(wire::topic_name name, std::string subscription,
                                                            bool force) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    co_return co_await t->delete_subscription(subscription, force);
  });
}

namespace {

// The subscription named, with a live subscription object (admin-created cursors get one).
awaitable<result<std::shared_ptr<subscription>>> subscription_of(topic& t, const std::string& name) {
  if (auto s = t.find_subscription(name)) co_return s;
  co_return fail(errc::subscription_not_found, fmt::format("Subscription {} not found", name));
}

}  // namespace

awaitable<result<void>> topic_registry::reset_cursor(wire::topic_name name, std::string subscription,
                                                     message_position to) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(s, co_await subscription_of(*t, subscription));
    co_return co_await s->reset(position_of(to));
  });
}

awaitable<result<void>> topic_registry::reset_cursor_to_time(wire::topic_name name, std::string subscription,
                                                             std::int64_t publish_time_ms) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(s, co_await subscription_of(*t, subscription));
    MAGNETAR_CO_TRY(at, co_await t->find_by_publish_time(publish_time_ms));
    co_return co_await s->reset(at);
  });
}

awaitable<result<void>> topic_registry::skip_messages(wire::topic_name name, std::string subscription,
                                                      std::uint64_t count) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(s, co_await subscription_of(*t, subscription));
    co_return co_await s->skip(count);
  });
}

awaitable<result<void>> topic_registry::clear_backlog(wire::topic_name name, std::string subscription) {
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<void>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(s, co_await subscription_of(*t, subscription));
    co_return co_await s->clear_backlog();
  });
}

awaitable<result<message_position>> topic_registry::terminate_topic(wire::topic_name name) {
  MAGNETAR_CO_TRY(partitions, co_await partitions_of(name));
  if (partitions > 0) co_return fail(errc::not_allowed, "Termination of a partitioned topic is not allowed");
  co_return co_await io::run_on(owner_of(name), [&]() -> awaitable<result<message_position>> {
    MAGNETAR_CO_TRY(t, co_await get_topic(name, false));
    MAGNETAR_CO_TRY(last, co_await t->terminate());
    co_return message_position{last.ledger().value(), last.entry().value()};
  });
}

awaitable<result<void>> topic_registry::unload_topic(wire::topic_name name) {
  if (!name.is_persistent()) co_return co_await unload_non_persistent(std::move(name));
  MAGNETAR_CO_TRY(exists, co_await topic_exists(name));
  if (!exists) co_return fail(errc::topic_not_found, fmt::format("Topic {} not found", name.full()));
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() -> awaitable<result<void>> {
    auto& loaded = _topics[owner.id()].topics;
    auto it = loaded.find(name.full());
    if (it == loaded.end()) co_return success();
    auto t = std::move(it->second);
    loaded.erase(it);
    spdlog::info("unloading {}", name.full());
    co_return co_await t->close();
  });
}

awaitable<void> topic_registry::unload_namespace(std::string namespace_name) {
  co_await unload_where([&](const wire::topic_name& name) { return name.namespace_name() == namespace_name; });
}

awaitable<void> topic_registry::unload_where(std::function<bool(const wire::topic_name&)> unload) {
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    co_await io::run_on(_deps.shards[i], [this, i, &unload]() -> awaitable<void> {
      auto& volatile_topics = _topics[i].non_persistent;
      for (auto it = volatile_topics.begin(); it != volatile_topics.end();) {
        if (!unload(it->second->name())) {
          ++it;
          continue;
        }
        it->second->close();
        it = volatile_topics.erase(it);
      }
      std::vector<std::shared_ptr<topic>> affected;
      auto& loaded = _topics[i].topics;
      for (auto it = loaded.begin(); it != loaded.end();) {
        if (!unload(it->second->name())) {
          ++it;
          continue;
        }
        affected.push_back(std::move(it->second));
        it = loaded.erase(it);
      }
      for (const auto& t : affected) {
        auto closed = co_await t->close();
        if (!closed) spdlog::warn("unloading {}: {}", t->full_name(), closed.error());
      }
    });
  }
}

awaitable<void> topic_registry::policies_changed(std::string namespace_name) {
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    co_await io::run_on(_deps.shards[i], [this, i, &namespace_name]() -> awaitable<void> {
      std::vector<std::shared_ptr<topic>> affected;
      for (const auto& [name, t] : _topics[i].topics) {
        if (t->name().namespace_name() == namespace_name) affected.push_back(t);
      }
      for (const auto& t : affected) {
        if (t->is_closing()) continue;
        auto pass = t->enter();
        if (!pass) continue;
        auto refreshed = co_await t->refresh_policies();  // logged; the topic's next refresh retries
        (void)refreshed;
      }
    });
  }
}

awaitable<std::map<std::string, topic_stats>> topic_registry::all_stats() {
  std::map<std::string, topic_stats> out;
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    auto part = co_await io::run_on(_deps.shards[i], [this, i]() {
      std::map<std::string, topic_stats> stats;
      for (const auto& [name, t] : _topics[i].topics) stats.emplace(name, t->stats());
      return stats;
    });
    out.merge(part);
  }
  co_return out;
}

awaitable<broker_metrics> topic_registry::metrics() {
  broker_metrics m;
  if (_links.connection_counts) std::tie(m.active_connections, m.total_connections) = _links.connection_counts();
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    auto part = co_await io::run_on(_deps.shards[i], [this, i]() {
      broker_metrics s;
      for (const auto& [name, t] : _topics[i].topics) {
        ++s.topics;
        s.producers += t->producer_count();
        s.consumers += t->consumer_count();
        s.subscriptions += t->subscription_count();
        const auto ml = t->ledger().stats();
        s.cache_size_bytes += ml.cache.bytes;
        s.cache_hits += ml.cache.hits;
        s.cache_misses += ml.cache.misses;
        s.cache_inserts += ml.cache.inserts;
        s.cache_evictions += ml.cache.evicted_expired + ml.cache.evicted_for_size;
      }
      return s;
    });
    m.topics += part.topics;
    m.producers += part.producers;
    m.consumers += part.consumers;
    m.subscriptions += part.subscriptions;
    m.cache_size_bytes += part.cache_size_bytes;
    m.cache_hits += part.cache_hits;
    m.cache_misses += part.cache_misses;
    m.cache_inserts += part.cache_inserts;
    m.cache_evictions += part.cache_evictions;
  }
  co_return m;
}

}  // namespace magnetar::broker
