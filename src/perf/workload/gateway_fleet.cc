#include "perf/workload/gateway_fleet.h"

#include <fmt/format.h>

#include <condition_variable>
#include <mutex>

namespace magnetar::perf {

gateway_fleet::gateway_fleet(const iot_telemetry_settings& settings, std::string service_url)
    : _settings(settings), _service_url(std::move(service_url)) {}

gateway_fleet::~gateway_fleet() { close(); }

std::string gateway_fleet::producer_name(int gateway, int topic) {
  return fmt::format("iot-gateway-{}-topic-{}", gateway, topic);
}

producer_config gateway_fleet::config_for(int gateway, int topic) const {
  producer_config config;
  config.producer_name = producer_name(gateway, topic);
  config.batching_enabled = _settings.gateways.producer.batching_enabled;
  config.batching = batching_type::key_based;
  config.batching_max_delay = std::chrono::milliseconds(1);
  // The fleet bounds what is in flight across every producer (maxOutstanding); a
  // producer's own queue must never be the tighter bound, or a send would fail.
  config.max_pending_messages = static_cast<std::size_t>(_settings.gateways.producer.max_outstanding) + 1;
  return config;
}

result<void> gateway_fleet::open() {
  const int gateways = _settings.gateways.count;
  const int topics = _settings.topics.count;
  // One client per gateway, as isolated gateways would have, on io threads they share
  // (gateways.producer.ioThreads), as upstream's framework shares its clients' resources.
  client_config config;
  config.shared_resources = client_resources::create(static_cast<unsigned>(_settings.gateways.producer.io_threads));
  for (int g = 0; g < gateways; ++g) {
    auto c = client::create(_service_url, config);
    if (!c) return fail(c.error().code(), fmt::format("gateway {}: {}", g, c.error()));
    _clients.push_back(std::move(c).value());
  }
  _producers.resize(static_cast<std::size_t>(gateways) * topics);
  _open.assign(_producers.size(), false);
  if (_settings.gateways.producer.precreate) return precreate();
  return success();
}

result<void> gateway_fleet::precreate() {
  std::mutex mutex;
  std::condition_variable done;
  std::size_t remaining = _producers.size();
  std::optional<error> first_error;
  for (int g = 0; g < _settings.gateways.count; ++g) {
    for (int t = 0; t < _settings.topics.count; ++t) {
      const std::size_t slot = static_cast<std::size_t>(g) * _settings.topics.count + t;
      _clients[g].create_producer_async(_settings.topic(t), config_for(g, t), [&, slot](result<producer> p) {
        std::lock_guard lock(mutex);
        if (p) {
          _producers[slot] = std::move(p).value();
          _open[slot] = true;
        } else if (!first_error) {
          first_error = p.error();
        }
        if (--remaining == 0) done.notify_one();
      });
    }
  }
  std::unique_lock lock(mutex);
  done.wait(lock, [&] { return remaining == 0; });
  if (first_error) return fail(first_error->code(), fmt::format("creating the gateways' producers: {}", *first_error));
  return success();
}

result<producer*> gateway_fleet::producer_for(int gateway, int topic) {
  const std::size_t slot = static_cast<std::size_t>(gateway) * _settings.topics.count + topic;
  if (!_open[slot]) {
    auto p = _clients[gateway].create_producer(_settings.topic(topic), config_for(gateway, topic));
    if (!p) return fail(p.error().code(), fmt::format("producer {}: {}", producer_name(gateway, topic), p.error()));
    _producers[slot] = std::move(p).value();
    _open[slot] = true;
  }
  return &_producers[slot];
}

void gateway_fleet::close() {
  for (std::size_t i = 0; i < _producers.size(); ++i) {
    if (_open[i]) (void)_producers[i].close();
  }
  _producers.clear();
  _open.clear();
  for (auto& c : _clients) (void)c.close();
  _clients.clear();
}

}  // namespace magnetar::perf
