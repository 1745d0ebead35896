#include "perf/network/impairment_engine.h"

#include "perf/network/delay_path.h"
#include "perf/network/router_rules.h"
#include "perf/network/sender_shaping.h"
#include "perf/network/socket_faults.h"

#include <fmt/format.h>

#include <sstream>

namespace magnetar::perf {
namespace {

using std::chrono::system_clock;

bool delayed(const impairment_settings& s) { return s.delay.count() > 0 || s.jitter.count() > 0; }

// Whether a sender's offloads go off for this impairment.
bool wants_offloads_off(const impairment_settings& s, offload_mode mode) {
  if (mode == offload_mode::on) return false;
  if (mode == offload_mode::off) return true;
  return s.kind == impairment_kind::condition && (s.loss_percent > 0 || s.jitter.count() > 0 || s.rate_bits > 0);
}

std::string silent_table(const planned_impairment& p) { return fmt::format("magnetar_silent{}", p.index); }

// "tcp-segmentation-offload: on" in `ethtool -k` output -> "on".
std::string feature_state(std::string_view ethtool_k, std::string_view feature) {
  const auto at = ethtool_k.find(fmt::format("{}: ", feature));
  if (at == std::string_view::npos) return {};
  const auto value = ethtool_k.substr(at + feature.size() + 2, 3);
  return value.starts_with("on") ? "on" : "off";
}

}  // namespace

std::optional<std::int64_t> tcp_retransmitted_segments(std::string_view snmp) {
  std::istringstream lines{std::string(snmp)};
  std::vector<std::string> header;
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("Tcp:")) continue;
    std::istringstream words(line.substr(4));
    std::vector<std::string> fields;
    for (std::string w; words >> w;) fields.push_back(w);
    if (header.empty()) {
      header = std::move(fields);
      continue;
    }
    for (std::size_t i = 0; i < header.size() && i < fields.size(); ++i) {
      if (header[i] == "RetransSegs") return std::stoll(fields[i]);
    }
    return std::nullopt;
  }
  return std::nullopt;
}

impairment_engine::impairment_engine(network_host& host, std::string router_namespace,
                                     std::vector<planned_impairment> plan, offload_mode offloads,
                                     std::function<void(const network_event&)> on_event)
    : _host(host),
      _router(std::move(router_namespace)),
      _plan(std::move(plan)),
      _offloads(offloads),
      _on_event(std::move(on_event)),
      _retransmits_at_apply(_plan.size()) {
  for (const auto& p : _plan) {
    _records.push_back({.name = p.settings.name, .kind = p.settings.kind, .method = p.method()});
  }
}

impairment_engine::~impairment_engine() { remove_all(); }

void impairment_engine::emit(const std::string& impairment, std::string action, std::string detail) {
  if (_on_event) _on_event({system_clock::now(), impairment, std::move(action), std::move(detail)});
}

std::vector<const planned_impairment*> impairment_engine::active() const {
  std::vector<const planned_impairment*> out;
  for (std::size_t i = 0; i < _plan.size(); ++i) {
    if (_records[i].state == impairment_state::active) out.push_back(&_plan[i]);
  }
  return out;
}

void impairment_engine::collect_router_drops() {
  auto listed = _host.run(_router, {"nft", "-j", "list", "table", "ip", std::string(router_table)});
  if (!listed) return;  // no table yet
  for (const auto& [name, drops] : router_drops(listed.value())) {
    for (auto& record : _records) {
      if (record.name == name) record.dropped_packets += drops;
    }
  }
}

result<void> impairment_engine::rebuild_router() {
  // The rebuild zeroes the counters: what they counted goes to the records first.
  collect_router_drops();
  MAGNETAR_TRY(_host.run_script(_router, {"nft", "-f"}, router_ruleset(active())));
  return success();
}

void impairment_engine::collect_queue_counts(const network_node& sender) {
  auto listed = _host.run(sender.namespace_name, {"tc", "-s", "-j", "qdisc", "show", "dev", "eth0"});
  if (!listed) return;
  for (const auto& [index, counts] : shaping_queues(listed.value())) {
    if (index < 0 || static_cast<std::size_t>(index) >= _records.size()) continue;
    _records[static_cast<std::size_t>(index)].dropped_packets += counts.drops;
    _records[static_cast<std::size_t>(index)].queued_packets += counts.packets;
  }
}

result<void> impairment_engine::rebuild_shaping(const network_node& sender) {
  collect_queue_counts(sender);
  // Deleting a root qdisc that is not there fails: look first.
  MAGNETAR_TRY(shown, _host.run(sender.namespace_name, {"tc", "qdisc", "show", "dev", "eth0", "root"}));
  if (shown.find("htb 1:") != std::string::npos) {
    MAGNETAR_TRY(_host.run(sender.namespace_name, {"tc", "qdisc", "del", "dev", "eth0", "root"}));
  }
  const auto batch = sender_shaping_batch(sender.name, active());
  if (!batch.empty()) {
    MAGNETAR_TRY(_host.run_script(sender.namespace_name, {"tc", "-batch"}, batch));
  }
  return success();
}

