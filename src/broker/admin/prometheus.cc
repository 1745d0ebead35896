#include "broker/admin/prometheus.h"

#include "mledger/storage_write_stats.h"
#include "wire/topic_name.h"

#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace magnetar::broker::admin {

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out.push_back(c);
    }
  }
  return out;
}

namespace {

std::string number(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) return fmt::format("{}", static_cast<std::int64_t>(value));
  return fmt::format("{}", value);
}

// Accumulates one family's samples so that each family is written as one block.
class family_writer {
 public:
  explicit family_writer(std::string& out) : _out(out) {}

  void family(std::string_view name, std::string_view type, std::string_view help) {
    _out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void sample(std::string_view name, const std::vector<std::pair<std::string_view, std::string_view>>& labels,
              double value) {
    _out += name;
    if (!labels.empty()) {
      _out += '{';
      bool first = true;
      for (const auto& [key, label_value] : labels) {
        if (!first) _out += ',';
        first = false;
        _out += fmt::format("{}=\"{}\"", key, escape_label_value(label_value));
      }
      _out += '}';
    }
    _out += ' ';
    _out += number(value);
    _out += '\n';
  }

 private:
  std::string& _out;
};

std::string namespace_of(const std::string& topic) {
  auto parsed = wire::topic_name::parse(topic);
  return parsed ? parsed.value().namespace_name() : std::string();
}

}  // namespace

