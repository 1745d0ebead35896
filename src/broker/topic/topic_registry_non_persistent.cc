// topic_registry: non-persistent topics. Nothing of them is stored: one exists while it is
// loaded on its shard, created by the first producer or consumer where auto-creation
// allows, and gone when unloaded.
#include "base/log.h"
#include "broker/api/errc.h"
#include "broker/api/topic_ownership.h"
#include "broker/namespace/namespace_resources.h"
#include "broker/topic/non_persistent_topic.h"
#include "broker/topic/topic_registry.h"
#include "io/run_on.h"

#include <fmt/format.h>

namespace magnetar::broker {

awaitable<result<std::shared_ptr<non_persistent_topic>>> topic_registry::get_non_persistent_topic(wire::topic_name name,
                                                                                                  bool create) {
  auto& owner = owner_of(name);
  MAGNETAR_ASSERT(owner.is_current(), "get_non_persistent_topic({}) off its shard", name.full());
  auto& state = _topics[owner.id()];
  auto& loaded = state.non_persistent;
  if (_deps.ownership != nullptr) {
    MAGNETAR_CO_TRY(co_await _deps.ownership->check_owned(name));
  }
  if (auto it = loaded.find(name.full()); it != loaded.end()) co_return it->second;
  if (state.stopping) co_return fail(errc::service_not_ready, fmt::format("the broker is stopping ({})", name.full()));
  if (!create) co_return fail(errc::topic_not_found, fmt::format("Topic {} does not exist", name.full()));
  if (!_config.allow_auto_topic_creation) {
    co_return fail(errc::topic_not_found,
                   fmt::format("Topic {} does not exist and allowAutoTopicCreation is off", name.full()));
  }
  MAGNETAR_CO_TRY(co_await check_partition(name));
  MAGNETAR_CO_TRY(namespace_found, co_await _deps.resources.namespace_exists(name.namespace_name()));
  if (!namespace_found) {
    co_return fail(errc::namespace_not_found, fmt::format("Namespace {} does not exist", name.namespace_name()));
  }
  if (state.stopping) co_return fail(errc::service_not_ready, fmt::format("the broker is stopping ({})", name.full()));
  // Another request may have created it while this one checked.
  auto [it, fresh] = loaded.try_emplace(name.full());
  if (fresh) {
    it->second = std::make_shared<non_persistent_topic>(name, owner, _config, _deps.clock);
    spdlog::info("loaded non-persistent topic {}", name.full());
  }
  co_return it->second;
}

awaitable<std::vector<std::string>> topic_registry::list_non_persistent_topics(std::string namespace_name) {
  std::vector<std::string> out;
  for (unsigned i = 0; i < _deps.shards.size(); ++i) {
    co_await io::run_on(_deps.shards[i], [this, i, &namespace_name, &out] {
      for (const auto& [name, t] : _topics[i].non_persistent) {
        if (t->name().namespace_name() == namespace_name && t->is_active()) out.push_back(name);
      }
    });
  }
  co_return out;
}

awaitable<result<topic_stats>> topic_registry::non_persistent_stats(wire::topic_name name) {
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() -> result<topic_stats> {
    auto& loaded = _topics[owner.id()].non_persistent;
    auto it = loaded.find(name.full());
    if (it == loaded.end()) return fail(errc::topic_not_found, fmt::format("Topic {} not found", name.full()));
    return it->second->stats();
  });
}

awaitable<result<void>> topic_registry::unload_non_persistent(wire::topic_name name) {
  auto& owner = owner_of(name);
  co_return co_await io::run_on(owner, [&]() -> result<void> {
    auto& loaded = _topics[owner.id()].non_persistent;
    auto it = loaded.find(name.full());
    // Nothing of it is stored: one that is not loaded is unloaded already.
    if (it == loaded.end()) return success();
    it->second->close();
    loaded.erase(it);
    return success();
  });
}

}  // namespace magnetar::broker