result<void> impairment_engine::offloads_off(const planned_impairment& p) {
  for (const auto& sender : p.senders()) {
    if (_offloads_changed.contains(sender.name)) continue;
    auto features = _host.run(sender.namespace_name, {"ethtool", "-k", "eth0"});
    if (!features) return features.error();
    std::vector<std::string> restore{"ethtool",
                                     "-K",
                                     "eth0",
                                     "tso",
                                     feature_state(features.value(), "tcp-segmentation-offload"),
                                     "gso",
                                     feature_state(features.value(), "generic-segmentation-offload")};
    MAGNETAR_TRY(_host.run(sender.namespace_name, {"ethtool", "-K", "eth0", "tso", "off", "gso", "off"}));
    _offloads_changed[sender.name] = {sender.namespace_name, std::move(restore)};
    emit(p.settings.name, "offloads-off", sender.name);
  }
  return success();
}

result<int> impairment_engine::reset_connections(const planned_impairment& p) {
  int reset = 0;
  for (const auto& from : p.from_nodes) {
    for (const auto& to : p.to_nodes) {
      if (from.name == to.name) continue;
      auto killed = _host.run(from.namespace_name, ss_to_peer(to.address, true));
      if (!killed) return killed.error();
      reset += static_cast<int>(parse_established(killed.value()).size());
    }
  }
  return reset;
}

result<int> impairment_engine::forget_connections(const planned_impairment& p) {
  int forgotten = 0;
  for (const auto& from : p.from_nodes) {
    std::vector<tcp_tuple> tuples;
    for (const auto& to : p.to_nodes) {
      if (from.name == to.name) continue;
      auto listed = _host.run(from.namespace_name, ss_to_peer(to.address, false));
      if (!listed) return listed.error();
      for (auto& t : parse_established(listed.value())) tuples.push_back(std::move(t));
    }
    // The drops go in before the sockets die, so that not even their RST gets out.
    MAGNETAR_TRY(
        _host.run_script(from.namespace_name, {"nft", "-f"}, silent_disconnect_ruleset(silent_table(p), tuples)));
    for (const auto& to : p.to_nodes) {
      if (from.name == to.name) continue;
      MAGNETAR_TRY(_host.run(from.namespace_name, ss_to_peer(to.address, true)));
    }
    forgotten += static_cast<int>(tuples.size());
  }
  return forgotten;
}

std::map<std::string, std::int64_t> impairment_engine::retransmissions_now(const planned_impairment& p) {
  std::map<std::string, std::int64_t> counts;
  for (const auto* side : {&p.from_nodes, &p.to_nodes}) {
    for (const auto& node : *side) {
      if (counts.contains(node.name)) continue;
      auto snmp = _host.run(node.namespace_name, {"cat", "/proc/net/snmp"});
      if (!snmp) continue;
      if (auto segments = tcp_retransmitted_segments(snmp.value())) counts[node.name] = *segments;
    }
  }
  return counts;
}

result<void> impairment_engine::apply(std::size_t i) {
  std::lock_guard lock(_mutex);
  auto applied = apply_locked(i);
  if (!applied) {
    // Undo what it did before it failed (each undo step alone may fail: nothing to undo).
    _records[i].state = impairment_state::active;
    (void)remove_locked(i);
    _records[i].state = impairment_state::failed;
    _records[i].error = applied.error().message();
    emit(_plan[i].settings.name, "failed", applied.error().message());
  }
  return applied;
}