std::string render_metrics(std::string_view cluster, const std::map<std::string, topic_stats>& topics,
                           const broker_metrics& broker) {
  std::string out;
  family_writer w(out);

  w.family("pulsar_active_connections", "gauge", "The number of active connections.");
  w.sample("pulsar_active_connections", {{"cluster", cluster}}, static_cast<double>(broker.active_connections));
  w.family("pulsar_connection_created_total_count", "gauge", "The total number of connections.");
  w.sample("pulsar_connection_created_total_count", {{"cluster", cluster}},
           static_cast<double>(broker.total_connections));
  w.family("pulsar_broker_topics_count", "gauge", "The number of topics served by this broker.");
  w.sample("pulsar_broker_topics_count", {{"cluster", cluster}}, static_cast<double>(broker.topics));
  w.family("pulsar_broker_producers_count", "gauge", "The number of active producers of the broker.");
  w.sample("pulsar_broker_producers_count", {{"cluster", cluster}}, static_cast<double>(broker.producers));
  w.family("pulsar_broker_consumers_count", "gauge", "The number of active consumers of the broker.");
  w.sample("pulsar_broker_consumers_count", {{"cluster", cluster}}, static_cast<double>(broker.consumers));
  w.family("pulsar_broker_subscriptions_count", "gauge", "The number of subscriptions of the broker.");
  w.sample("pulsar_broker_subscriptions_count", {{"cluster", cluster}}, static_cast<double>(broker.subscriptions));
  w.family("pulsar_ml_cache_used_size", "gauge", "The size in bytes used to store the entries payloads.");
  w.sample("pulsar_ml_cache_used_size", {{"cluster", cluster}}, static_cast<double>(broker.cache_size_bytes));
  w.family("magnetar_ml_cache_hits_total", "counter", "Entry reads served from the entry cache.");
  w.sample("magnetar_ml_cache_hits_total", {{"cluster", cluster}}, static_cast<double>(broker.cache_hits));
  w.family("magnetar_ml_cache_misses_total", "counter", "Entry reads that missed the entry cache.");
  w.sample("magnetar_ml_cache_misses_total", {{"cluster", cluster}}, static_cast<double>(broker.cache_misses));
  w.family("magnetar_ml_cache_inserts_total", "counter",
           "Entries put into the entry cache (added or read from storage).");
  w.sample("magnetar_ml_cache_inserts_total", {{"cluster", cluster}}, static_cast<double>(broker.cache_inserts));
  w.family("magnetar_ml_cache_evictions_total", "counter",
           "Entries evicted from the entry cache, at the end of their time to live or for room.");
  w.sample("magnetar_ml_cache_evictions_total", {{"cluster", cluster}}, static_cast<double>(broker.cache_evictions));

  std::vector<std::pair<std::string, const topic_stats*>> labelled;
  std::map<std::string, int> per_namespace;
  for (const auto& [name, stats] : topics) {
    auto ns = namespace_of(name);
    ++per_namespace[ns];
    labelled.emplace_back(std::move(ns), &stats);
  }
  w.family("pulsar_topics_count", "gauge", "The number of Pulsar topics of the namespace owned by this broker.");
  for (const auto& [ns, count] : per_namespace) {
    w.sample("pulsar_topics_count", {{"cluster", cluster}, {"namespace", ns}}, count);
  }

  struct topic_family {
    const char* name;
    const char* type;
    const char* help;
    std::function<double(const topic_stats&)> value;
  };
  auto backlog = [](const topic_stats& s) {
    std::uint64_t total = 0;
    for (const auto& [name, sub] : s.subscriptions) total += sub.msg_backlog;
    return static_cast<double>(total);
  };
  auto consumers = [](const topic_stats& s) {
    std::size_t total = 0;
    for (const auto& [name, sub] : s.subscriptions) total += sub.consumers.size();
    return static_cast<double>(total);
  };
  const std::vector<topic_family> topic_families{
      {"pulsar_subscriptions_count", "gauge", "The number of Pulsar subscriptions of the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.subscriptions.size()); }},
      {"pulsar_producers_count", "gauge", "The number of active producers of the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.publishers.size()); }},
      {"pulsar_consumers_count", "gauge", "The number of active consumers of the topic.", consumers},
      {"pulsar_rate_in", "gauge", "The total message rate of the topic coming into the broker (messages/second).",
       [](const topic_stats& s) { return s.msg_rate_in; }},
      {"pulsar_rate_out", "gauge", "The total message rate of the topic going out from the broker (messages/second).",
       [](const topic_stats& s) { return s.msg_rate_out; }},
      {"pulsar_throughput_in", "gauge", "The total throughput of the topic coming into the broker (bytes/second).",
       [](const topic_stats& s) { return s.msg_throughput_in; }},
      {"pulsar_throughput_out", "gauge", "The total throughput of the topic going out from the broker (bytes/second).",
       [](const topic_stats& s) { return s.msg_throughput_out; }},
      {"pulsar_storage_size", "gauge", "The total storage size of the topic (bytes).",
       [](const topic_stats& s) { return static_cast<double>(s.storage_size); }},
      {"pulsar_storage_backlog_size", "gauge", "The total backlog size of the topic (bytes).",
       [](const topic_stats& s) { return static_cast<double>(s.backlog_size); }},
      {"pulsar_msg_backlog", "gauge", "The total backlog of the topic (entries).", backlog},
      {"pulsar_in_messages_total", "counter", "The total number of messages received for the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.msg_in_counter); }},
      {"pulsar_in_bytes_total", "counter", "The total number of bytes received for the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.bytes_in_counter); }},
      {"pulsar_out_messages_total", "counter", "The total number of messages read from the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.msg_out_counter); }},
      {"pulsar_out_bytes_total", "counter", "The total number of bytes read from the topic.",
       [](const topic_stats& s) { return static_cast<double>(s.bytes_out_counter); }},
  };
  for (const auto& f : topic_families) {
    w.family(f.name, f.type, f.help);
    auto it = labelled.begin();
    for (const auto& [name, stats] : topics) {
      w.sample(f.name, {{"cluster", cluster}, {"namespace", it->first}, {"topic", name}}, f.value(stats));
      ++it;
    }
  }

  // Upstream's storage write families: per bound an entry count of the last stats
  // interval, then the overflow (named as upstream names it), count and sum.
  using bounds = mledger::storage_write_stats;
  struct bucket_family {
    std::string_view prefix;
    std::string_view help;  // completed by the bound
    std::span<const base::stats_bound> bounds;
    std::string_view overflow_suffix;
    std::string_view sum_unit;
    std::optional<base::stats_buckets> topic_stats::*buckets;
  };
  const std::vector<bucket_family> bucket_families{
      {"pulsar_storage_write_latency", "Entries of the topic's last stats interval whose storage write took",
       bounds::latency_bounds_us, "_overflow", "microseconds", &topic_stats::storage_write_latency_us},
      {"pulsar_storage_ledger_write_latency", "Entries of the topic's last stats interval whose ledger add took",
       bounds::latency_bounds_us, "_overflow", "microseconds", &topic_stats::storage_ledger_write_latency_us},
      {"pulsar_entry_size", "Entries of the topic's last stats interval whose size was", bounds::entry_size_bounds,
       "_le_overflow", "bytes", &topic_stats::entry_size},
  };
  for (const auto& f : bucket_families) {
    const auto each_topic = [&](const std::string& family, auto value) {
      auto it = labelled.begin();
      for (const auto& [name, stats] : topics) {
        if (const auto& buckets = stats.*f.buckets) {
          w.sample(family, {{"cluster", cluster}, {"namespace", it->first}, {"topic", name}}, value(*buckets));
        }
        ++it;
      }
    };
    for (std::size_t i = 0; i <= f.bounds.size(); ++i) {
      const bool overflow = i == f.bounds.size();
      const auto family = overflow ? fmt::format("{}{}", f.prefix, f.overflow_suffix)
                                   : fmt::format("{}_le_{}", f.prefix, f.bounds[i].name);
      w.family(family, "gauge",
               overflow ? fmt::format("{} more than {}.", f.help, f.bounds.back().text)
                        : fmt::format("{} at most {}.", f.help, f.bounds[i].text));
      each_topic(family, [i](const base::stats_buckets& b) { return static_cast<double>(b.counts()[i]); });
    }
    const auto count = fmt::format("{}_count", f.prefix);
    w.family(count, "gauge", "Entries of the last stats interval.");
    each_topic(count, [](const base::stats_buckets& b) { return static_cast<double>(b.count()); });
    const auto sum = fmt::format("{}_sum", f.prefix);
    w.family(sum, "gauge", fmt::format("The sum of the topic's last stats interval's values ({}).", f.sum_unit));
    each_topic(sum, [](const base::stats_buckets& b) { return static_cast<double>(b.sum()); });
  }

  struct subscription_family {
    const char* name;
    const char* help;
    std::function<double(const subscription_stats&)> value;
  };
  const std::vector<subscription_family> subscription_families{
      {"pulsar_subscription_back_log", "The backlog of the subscription (entries).",
       [](const subscription_stats& s) { return static_cast<double>(s.msg_backlog); }},
      {"pulsar_subscription_msg_rate_out", "The message dispatch rate of the subscription (messages/second).",
       [](const subscription_stats& s) { return s.msg_rate_out; }},
      {"pulsar_subscription_msg_throughput_out", "The dispatch throughput of the subscription (bytes/second).",
       [](const subscription_stats& s) { return s.msg_throughput_out; }},
      {"pulsar_subscription_msg_rate_redeliver", "The redelivery rate of the subscription (messages/second).",
       [](const subscription_stats& s) { return s.msg_rate_redeliver; }},
      {"pulsar_subscription_unacked_messages", "Messages dispatched to consumers and not yet acknowledged.",
       [](const subscription_stats& s) { return static_cast<double>(s.unacked_messages); }},
      {"pulsar_subscription_delayed", "Messages held for their deliver time (Shared, Key_Shared).",
       [](const subscription_stats& s) { return static_cast<double>(s.msg_delayed); }},
      {"pulsar_subscription_consumers_count", "The number of connected consumers on the subscription.",
       [](const subscription_stats& s) { return static_cast<double>(s.consumers.size()); }},
  };
  for (const auto& f : subscription_families) {
    w.family(f.name, "gauge", f.help);
    auto it = labelled.begin();
    for (const auto& [name, stats] : topics) {
      for (const auto& [sub_name, sub] : stats.subscriptions) {
        w.sample(f.name, {{"cluster", cluster}, {"namespace", it->first}, {"topic", name}, {"subscription", sub_name}},
                 f.value(sub));
      }
      ++it;
    }
  }

  // Geo-replication, per topic and remote cluster (upstream's names).
  const std::vector<std::pair<const char*, std::function<double(const replicator_stats&)>>> replication_families{
      {"pulsar_replication_rate_in", [](const replicator_stats& r) { return r.msg_rate_in; }},
      {"pulsar_replication_rate_out", [](const replicator_stats& r) { return r.msg_rate_out; }},
      {"pulsar_replication_throughput_in", [](const replicator_stats& r) { return r.msg_throughput_in; }},
      {"pulsar_replication_throughput_out", [](const replicator_stats& r) { return r.msg_throughput_out; }},
      {"pulsar_replication_backlog",
       [](const replicator_stats& r) { return static_cast<double>(r.replication_backlog); }},
      {"pulsar_replication_connected_count", [](const replicator_stats& r) { return r.connected ? 1.0 : 0.0; }},
      {"pulsar_replication_delay_in_seconds",
       [](const replicator_stats& r) { return static_cast<double>(r.replication_delay_seconds); }},
  };
  for (const auto& [family, value] : replication_families) {
    w.family(family, "gauge", "Geo-replication of the topic with the remote cluster (see topic stats' replication).");
    auto it = labelled.begin();
    for (const auto& [name, stats] : topics) {
      for (const auto& [remote, r] : stats.replication) {
        w.sample(family, {{"cluster", cluster}, {"namespace", it->first}, {"topic", name}, {"remote_cluster", remote}},
                 value(r));
      }
      ++it;
    }
  }
  return out;
}

}  // namespace magnetar::broker::admin
