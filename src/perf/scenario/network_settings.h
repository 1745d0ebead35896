// network_settings: the scenario's `network` section, typed: the network conditions and
// faults a run puts between the cluster's parts (docs/network-conditions.md).
//
//   network:
//     offloads: auto                  # TSO/GSO on the impaired senders: auto (off where
//                                     # loss, jitter or rate act), off, on
//     impairments:
//       wan:                          # a name of the scenario's choice; overlays compose by it
//         between: [clients, brokers] # or from: gateways / to: [broker-0, broker-1]
//         delay: 40ms
//         jitter: 5ms
//         loss: 0.5%
//       cut:
//         kind: partition             # condition (the default), partition, reset, silentDisconnect
//         from: broker-0
//         to: bookies
//         start: 20s                  # after the anchor (measurement or gateways); absent: the whole run
//         duration: 30s
//
// Plain values. Endpoints are kept as written; network_endpoints.h resolves them to nodes.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::perf {

enum class impairment_kind { condition, partition, reset, silent_disconnect };
// What an impairment's `start` counts from: the measurement's start (the gateways'
// `measurement-started` event) or the gateways' start (`gateways-started`).
enum class impairment_anchor { measurement, gateways };
enum class offload_mode { automatic, off, on };

struct impairment_settings {
  std::string name;
  impairment_kind kind = impairment_kind::condition;
  bool enabled = true;
  // `between: [A, B]` sets from = A, to = B and both_ways (each side a name or a list of
  // names); `from`/`to` act one way.
  std::vector<std::string> from;
  std::vector<std::string> to;
  bool both_ways = false;

  // A condition's settings; zero where not set.
  std::chrono::microseconds delay{0};
  std::chrono::microseconds jitter{0};
  bool reorder = false;          // jitter may reorder packets (netem's behaviour)
  double loss_percent = 0;       // of the packets of each directed pair
  double loss_burst = 0;         // mean packets per loss burst (Gilbert-Elliott); 0: independent
  std::int64_t rate_bits = 0;    // per second, per sending node
  std::int64_t queue_bytes = 0;  // the rate's queue; 0: the default (queue_default_of)

  // Absent: from before the workloads start to the end of the run.
  std::optional<std::chrono::milliseconds> start;
  impairment_anchor anchor = impairment_anchor::measurement;
  // Absent: to the end of the run (a reset has none: it happens once).
  std::optional<std::chrono::milliseconds> duration;

  bool has_condition() const { return delay.count() > 0 || jitter.count() > 0 || loss_percent > 0 || rate_bits > 0; }
  // 50 ms of traffic at the rate, at least 16 KiB: a queue a sender's TCP can fill.
  std::int64_t queue_or_default() const {
    return queue_bytes > 0 ? queue_bytes : std::max<std::int64_t>(16 * 1024, rate_bits / 8 / 20);
  }
};

struct network_settings {
  offload_mode offloads = offload_mode::automatic;
  std::vector<impairment_settings> impairments;  // in the file's order, disabled ones included

  bool any_enabled() const {
    for (const auto& i : impairments) {
      if (i.enabled) return true;
    }
    return false;
  }
};

std::string_view kind_name(impairment_kind kind);

}  // namespace magnetar::perf
