// impairment_engine: applies and removes a run's planned impairments on the cluster's
// namespaces, keeping what each did for the run's record. Each kind's method:
//
//   condition   delay/jitter: a TUN forwarder in the router (delay_path.h)
//               loss: nftables in the router (router_rules.h)
//               rate: htb + bfifo on each sender's eth0 (sender_shaping.h)
//   partition   nftables drop in the router, before any loss
//   reset       ss -K on the from side (socket_faults.h); happens once
//   silent...   nft drop of the live 4-tuples + ss -K on the from side
//
// The router's table and each sender's qdiscs are rebuilt from the set of active
// impairments on every change, so removing one can never leave another's rule behind.
// Offloads (TSO/GSO) go off on the senders of loss, jitter and rate (offloads: auto) or of
// every impairment (off) before it acts, and are restored by remove_all().
//
//   impairment_engine engine(host, "mg-1a2b-router", plan, offload_mode::automatic, on_event);
//   engine.apply(0);   // ... engine.remove(0);
//   engine.remove_all();  // at the end, also after a failure: everything restored
//
// Thread-safety: every public function may be called from any thread (one lock).
#pragma once

#include "base/result.h"
#include "perf/network/impairment_plan.h"
#include "perf/network/network_host.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace magnetar::perf {

enum class impairment_state { pending, active, ended, failed };

struct impairment_record {
  std::string name;
  impairment_kind kind = impairment_kind::condition;
  std::string method;
  impairment_state state = impairment_state::pending;
  std::optional<std::chrono::system_clock::time_point> applied_at;
  std::optional<std::chrono::system_clock::time_point> removed_at;
  std::string error;
  // Connections a reset or a silent disconnection acted on; nullopt for other kinds.
  std::optional<int> matched_connections;
  std::uint64_t dropped_packets = 0;  // by its nft rules and its rate queues
  std::uint64_t queued_packets = 0;   // through its rate queues
  std::string forwarder_stats;        // JSON, for a delayed condition
  // TCP segments each endpoint node retransmitted while it was active.
  std::map<std::string, std::int64_t> retransmissions;
};

struct network_event {
  std::chrono::system_clock::time_point at;
  std::string impairment;
  std::string action;  // applied, removed, failed, offloads-off, offloads-restored
  std::string detail;
};

class impairment_engine {
 public:
  impairment_engine(network_host& host, std::string router_namespace, std::vector<planned_impairment> plan,
                    offload_mode offloads, std::function<void(const network_event&)> on_event);
  ~impairment_engine();
  impairment_engine(const impairment_engine&) = delete;
  impairment_engine& operator=(const impairment_engine&) = delete;

  std::size_t size() const { return _plan.size(); }
  const planned_impairment& planned(std::size_t i) const { return _plan.at(i); }

  // A failure leaves the impairment failed (and whatever it did half undone).
  result<void> apply(std::size_t i);
  result<void> remove(std::size_t i);
  // Removes every active impairment and restores the offloads; what failed, if anything.
  std::vector<std::string> remove_all();

  std::vector<impairment_record> records() const;

 private:
  result<void> apply_locked(std::size_t i);
  result<void> remove_locked(std::size_t i);
  result<void> rebuild_router();
  result<void> rebuild_shaping(const network_node& sender);
  void collect_router_drops();
  void collect_queue_counts(const network_node& sender);
  result<void> offloads_off(const planned_impairment& p);
  result<int> reset_connections(const planned_impairment& p);
  result<int> forget_connections(const planned_impairment& p);
  std::vector<const planned_impairment*> active() const;
  std::map<std::string, std::int64_t> retransmissions_now(const planned_impairment& p);
  void emit(const std::string& impairment, std::string action, std::string detail);

  network_host& _host;
  std::string _router;
  std::vector<planned_impairment> _plan;
  offload_mode _offloads;
  std::function<void(const network_event&)> _on_event;
  mutable std::mutex _mutex;
  std::vector<impairment_record> _records;
  std::vector<std::map<std::string, std::int64_t>> _retransmits_at_apply;
  std::map<std::string, std::uint64_t> _router_drops_seen;                // by impairment, before the last rebuild
  std::map<std::string, std::map<int, std::uint64_t>> _queue_drops_seen;  // sender -> impairment -> drops
  // Senders whose offloads are off, with what to restore ("tso on gso on").
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> _offloads_changed;
};

// A node's TcpRetransSegs from /proc/net/snmp text; nullopt when absent.
std::optional<std::int64_t> tcp_retransmitted_segments(std::string_view snmp);

}  // namespace magnetar::perf
