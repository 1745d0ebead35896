#include "broker/cluster/bundle_ownership.h"

#include "base/clock.h"
#include "broker/api/errc.h"
#include "broker/namespace/namespace_resources.h"
#include "io/run_on.h"
#include "meta/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <boost/crc.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

namespace magnetar::broker::cluster {
namespace {

using nlohmann::json;

constexpr std::string_view brokers_root = "/loadbalance/brokers";

std::string ownership_path(const std::string& bundle_key) { return "/namespace/" + bundle_key; }
std::string local_policies_path(const std::string& namespace_name) { return "/admin/local-policies/" + namespace_name; }

auto store_error(const error& e) { return fail(errc::metadata_error, fmt::format("metadata store: {}", e.message())); }

bool contains(const bundle_range& b, std::uint32_t hash) {
  return hash >= b.lower && (hash < b.upper || (b.upper == 0xffffffff && hash == b.upper));
}

// Rendezvous hashing: every broker ranks the same way, and a broker that leaves
// moves only its own bundles.
std::uint32_t weight(const std::string& broker_id, const std::string& bundle_key) {
  boost::crc_32_type crc;
  crc.process_bytes(broker_id.data(), broker_id.size());
  crc.process_byte('|');
  crc.process_bytes(bundle_key.data(), bundle_key.size());
  return crc.checksum();
}

}  // namespace

bundle_ownership::bundle_ownership(meta::store& store, namespace_resources& resources, asio::any_io_executor executor,
                                   std::chrono::milliseconds session_timeout,
                                   std::function<awaitable<void>()> unload_unowned)
    : _store(store),
      _resources(resources),
      _executor(std::move(executor)),
      _session_timeout(session_timeout),
      _unload_unowned(std::move(unload_unowned)) {}

bundle_ownership::~bundle_ownership() = default;

awaitable<result<void>> bundle_ownership::start(broker_identity self) {
  _self = std::move(self);
  _session_listener =
      _store.register_session_listener(_executor, [this](const meta::session_event& e) { on_session_event(e); });
  co_return co_await join();
}

awaitable<result<void>> bundle_ownership::join() {
  std::optional<meta::session_id> previous;
  {
    std::lock_guard lock(_mutex);
    previous = std::exchange(_session, std::nullopt);
  }
  // Gone already when it expired; otherwise its nodes go with it now.
  if (previous) (void)co_await _store.close_session(*previous);
  MAGNETAR_CO_TRY(session, co_await _store.open_session());
  {
    std::lock_guard lock(_mutex);
    _session = session;
  }
  const auto path = fmt::format("{}/{}", brokers_root, _self.id);
  const json data{{"webServiceUrl", _self.http_url},
                  {"pulsarServiceUrl", _self.broker_url},
                  {"persistentTopicsEnabled", true},
                  {"nonPersistentTopicsEnabled", true},
                  {"loadReportType", "LocalBrokerData"},
                  {"lastUpdate", base::system_clock().wall_now().time_since_epoch() / std::chrono::milliseconds(1)}};
  // This broker's previous process (same address and port, so it is gone) may have
  // left its node until that session times out: replace it.
  (void)co_await _store.remove(path, std::nullopt);
  MAGNETAR_CO_TRY(co_await _store.put(path, data.dump(), -1, {.ephemeral = session}));
  spdlog::info("broker {} joined the cluster at {}", _self.id, path);
  co_return success();
}

awaitable<void> bundle_ownership::stop() {
  std::set<std::string> namespaces;
  {
    std::lock_guard lock(_mutex);
    _stopping = true;
    for (const auto& [key, owned] : _owned) namespaces.insert(owned.namespace_name);
  }
  for (const auto& ns : namespaces) {
    if (auto released = co_await release(ns); !released) {
      spdlog::warn("broker {}: releasing {}: {}", _self.id, ns, released.error());
    }
  }
  std::optional<meta::session_id> session;
  {
    std::lock_guard lock(_mutex);
    session = _session;
    _session.reset();
  }
  if (session) (void)co_await _store.close_session(*session);
  _session_listener = {};
}

bool bundle_ownership::owns(const wire::topic_name& topic) const {
  const auto hash = topic_hash(topic.full());
  const auto ns = topic.namespace_name();
  std::lock_guard lock(_mutex);
  return std::any_of(_owned.begin(), _owned.end(), [&](const auto& entry) {
    return entry.second.namespace_name == ns && contains(entry.second.range, hash);
  });
}

std::vector<std::string> bundle_ownership::owned_bundles() const {
  std::lock_guard lock(_mutex);
  std::vector<std::string> out;
  for (const auto& [key, owned] : _owned) out.push_back(key);
  return out;
}

awaitable<result<void>> bundle_ownership::check_owned(wire::topic_name topic) {
  if (owns(topic)) co_return success();
  co_return fail(errc::service_not_ready,
                 fmt::format("Namespace bundle for topic ({}) not served by this instance:{}. Please redo the lookup. "
                             "Request is denied: namespace={}",
                             topic.full(), _self.id, topic.namespace_name()));
}

awaitable<result<lookup_target>> bundle_ownership::lookup(wire::topic_name topic, bool authoritative) {
  const auto ns = topic.namespace_name();
  // Bundles split by an admin live in the local policies, as upstream's.
  json policies;
  auto local = co_await _store.get(local_policies_path(ns));
  if (!local) co_return store_error(local.error());
  if (local.value()) {
    policies = json::parse(local.value()->value, nullptr, false);
  } else {
    MAGNETAR_CO_TRY(global, co_await _resources.get_policies(ns));
    policies = std::move(global);
  }
  MAGNETAR_CO_TRY(bundles, bundles_of_policies(policies));
  const auto range = bundle_for(bundles, topic_hash(topic.full()));
  const auto key = fmt::format("{}/{}", ns, range.name());
  const auto path = ownership_path(key);

  MAGNETAR_CO_TRY(owner, co_await owner_of(path, key));
  if (!owner.broker_url.empty()) co_return owner;

  MAGNETAR_CO_TRY(brokers, co_await registered_brokers());
  if (brokers.empty()) {
    co_return fail(errc::service_not_ready, fmt::format("No broker was available to own {}", topic.full()));
  }
  const auto chosen = std::max_element(brokers.begin(), brokers.end(), [&](const auto& a, const auto& b) {
    return weight(a.id, key) < weight(b.id, key);
  });
  if (authoritative || chosen->id == _self.id) co_return co_await acquire(path, ns, range);
  co_return lookup_target{
      .broker_url = chosen->broker_url, .http_url = chosen->http_url, .redirect = true, .authoritative = true};
}

// The owner the node names; an empty target when nobody owns the bundle.
awaitable<result<lookup_target>> bundle_ownership::owner_of(const std::string& path, const std::string& bundle_key) {
  auto node = co_await _store.get(path);
  if (!node) co_return store_error(node.error());
  if (!node.value()) co_return lookup_target{};
  const auto data = json::parse(node.value()->value, nullptr, false);
  if (!data.is_object()) co_return fail(errc::metadata_error, fmt::format("{}: not a JSON object", path));
  if (data.value("disabled", false)) {
    co_return fail(errc::service_not_ready, fmt::format("Namespace bundle {} is being unloaded", bundle_key));
  }
  lookup_target owner{.broker_url = data.value("nativeUrl", ""), .http_url = data.value("httpUrl", "")};
  bool stale = false;
  if (owner.broker_url == _self.broker_url) {
    std::lock_guard lock(_mutex);
    stale = !_owned.count(bundle_key);
  }
  if (stale) {
    // Ours by address but not by this process: a node of this broker's previous
    // life (a session not yet timed out, or one this process gave up). Take it back.
    auto removed = co_await _store.remove(path, node.value()->st.version);
    (void)removed;
    co_return lookup_target{};
  }
  co_return owner;
}

awaitable<result<lookup_target>> bundle_ownership::acquire(const std::string& path, const std::string& namespace_name,
                                                           bundle_range range) {
  std::optional<meta::session_id> session;
  {
    std::lock_guard lock(_mutex);
    if (_stopping) co_return fail(errc::service_not_ready, fmt::format("broker {} is stopping", _self.id));
    session = _session;
  }
  if (!session) co_return fail(errc::service_not_ready, fmt::format("broker {} has no metadata session", _self.id));
  const auto key = fmt::format("{}/{}", namespace_name, range.name());
  auto created = co_await _store.put(path, owner_data(false), -1, {.ephemeral = *session});
  if (!created) {
    if (created.error() != meta::errc::bad_version) co_return store_error(created.error());
    // Another broker was quicker: it owns the bundle.
    MAGNETAR_CO_TRY(winner, co_await owner_of(path, key));
    if (winner.broker_url.empty()) co_return fail(errc::service_not_ready, fmt::format("{} changed hands", key));
    co_return winner;
  }
  {
    std::lock_guard lock(_mutex);
    _owned[key] = owned_bundle{namespace_name, range, created.value().version};
  }
  spdlog::info("broker {} owns bundle {}", _self.id, key);
  co_return lookup_target{.broker_url = _self.broker_url, .http_url = _self.http_url};
}

awaitable<result<void>> bundle_ownership::release(std::string namespace_name, std::optional<bundle_range> only) {
  std::vector<std::pair<std::string, owned_bundle>> releasing;
  {
    std::lock_guard lock(_mutex);
    for (const auto& [key, owned] : _owned) {
      if (owned.namespace_name == namespace_name && (!only || owned.range == *only)) releasing.emplace_back(key, owned);
    }
  }
  // Disabled first: lookups answer "being unloaded" (clients retry) while the topics close.
  for (auto& [key, owned] : releasing) {
    auto disabled = co_await _store.put(ownership_path(key), owner_data(true), owned.version);
    if (disabled) owned.version = disabled.value().version;
  }
  {
    std::lock_guard lock(_mutex);
    for (const auto& [key, owned] : releasing) _owned.erase(key);
  }
  co_await _unload_unowned();
  for (const auto& [key, owned] : releasing) {
    auto removed = co_await _store.remove(ownership_path(key), owned.version);
    if (!removed && removed.error() != meta::errc::not_found) co_return store_error(removed.error());
    spdlog::info("broker {} released bundle {}", _self.id, key);
  }
  co_return success();
}

awaitable<result<std::vector<registered_broker>>> bundle_ownership::registered_brokers() {
  auto ids = co_await _store.children(std::string(brokers_root));
  if (!ids) co_return store_error(ids.error());
  std::vector<registered_broker> out;
  for (const auto& id : ids.value()) {
    auto node = co_await _store.get(fmt::format("{}/{}", brokers_root, id));
    if (!node) co_return store_error(node.error());
    if (!node.value()) continue;  // left meanwhile
    const auto data = json::parse(node.value()->value, nullptr, false);
    if (!data.is_object()) continue;
    out.push_back({id, data.value("pulsarServiceUrl", ""), data.value("webServiceUrl", "")});
  }
  co_return out;
}

std::string bundle_ownership::owner_data(bool disabled) const {
  return json{{"nativeUrl", _self.broker_url},
              {"httpUrl", _self.http_url},
              {"disabled", disabled},
              {"advertisedListeners", json::object()}}
      .dump();
}

void bundle_ownership::drop_everything(const char* why) {
  {
    std::lock_guard lock(_mutex);
    if (_owned.empty()) return;
    spdlog::warn("broker {}: {}; it stops serving its {} bundles", _self.id, why, _owned.size());
    _owned.clear();
  }
  io::spawn(_executor, [this, alive = std::weak_ptr<int>(_alive)]() -> awaitable<void> {
    if (!alive.expired()) co_await _unload_unowned();
  });
}

void bundle_ownership::on_session_event(meta::session_event e) {
  {
    std::lock_guard lock(_mutex);
    if (_stopping) return;
  }
  switch (e) {
    case meta::session_event::connection_lost: {
      // The store may expire the session once the timeout passes without us; by then
      // another broker may own our bundles, so stop serving them before it can.
      const auto generation = ++_disconnections;
      io::spawn(_executor, [this, generation, alive = std::weak_ptr<int>(_alive)]() -> awaitable<void> {
        asio::steady_timer timer(_executor, _session_timeout);
        co_await timer.async_wait(asio::use_awaitable);
        if (alive.expired() || generation != _disconnections) co_return;
        drop_everything("the metadata store is unreachable past the session timeout");
      });
      break;
    }
    case meta::session_event::reconnected:
      ++_disconnections;  // the pending timer's generation is stale now
      break;
    case meta::session_event::session_lost:
      ++_disconnections;
      drop_everything("its metadata store session expired");
      io::spawn(_executor, [this, alive = std::weak_ptr<int>(_alive)]() -> awaitable<void> {
        if (alive.expired()) co_return;
        if (auto joined = co_await join(); !joined) {
          spdlog::error("broker {}: joining the cluster again failed: {}", _self.id, joined.error());
        }
      });
      break;
    case meta::session_event::session_reestablished: break;
  }
}

}  // namespace magnetar::broker::cluster
