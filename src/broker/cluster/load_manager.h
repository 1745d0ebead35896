// load_manager: a cluster broker's share of load balancing, as upstream's modular load
// manager with its ThresholdShedder, on message rates.
//
// Every report interval each broker
//   - writes its load into its registration node (/loadbalance/brokers/<id>, upstream's
//     LocalBrokerData): msgRateIn, msgRateOut, cpu, its bundles and each bundle's rates
//     (lastStats), which placement (bundle_ownership) reads to keep new bundles off
//     loaded brokers;
//   - takes the leadership (/loadbalance/leader, ephemeral, upstream's LeaderBroker)
//     when nobody holds it.
// The leader, every shedding interval, smooths each broker's message rate over its
// history (rate = h * previous + (1 - h) * now, h = loadBalancerHistoryResourcePercentage,
// so one burst moves nothing), and for a broker above the brokers' mean by more than
// loadBalancerBrokerThresholdShedderPercentage (and by 100 msg/s at least, so that idle
// clusters stay put) unloads one of its bundles: the busiest one whose rate is at most
// the excess (moving more would make the receiver the busy one), never one moved within
// the grace period, never a broker's last bundle. The unloaded bundle's next lookup
// places it on a broker that isn't loaded.
//
// Message rates, not CPU, decide: brokers that share a machine (every test here, and
// the framework's clusters) share its CPU, so a CPU figure can't tell them apart.
//
// Threading: start(), stop() and the loop on the executor given.
#pragma once

#include "broker/api/topic_admin.h"
#include "broker/cluster/bundle_ownership.h"
#include "io/gate.h"
#include "io/timer.h"
#include "meta/store.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>

namespace magnetar::broker::cluster {

struct load_settings {
  bool shedding_enabled = true;
  std::chrono::milliseconds report_interval{5000};
  std::chrono::milliseconds shedding_interval{60'000};
  std::chrono::milliseconds grace_period{30 * 60'000};
  double threshold_percentage = 10;
  double history_percentage = 0.9;
};

// The leader's node, as upstream: {"brokerId": ..., "serviceUrl": "http://..."}.
inline constexpr std::string_view leader_path = "/loadbalance/leader";

class load_manager {
 public:
  // Unloads a bundle wherever it is owned (cluster_control::unload_bundle).
  using unloader = std::function<awaitable<result<void>>(std::string namespace_name, std::string bundle)>;

  load_manager(meta::store& store, bundle_ownership& ownership, topic_admin& topics, unloader unload,
               asio::any_io_executor executor, load_settings settings);
  ~load_manager();

  // Spawns the loop on the executor (from any thread).
  void start();
  awaitable<void> stop();

 private:
  // This broker's load now, as it reports it.
  awaitable<nlohmann::json> measure();
  // Holds its pass until stop() ends it.
  awaitable<void> run(io::gate::pass pass);
  awaitable<void> elect();
  awaitable<void> shed();

  meta::store& _store;
  bundle_ownership& _ownership;
  topic_admin& _topics;
  unloader _unload;
  asio::any_io_executor _executor;
  const load_settings _settings;
  io::timer _timer;
  io::gate _gate{"load manager"};
  bool _stopping = false;

  bool _leader = false;
  std::chrono::steady_clock::time_point _next_shedding;
  std::map<std::string, double> _smoothed;                              // by broker id
  std::map<std::string, std::chrono::steady_clock::time_point> _moved;  // bundle key -> when
  // CPU time and wall time at the last measure(), for the cpu usage.
  double _last_cpu_seconds = -1;
  std::chrono::steady_clock::time_point _last_measure;
};

}  // namespace magnetar::broker::cluster
