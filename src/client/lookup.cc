#include "client/lookup.h"

#include "client/commands.h"
#include "client/server_error.h"
#include "magnetar/errc.h"

#include <fmt/format.h>

#include <set>

namespace magnetar::client_detail {

lookup_service::lookup_service(connection_pool& pool, std::vector<broker_address> service, const client_config& config,
                               std::atomic<std::uint64_t>& request_ids)
    : _pool(pool), _service(std::move(service)), _config(config), _request_ids(request_ids) {}

awaitable<result<lookup_service::service_connection>> lookup_service::connect_to_service() {
  const auto first = _next.fetch_add(1, std::memory_order_relaxed);
  for (std::size_t i = 0;; ++i) {
    const broker_address& address = _service[(first + i) % _service.size()];
    auto c = co_await _pool.get(address, address);
    if (c) co_return service_connection{address, std::move(c).value()};
    if (c.error() != client_errc::connect_error || i + 1 == _service.size()) co_return fail(std::move(c).error());
  }
}

awaitable<result<lookup_result>> lookup_service::lookup(const std::string& topic) {
  MAGNETAR_CO_TRY(first, co_await connect_to_service());
  const broker_address service = first.address;
  lookup_result target{service, service};
  bool authoritative = false;
  for (unsigned redirects = 0; redirects <= _config.max_lookup_redirects; ++redirects) {
    MAGNETAR_CO_TRY(c, co_await _pool.get(target.logical, target.physical));
    const auto request_id = _request_ids.fetch_add(1, std::memory_order_relaxed);
    auto command = lookup_command(topic, request_id, authoritative);
    MAGNETAR_CO_TRY(response, co_await c->request(request_id, command));
    if (response.type() != proto::BaseCommand::LOOKUP_RESPONSE) {
      co_return fail(client_errc::protocol_error,
                     fmt::format("LOOKUP {} answered with {}", topic, wire::command_name(response)));
    }
    const auto& r = response.lookuptopicresponse();
    if (r.response() == proto::CommandLookupTopicResponse::Failed) {
      if (r.has_error()) co_return server_failure(r.error(), r.message(), fmt::format("LOOKUP {}", topic));
      co_return fail(client_errc::lookup_error, fmt::format("LOOKUP {}: {}", topic, r.message()));
    }
    // A client that reached the service over TLS goes on over TLS.
    const auto& url = service.tls ? r.brokerserviceurltls() : r.brokerserviceurl();
    if (url.empty()) {
      co_return fail(client_errc::lookup_error,
                     fmt::format("LOOKUP {}: the broker has no {} URL", topic, service.tls ? "TLS" : "plaintext"));
    }
    auto address = parse_broker_url(url);
    if (!address) {
      co_return fail(client_errc::lookup_error,
                     fmt::format("LOOKUP {} answered '{}': {}", topic, url, address.error().message()));
    }
    target.logical = std::move(address).value();
    target.physical = r.proxy_through_service_url() ? service : target.logical;
    if (r.response() == proto::CommandLookupTopicResponse::Connect) co_return target;
    authoritative = r.authoritative();
  }
  co_return fail(client_errc::too_many_redirects,
                 fmt::format("LOOKUP {}: more than {} redirects", topic, _config.max_lookup_redirects));
}

awaitable<result<int>> lookup_service::partitions(const std::string& topic) {
  MAGNETAR_CO_TRY(service, co_await connect_to_service());
  const auto& c = service.open;
  const auto request_id = _request_ids.fetch_add(1, std::memory_order_relaxed);
  auto command = partitioned_metadata_command(topic, request_id);
  MAGNETAR_CO_TRY(response, co_await c->request(request_id, command));
  if (response.type() != proto::BaseCommand::PARTITIONED_METADATA_RESPONSE) {
    co_return fail(client_errc::protocol_error,
                   fmt::format("PARTITIONED_METADATA {} answered with {}", topic, wire::command_name(response)));
  }
  const auto& r = response.partitionmetadataresponse();
  if (r.response() == proto::CommandPartitionedTopicMetadataResponse::Failed) {
    if (r.has_error()) co_return server_failure(r.error(), r.message(), fmt::format("PARTITIONED_METADATA {}", topic));
    co_return fail(client_errc::lookup_error, fmt::format("PARTITIONED_METADATA {}: {}", topic, r.message()));
  }
  co_return static_cast<int>(r.partitions());
}

awaitable<result<std::vector<std::string>>> lookup_service::topics_of_namespace(const std::string& namespace_name) {
  MAGNETAR_CO_TRY(service, co_await connect_to_service());
  const auto& c = service.open;
  const auto request_id = _request_ids.fetch_add(1, std::memory_order_relaxed);
  auto command = get_topics_of_namespace_command(namespace_name, request_id);
  MAGNETAR_CO_TRY(response, co_await c->request(request_id, command));
  if (response.type() != proto::BaseCommand::GET_TOPICS_OF_NAMESPACE_RESPONSE) {
    co_return fail(client_errc::protocol_error, fmt::format("GET_TOPICS_OF_NAMESPACE {} answered with {}",
                                                            namespace_name, wire::command_name(response)));
  }
  std::set<std::string> names;
  for (const auto& topic : response.gettopicsofnamespaceresponse().topics()) {
    names.insert(topic.substr(0, topic.find("-partition-")));
  }
  co_return std::vector<std::string>(names.begin(), names.end());
}

}  // namespace magnetar::client_detail
