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

// Upstream's advertisedListeners map: {"<name>": {"brokerServiceUrl": ..., "brokerServiceUrlTls": ...}}.
json listeners_json(const std::vector<advertised_listener>& listeners) {
  json out = json::object();
  for (const auto& l : listeners) {
    json entry = json::object();
    if (!l.broker_url.empty()) entry["brokerServiceUrl"] = l.broker_url;
    if (!l.broker_url_tls.empty()) entry["brokerServiceUrlTls"] = l.broker_url_tls;
    out[l.name] = std::move(entry);
  }
  return out;
}

std::vector<advertised_listener> listeners_of(const json& data) {
  std::vector<advertised_listener> out;
  const auto found = data.find("advertisedListeners");
  if (found == data.end() || !found->is_object()) return out;
  for (const auto& [name, entry] : found->items()) {
    if (!entry.is_object()) continue;
    out.push_back({.name = name,
                   .broker_url = entry.value("brokerServiceUrl", ""),
                   .broker_url_tls = entry.value("brokerServiceUrlTls", ""),
                   .http_url = {},
                   .https_url = {}});
  }
  return out;
}

// Among the brokers within 10% (or 100 msg/s) of the least loaded, the one rendezvous
// hashing ranks first for the bundle: bundles spread evenly while the load is even,
// and a loaded broker gets none of them.
std::vector<registered_broker>::const_iterator place(const std::vector<registered_broker>& brokers,
                                                     const std::string& bundle_key) {
  double least = message_rate(brokers.front().load);
  for (const auto& b : brokers) least = std::min(least, message_rate(b.load));
  const double ceiling = std::max(least * 1.1, least + 100);
  auto chosen = brokers.end();
  for (auto it = brokers.begin(); it != brokers.end(); ++it) {
    if (message_rate(it->load) > ceiling) continue;
    if (chosen == brokers.end() || weight(it->id, bundle_key) > weight(chosen->id, bundle_key)) chosen = it;
  }
  return chosen;
}

}  // namespace

double message_rate(const json& load) { return load.value("msgRateIn", 0.0) + load.value("msgRateOut", 0.0); }

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
  const auto path = registration_path();
  // This broker's previous process (same address and port, so it is gone) may have
  // left its node until that session times out: replace it.
  (void)co_await _store.remove(path, std::nullopt);
  MAGNETAR_CO_TRY(created, co_await _store.put(path, registration_data().dump(), -1, {.ephemeral = session}));
  {
    std::lock_guard lock(_mutex);
    _registration_version = created.version;
  }
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

std::string bundle_ownership::registration_path() const { return fmt::format("{}/{}", brokers_root, _self.id); }

// Upstream's LocalBrokerData: the service URLs, and the load of the last report.
json bundle_ownership::registration_data() const {
  json data = _load;
  data["webServiceUrl"] = _self.http_url;
  data["webServiceUrlTls"] = _self.http_url_tls;
  data["pulsarServiceUrl"] = _self.broker_url;
  data["pulsarServiceUrlTls"] = _self.broker_url_tls;
  data["persistentTopicsEnabled"] = true;
  data["nonPersistentTopicsEnabled"] = true;
  data["loadReportType"] = "LocalBrokerData";
  data["advertisedListeners"] = listeners_json(_self.listeners);
  data["lastUpdate"] = base::system_clock().wall_now().time_since_epoch() / std::chrono::milliseconds(1);
  return data;
}

awaitable<result<void>> bundle_ownership::report_load(json load) {
  std::int64_t version = -1;
  {
    std::lock_guard lock(_mutex);
    _load = std::move(load);
    if (!_session || _registration_version < 0) co_return success();
    version = _registration_version;
  }
  // At the version this session wrote: a node that has gone with its session is not
  // brought back as a persistent one.
  auto written = co_await _store.put(registration_path(), registration_data().dump(), version);
  if (!written) co_return store_error(written.error());
  std::lock_guard lock(_mutex);
  _registration_version = written.value().version;
  co_return success();
}

std::optional<meta::session_id> bundle_ownership::session() const {
  std::lock_guard lock(_mutex);
  return _session;
}

