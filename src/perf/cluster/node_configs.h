// node_configs: the configuration files of a launched cluster's nodes, as text: zoo.cfg
// for each ZooKeeper server, bookkeeper.conf for each bookie, broker.conf for each broker.
// What the launcher decides (addresses, ports, directories, the cluster's name, E/W/A
// defaults) comes first; the scenario's `env` for that role comes after it, so a user's
// setting wins (the conf readers take the last value of a key).
//
// Thread-safety: pure functions.
#pragma once

#include "perf/cluster/cluster_layout.h"

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::perf {

// The cluster names the launcher's brokers register under: the first cluster's, and a
// remote cluster's (geo-replication).
inline constexpr std::string_view launched_cluster_name = "local";
inline constexpr std::string_view remote_cluster_name = "remote";

// The cluster name of a node's cluster.
inline std::string_view cluster_name_of(const cluster_node& node) {
  return node.remote ? remote_cluster_name : launched_cluster_name;
}

// Configuration lines made from a scenario's `env` mapping.
struct env_conf {
  std::string text;                  // `key=value` lines; empty when no key was given
  std::vector<std::string> ignored;  // process/JVM settings that do not apply to magnetar
  std::vector<std::string> notes;    // lines for the console (what was ignored, and why)
};

// Upstream's `env` mixes configuration keys (`managedLedgerDefaultEnsembleSize`) with the
// process environment of a JVM container (PULSAR_MEM, PULSAR_GC, JAVA_TOOL_OPTIONS,
// GLIBC_TUNABLES, ...). Configuration keys become lines (`PULSAR_PREFIX_<key>`, the images'
// way of naming a key, becomes `<key>`); names in environment-variable style (upper case,
// digits and '_') are process settings: listed as ignored, the note naming `where`
// ("cluster.bookies.env"). Whether magnetar knows a key is for the node to say: it
// rejects unknown keys with a suggestion.
env_conf conf_from_env(const std::map<std::string, std::string>& env, std::string_view where);

// zoo.cfg of one server; an ensemble lists every server (its `myid` file holds index + 1).
std::string zookeeper_config(const cluster_layout& layout, const cluster_node& node,
                             const std::filesystem::path& data_dir);

std::string bookie_config(const cluster_layout& layout, const cluster_node& node, const std::filesystem::path& data_dir,
                          const env_conf& env);

// E/W/A default to 2/2/2 (upstream's broker.conf), or the bookie count of the broker's
// cluster when fewer. A remote cluster's broker keeps its metadata in its own ZooKeeper
// and names the first cluster's as its configuration store (tenants, namespaces and
// clusters, which geo-replicated clusters share).
std::string broker_config(const cluster_layout& layout, const cluster_node& node, const env_conf& env);

}  // namespace magnetar::perf
