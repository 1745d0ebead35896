#include "perf/cluster/node_configs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>

namespace magnetar::perf {

namespace {

constexpr std::string_view prefixed_key = "PULSAR_PREFIX_";
constexpr int upstream_quorum_default = 2;

bool environment_style(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(),
                                      [](unsigned char c) { return std::isupper(c) || std::isdigit(c) || c == '_'; });
}

}  // namespace

env_conf conf_from_env(const std::map<std::string, std::string>& env, std::string_view where) {
  env_conf conf;
  for (const auto& [name, value] : env) {
    std::string_view key = name;
    if (key.starts_with(prefixed_key) && key.size() > prefixed_key.size()) {
      key.remove_prefix(prefixed_key.size());
    } else if (environment_style(key)) {
      conf.ignored.push_back(name);
      continue;
    }
    conf.text += fmt::format("{}={}\n", key, value);
  }
  if (!conf.ignored.empty()) {
    conf.notes.push_back(fmt::format("{}: ignored (JVM/process settings that do not apply to magnetar): {}", where,
                                     fmt::join(conf.ignored, ", ")));
  }
  return conf;
}

std::string zookeeper_config(const cluster_layout& layout, const cluster_node& node,
                             const std::filesystem::path& data_dir) {
  // A short tick lets scenarios use short broker sessions (the minimum is two ticks).
  std::string text = fmt::format(
      "tickTime=500\ninitLimit=20\nsyncLimit=10\ndataDir={}\nclientPort={}\nclientPortAddress={}\n"
      "maxSessionTimeout=60000\nadmin.enableServer=false\n4lw.commands.whitelist=srvr,mntr,ruok\n",
      data_dir.string(), node.port, node.address);
  const auto servers = layout.of_role(node_role::zookeeper, node.remote);
  if (servers.size() > 1) {
    for (const auto* server : servers) {
      text += fmt::format("server.{}={}:{}:{}\n", server->index + 1, server->address, server->quorum_port,
                          server->election_port);
    }
  }
  return text;
}

std::string bookie_config(const cluster_layout& layout, const cluster_node& node, const std::filesystem::path& data_dir,
                          const env_conf& env) {
  auto connect = layout.zookeeper_connect(node.remote);
  std::replace(connect.begin(), connect.end(), ',', ';');  // BookKeeper's URIs separate servers with ';'
  return fmt::format(
      "# magnetar-perf: {}\nmetadataServiceUri=zk+null://{}/ledgers\nbookiePort={}\nadvertisedAddress={}\n"
      "listeningInterface={}\nprometheusStatsHttpPort={}\njournalDirectories={}\nledgerDirectories={}\n{}",
      node.name, connect, node.port, node.address, node.address, node.http_port, (data_dir / "journal").string(),
      (data_dir / "ledgers").string(), env.text);
}

std::string broker_config(const cluster_layout& layout, const cluster_node& node, const env_conf& env) {
  const int quorum =
      std::min<int>(upstream_quorum_default, static_cast<int>(layout.of_role(node_role::bookie, node.remote).size()));
  const auto configuration_store =
      node.remote ? fmt::format("configurationMetadataStoreUrl=zk:{}\n", layout.zookeeper_connect()) : std::string();
  return fmt::format(
      "# magnetar-perf: {}\nclusterName={}\nmetadataStoreUrl=zk:{}\n{}advertisedAddress={}\nbindAddress={}\n"
      "brokerServicePort={}\nwebServicePort={}\nmanagedLedgerDefaultEnsembleSize={}\n"
      "managedLedgerDefaultWriteQuorum={}\nmanagedLedgerDefaultAckQuorum={}\n{}",
      node.name, cluster_name_of(node), layout.zookeeper_connect(node.remote), configuration_store, node.address,
      node.address, node.port, node.http_port, quorum, quorum, quorum, env.text);
}

}  // namespace magnetar::perf