bool bundle_ownership::owns(const wire::topic_name& topic) const { return owned_bundle_of(topic).has_value(); }

std::optional<std::string> bundle_ownership::owned_bundle_of(const wire::topic_name& topic) const {
  const auto hash = topic_hash(topic.full());
  const auto ns = topic.namespace_name();
  std::lock_guard lock(_mutex);
  for (const auto& [key, owned] : _owned) {
    if (owned.namespace_name == ns && contains(owned.range, hash)) return key;
  }
  return std::nullopt;
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
  MAGNETAR_CO_TRY(bundles, co_await bundles_of(ns));
  const auto range = bundle_for(bundles, topic_hash(topic.full()));
  const auto key = fmt::format("{}/{}", ns, range.name());
  const auto path = ownership_path(key);

  MAGNETAR_CO_TRY(owner, co_await owner_at(path, key));
  if (!owner.empty()) co_return owner;

  MAGNETAR_CO_TRY(brokers, co_await registered_brokers());
  if (brokers.empty()) {
    co_return fail(errc::service_not_ready, fmt::format("No broker was available to own {}", topic.full()));
  }
  const auto chosen = place(brokers, key);
  if (authoritative || chosen->id == _self.id) co_return co_await acquire(path, ns, range);
  co_return lookup_target{.broker_url = chosen->broker_url,
                          .http_url = chosen->http_url,
                          .redirect = true,
                          .authoritative = true,
                          .listeners = chosen->listeners,
                          .broker_url_tls = chosen->broker_url_tls,
                          .http_url_tls = chosen->http_url_tls};
}

awaitable<result<std::vector<bundle_range>>> bundle_ownership::bundles_of(std::string namespace_name) {
  // Bundles split by an admin live in the local policies, as upstream's.
  auto local = co_await _store.get(local_policies_path(namespace_name));
  if (!local) co_return store_error(local.error());
  if (local.value()) {
    const auto policies = json::parse(local.value()->value, nullptr, false);
    if (policies.is_object() && policies.contains("bundles")) co_return bundles_of_policies(policies);
  }
  MAGNETAR_CO_TRY(global, co_await _resources.get_policies(namespace_name));
  co_return bundles_of_policies(global);
}

awaitable<result<lookup_target>> bundle_ownership::owner_of(std::string namespace_name, bundle_range range) {
  const auto key = fmt::format("{}/{}", namespace_name, range.name());
  co_return co_await owner_at(ownership_path(key), key);
}