result<void> impairment_engine::apply_locked(std::size_t i) {
  const auto& p = _plan.at(i);
  auto& record = _records[i];
  if (record.state != impairment_state::pending) return success();
  const auto& s = p.settings;
  _retransmits_at_apply[i] = retransmissions_now(p);
  if (wants_offloads_off(s, _offloads)) {
    MAGNETAR_TRY(offloads_off(p));
  }
  std::string detail;
  switch (s.kind) {
    case impairment_kind::condition: {
      if (delayed(s)) {
        for (const auto& command : delay_device_setup(p)) {
          MAGNETAR_TRY(_host.run(_router, command));
        }
        MAGNETAR_TRY(_host.start_forwarder(_router, {.device = p.tun_device(),
                                                     .delay = s.delay,
                                                     .jitter = s.jitter,
                                                     .reorder = s.reorder,
                                                     .seed = static_cast<std::uint64_t>(p.index) + 1}));
        for (const auto& command : delay_rules_setup(p)) {
          MAGNETAR_TRY(_host.run(_router, command));
        }
      }
      record.state = impairment_state::active;
      if (s.loss_percent > 0) {
        MAGNETAR_TRY(rebuild_router());
      }
      if (s.rate_bits > 0) {
        for (const auto& sender : p.senders()) {
          MAGNETAR_TRY(rebuild_shaping(sender));
        }
      }
      break;
    }
    case impairment_kind::partition: {
      record.state = impairment_state::active;
      MAGNETAR_TRY(rebuild_router());
      break;
    }
    case impairment_kind::reset: {
      auto reset = reset_connections(p);
      if (!reset) return reset.error();
      record.matched_connections = reset.value();
      detail = fmt::format("{} connection(s) reset", reset.value());
      record.state = impairment_state::ended;
      break;
    }
    case impairment_kind::silent_disconnect: {
      auto forgotten = forget_connections(p);
      if (!forgotten) return forgotten.error();
      record.matched_connections = forgotten.value();
      detail = fmt::format("{} connection(s) forgotten", forgotten.value());
      record.state = impairment_state::active;
      break;
    }
  }
  record.applied_at = system_clock::now();
  if (record.state == impairment_state::ended) record.removed_at = record.applied_at;
  emit(s.name, "applied", detail.empty() ? record.method : detail);
  return success();
}

result<void> impairment_engine::remove(std::size_t i) {
  std::lock_guard lock(_mutex);
  auto removed = remove_locked(i);
  if (!removed) {
    _records[i].state = impairment_state::failed;
    _records[i].error = removed.error().message();
    emit(_plan[i].settings.name, "failed", removed.error().message());
  }
  return removed;
}

result<void> impairment_engine::remove_locked(std::size_t i) {
  const auto& p = _plan.at(i);
  auto& record = _records[i];
  if (record.state != impairment_state::active) return success();
  const auto& s = p.settings;
  record.state = impairment_state::ended;
  record.removed_at = system_clock::now();
  // Every step is tried, so that one failure leaves no more behind than it must.
  result<void> outcome = success();
  const auto keep_first = [&](result<void> step) {
    if (!step && outcome) outcome = step.error();
  };
  const auto run = [&](const std::string& ns, const std::vector<std::string>& argv) {
    auto ran = _host.run(ns, argv);
    keep_first(ran ? result<void>(success()) : result<void>(ran.error()));
  };
  switch (s.kind) {
    case impairment_kind::condition:
      if (delayed(s)) {
        for (const auto& command : delay_rules_removal(p)) run(_router, command);
        auto stats = _host.stop_forwarder(p.tun_device());
        if (stats) {
          record.forwarder_stats = stats.value();
        } else {
          keep_first(stats.error());
        }
        for (const auto& command : delay_device_removal(p)) run(_router, command);
      }
      if (s.loss_percent > 0) keep_first(rebuild_router());
      if (s.rate_bits > 0) {
        for (const auto& sender : p.senders()) keep_first(rebuild_shaping(sender));
      }
      break;
    case impairment_kind::partition: keep_first(rebuild_router()); break;
    case impairment_kind::reset: break;
    case impairment_kind::silent_disconnect:
      for (const auto& from : p.from_nodes) {
        auto removed = _host.run_script(from.namespace_name, {"nft", "-f"}, table_removal(silent_table(p)));
        keep_first(removed ? result<void>(success()) : result<void>(removed.error()));
      }
      break;
  }
  const auto now = retransmissions_now(p);
  for (const auto& [node, count] : now) {
    const auto before = _retransmits_at_apply[i].find(node);
    if (before != _retransmits_at_apply[i].end()) record.retransmissions[node] = count - before->second;
  }
  if (!outcome) return outcome;
  emit(s.name, "removed", "");
  return success();
}

std::vector<std::string> impairment_engine::remove_all() {
  std::lock_guard lock(_mutex);
  std::vector<std::string> failures;
  for (std::size_t i = 0; i < _plan.size(); ++i) {
    if (_records[i].state != impairment_state::active) continue;
    if (auto removed = remove_locked(i); !removed) {
      _records[i].state = impairment_state::failed;
      _records[i].error = removed.error().message();
      failures.push_back(fmt::format("{}: {}", _plan[i].settings.name, removed.error().message()));
    }
  }
  for (const auto& [sender, restore] : _offloads_changed) {
    if (auto restored = _host.run(restore.first, restore.second); !restored) {
      failures.push_back(fmt::format("offloads of {}: {}", sender, restored.error().message()));
    } else {
      emit("", "offloads-restored", sender);
    }
  }
  _offloads_changed.clear();
  return failures;
}

std::vector<impairment_record> impairment_engine::records() const {
  std::lock_guard lock(_mutex);
  return _records;
}

}  // namespace magnetar::perf
