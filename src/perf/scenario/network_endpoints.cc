#include "perf/scenario/network_endpoints.h"

#include "base/errc.h"
#include "perf/scenario/settings_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <charconv>
#include <tuple>

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
                                                      "remote-applications",
                                                      "local-region",
                                                      "remote-region"};
  return names;
}

result<std::vector<std::string>> endpoint_nodes(std::string_view endpoint, const cluster_settings& cluster) {
  if (endpoint == "gateways" || endpoint == "applications") return std::vector<std::string>{std::string(endpoint)};
  if (endpoint == "clients") return std::vector<std::string>{"gateways", "applications"};
  if (endpoint == "brokers") return numbered("broker", cluster.brokers.replicas);
  if (endpoint == "bookies") return numbered("bookie", cluster.bookies.replicas);
  // The configuration store is the metadata store's ZooKeeper in a single cluster.
  if (endpoint == "zookeeper" || endpoint == "configuration-store" || endpoint == "metadata") {
    return numbered("zookeeper", cluster.zookeeper_replicas);
  }
  for (const auto& [role, count, key] :
       {std::tuple{"broker", cluster.brokers.replicas, "cluster.brokers.replicas"},
        std::tuple{"bookie", cluster.bookies.replicas, "cluster.bookies.replicas"},
        std::tuple{"zookeeper", cluster.zookeeper_replicas, "cluster.zookeeper.replicas"}}) {
    if (const auto index = index_in(endpoint, role)) {
      if (*index < count) return std::vector<std::string>{std::string(endpoint)};
      return fail(base::errc::invalid_argument, fmt::format("{} is not in this cluster: {} is {} ({}-0 to {}-{})",
                                                            endpoint, key, count, role, role, count - 1));
    }
  }
  if (endpoint.starts_with("remote-") || endpoint == "local-region") {
    return fail(base::errc::invalid_argument,
                fmt::format("{} names a remote cluster's part, and this scenario has no remote cluster "
                            "(cluster.remote, for geo-replication)",
                            endpoint));
  }
  std::vector<std::string_view> known = endpoint_names();
  const auto close = closest_key(endpoint, known);
  return fail(base::errc::invalid_argument,
              fmt::format("{} is not an endpoint{}; endpoints are {}", endpoint,
                          close.empty() ? "" : fmt::format(" (did you mean {}?)", close), fmt::join(known, ", ")));
}

}  // namespace magnetar::perf