// The owner the node names; an empty target when nobody owns the bundle.
awaitable<result<lookup_target>> bundle_ownership::owner_at(const std::string& path, const std::string& bundle_key) {
  auto node = co_await _store.get(path);
  if (!node) co_return store_error(node.error());
  if (!node.value()) co_return lookup_target{};
  const auto data = json::parse(node.value()->value, nullptr, false);
  if (!data.is_object()) co_return fail(errc::metadata_error, fmt::format("{}: not a JSON object", path));
  if (data.value("disabled", false)) {
    co_return fail(errc::service_not_ready, fmt::format("Namespace bundle {} is being unloaded", bundle_key));
  }
  lookup_target owner{.broker_url = data.value("nativeUrl", ""),
                      .http_url = data.value("httpUrl", ""),
                      .redirect = false,
                      .authoritative = true,
                      .listeners = listeners_of(data),
                      .broker_url_tls = data.value("nativeUrlTls", ""),
                      .http_url_tls = data.value("httpUrlTls", "")};
  bool stale = false;
  if (owner.broker_url == _self.broker_url && owner.broker_url_tls == _self.broker_url_tls) {
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
    MAGNETAR_CO_TRY(winner, co_await owner_at(path, key));
    if (winner.empty()) co_return fail(errc::service_not_ready, fmt::format("{} changed hands", key));
    co_return winner;
  }
  {
    std::lock_guard lock(_mutex);
    _owned[key] = owned_bundle{namespace_name, range, created.value().version};
  }
  // Boundaries read before a split of the whole: give the range up again.
  auto bundles = co_await bundles_of(namespace_name);
  if (!bundles || std::find(bundles.value().begin(), bundles.value().end(), range) == bundles.value().end()) {
    {
      std::lock_guard lock(_mutex);
      _owned.erase(key);
    }
    (void)co_await _store.remove(path, created.value().version);
    co_return fail(errc::service_not_ready, fmt::format("Namespace bundle {} was split; redo the lookup", key));
  }
  spdlog::info("broker {} owns bundle {}", _self.id, key);
  co_return lookup_target{.broker_url = _self.broker_url,
                          .http_url = _self.http_url,
                          .redirect = false,
                          .authoritative = true,
                          .listeners = _self.listeners,
                          .broker_url_tls = _self.broker_url_tls,
                          .http_url_tls = _self.http_url_tls};
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

awaitable<result<void>> bundle_ownership::split(std::string namespace_name, bundle_range range) {
  const auto key = fmt::format("{}/{}", namespace_name, range.name());
  std::optional<meta::session_id> session;
  std::int64_t whole_version = 0;
  {
    std::lock_guard lock(_mutex);
    const auto owned = _owned.find(key);
    if (owned == _owned.end() || !_session) {
      co_return fail(errc::service_not_ready, fmt::format("Namespace bundle {} is not owned by {}", key, _self.id));
    }
    session = _session;
    whole_version = owned->second.version;
  }
  MAGNETAR_CO_TRY(halves, split_in_half(range));
  // The halves first: from here this broker owns both (and still the whole).
  std::vector<std::pair<std::string, std::int64_t>> created;
  const auto undo = [&]() -> awaitable<void> {
    for (const auto& [half_key, version] : created) {
      {
        std::lock_guard lock(_mutex);
        _owned.erase(half_key);
      }
      (void)co_await _store.remove(ownership_path(half_key), version);
    }
  };
  for (const auto& half : {halves.first, halves.second}) {
    const auto half_key = fmt::format("{}/{}", namespace_name, half.name());
    auto node = co_await _store.put(ownership_path(half_key), owner_data(false), -1, {.ephemeral = *session});
    if (!node) {
      co_await undo();
      co_return store_error(node.error());
    }
    created.emplace_back(half_key, node.value().version);
    std::lock_guard lock(_mutex);
    _owned[half_key] = owned_bundle{namespace_name, half, node.value().version};
  }
  // Then the boundaries, compare-and-set against a concurrent split of another bundle.
  const auto path = local_policies_path(namespace_name);
  auto local = co_await _store.get(path);
  auto bundles = co_await bundles_of(namespace_name);
  if (!local || !bundles) {
    co_await undo();
    if (!local) co_return store_error(local.error());
    co_return fail(std::move(bundles).error());
  }
  json policies = local.value() ? json::parse(local.value()->value, nullptr, false) : json::object();
  if (!policies.is_object()) policies = json::object();
  std::vector<bundle_range> next;
  for (const auto& b : bundles.value()) {
    if (b == range) {
      next.push_back(halves.first);
      next.push_back(halves.second);
    } else {
      next.push_back(b);
    }
  }
  policies["bundles"] = bundles_json(next);
  const std::int64_t expected = local.value() ? local.value()->st.version : -1;
  if (auto written = co_await _store.put(path, policies.dump(), expected); !written) {
    co_await undo();
    co_return store_error(written.error());
  }
  {
    std::lock_guard lock(_mutex);
    _owned.erase(key);
  }
  (void)co_await _store.remove(ownership_path(key), whole_version);
  spdlog::info("broker {} split bundle {} into {} and {}", _self.id, key, halves.first.name(), halves.second.name());
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
    out.push_back({id, data.value("pulsarServiceUrl", ""), data.value("webServiceUrl", ""), listeners_of(data), data,
                   data.value("pulsarServiceUrlTls", ""), data.value("webServiceUrlTls", "")});
  }
  co_return out;
}

std::string bundle_ownership::owner_data(bool disabled) const {
  return json{{"nativeUrl", _self.broker_url}, {"nativeUrlTls", _self.broker_url_tls},
              {"httpUrl", _self.http_url},     {"httpUrlTls", _self.http_url_tls},
              {"disabled", disabled},          {"advertisedListeners", listeners_json(_self.listeners)}}
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
