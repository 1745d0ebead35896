#include "perf/scenario/network_endpoints.h"

#include "base/errc.h"
#include "perf/scenario/settings_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <utility>

namespace magnetar::perf {
namespace {

std::vector<std::string> numbered(std::string_view role, int count) {
  std::vector<std::string> names;
  for (int i = 0; i < count; ++i) names.push_back(fmt::format("{}-{}", role, i));
  return names;
}

// "broker-3" -> 3 for the role "broker"; nullopt for another form.
std::optional<int> index_in(std::string_view endpoint, std::string_view role) {
  if (endpoint.size() <= role.size() + 1 || endpoint.substr(0, role.size()) != role || endpoint[role.size()] != '-') {
    return std::nullopt;
  }
  const auto digits = endpoint.substr(role.size() + 1);
  int index = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (error != std::errc{} || end != digits.data() + digits.size() || index < 0) return std::nullopt;
  return index;
}

}  // namespace

const std::vector<std::string_view>& endpoint_names() {
  static const std::vector<std::string_view> names = {"gateways",
                                                      "applications",
                                                      "clients",
                                                      "brokers",
                                                      "broker-N",
                                                      "bookies",
                                                      "bookie-N",
                                                      "zookeeper",
                                                      "zookeeper-N",
                                                      "configuration-store",
                                                      "metadata",
                                                      "remote-brokers",
                                                      "remote-broker-N",
                                                      "remote-bookies",
                                                      "remote-bookie-N",
                                                      "remote-zookeeper",
                                                      "remote-zookeeper-N",
                                                      "remote-applications",
                                                      "local-region",
                                                      "remote-region"};
  return names;
}

namespace {

// Every node of a region: its ZooKeeper servers, bookies, brokers and its clients (the
// local region's gateways and applications, the remote's applications). The launcher's
// monitor is in neither: the report must see both sides of a cut between them.
std::vector<std::string> region_nodes(std::string_view prefix, int zookeepers, int bookies, int brokers,
                                      std::vector<std::string> clients) {
  std::vector<std::string> nodes;
  for (const auto& [role, count] : {std::pair{"zookeeper", zookeepers}, {"bookie", bookies}, {"broker", brokers}}) {
    for (auto& name : numbered(fmt::format("{}{}", prefix, role), count)) nodes.push_back(std::move(name));
  }
  for (auto& client : clients) nodes.push_back(std::move(client));
  return nodes;
}

struct numbered_role {
  std::string_view role;
  int count;
  std::string_view key;
};

result<std::vector<std::string>> numbered_endpoint(std::string_view endpoint, const std::vector<numbered_role>& roles) {
  for (const auto& [role, count, key] : roles) {
    if (const auto index = index_in(endpoint, role)) {
      if (*index < count) return std::vector<std::string>{std::string(endpoint)};
      return fail(base::errc::invalid_argument, fmt::format("{} is not in this cluster: {} is {} ({}-0 to {}-{})",
                                                            endpoint, key, count, role, role, count - 1));
    }
  }
  return fail(base::errc::not_found, "");
}

// The remote cluster's endpoints (remote-*, local-region, remote-region); not_found for a
// name that is none of them.
result<std::vector<std::string>> remote_endpoint_nodes(std::string_view endpoint, const cluster_settings& cluster,
                                                       const remote_cluster_settings& remote) {
  if (endpoint == "remote-applications") return std::vector<std::string>{"remote-applications"};
  if (endpoint == "remote-brokers") return numbered("remote-broker", remote.brokers.replicas);
  if (endpoint == "remote-bookies") return numbered("remote-bookie", remote.bookies.replicas);
  if (endpoint == "remote-zookeeper") return numbered("remote-zookeeper", remote.zookeeper_replicas);
  if (endpoint == "local-region") {
    return region_nodes("", cluster.zookeeper_replicas, cluster.bookies.replicas, cluster.brokers.replicas,
                        {"gateways", "applications"});
  }
  if (endpoint == "remote-region") {
    return region_nodes("remote-", remote.zookeeper_replicas, remote.bookies.replicas, remote.brokers.replicas,
                        {"remote-applications"});
  }
  return numbered_endpoint(endpoint,
                           {{"remote-broker", remote.brokers.replicas, "cluster.remote.brokers.replicas"},
                            {"remote-bookie", remote.bookies.replicas, "cluster.remote.bookies.replicas"},
                            {"remote-zookeeper", remote.zookeeper_replicas, "cluster.remote.zookeeper.replicas"}});
}

}  // namespace

result<std::vector<std::string>> endpoint_nodes(std::string_view endpoint, const cluster_settings& cluster) {
  if (endpoint == "gateways" || endpoint == "applications") return std::vector<std::string>{std::string(endpoint)};
  if (endpoint == "clients") return std::vector<std::string>{"gateways", "applications"};
  if (endpoint == "brokers") return numbered("broker", cluster.brokers.replicas);
  if (endpoint == "bookies") return numbered("bookie", cluster.bookies.replicas);
  // The configuration store is the local cluster's ZooKeeper: in a single cluster it is
  // the metadata store too, and a remote cluster shares it (its own ZooKeeper holds only
  // its metadata).
  if (endpoint == "zookeeper" || endpoint == "configuration-store" || endpoint == "metadata") {
    return numbered("zookeeper", cluster.zookeeper_replicas);
  }
  if (endpoint.starts_with("remote-") || endpoint == "local-region") {
    if (!cluster.remote) {
      return fail(base::errc::invalid_argument,
                  fmt::format("{} names a remote cluster's part, and this scenario has no remote cluster "
                              "(cluster.remote, for geo-replication)",
                              endpoint));
    }
    auto nodes = remote_endpoint_nodes(endpoint, cluster, *cluster.remote);
    if (nodes || nodes.error().code() != base::errc::not_found) return nodes;
  } else {
    auto nodes = numbered_endpoint(endpoint, {{"broker", cluster.brokers.replicas, "cluster.brokers.replicas"},
                                              {"bookie", cluster.bookies.replicas, "cluster.bookies.replicas"},
                                              {"zookeeper", cluster.zookeeper_replicas, "cluster.zookeeper.replicas"}});
    if (nodes || nodes.error().code() != base::errc::not_found) return nodes;
  }
  std::vector<std::string_view> known = endpoint_names();
  const auto close = closest_key(endpoint, known);
  return fail(base::errc::invalid_argument,
              fmt::format("{} is not an endpoint{}; endpoints are {}", endpoint,
                          close.empty() ? "" : fmt::format(" (did you mean {}?)", close), fmt::join(known, ", ")));
}

}  // namespace magnetar::perf
