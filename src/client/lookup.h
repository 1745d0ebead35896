// lookup: where a topic is served and how many partitions it has, asked over the binary
// protocol (PARTITIONED_METADATA, LOOKUP) of the service URL's brokers.
//
// LOOKUP answers Connect (this broker serves it), Redirect (ask that one, with
// authoritative set when the answer says so) or Failed; redirects are followed up to
// max_lookup_redirects. With proxy_through_service_url the socket goes to the service
// address and CONNECT names the logical broker for the proxy.
// Thread-safe; coroutines run on the caller's executor.
#pragma once

#include "base/result.h"
#include "client/connection_pool.h"
#include "client/service_url.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace magnetar::client_detail {

struct lookup_result {
  broker_address logical;
  broker_address physical;
};

class lookup_service {
 public:
  lookup_service(connection_pool& pool, std::vector<broker_address> service, const client_config& config,
                 std::atomic<std::uint64_t>& request_ids);

  // Errors: lookup_error, too_many_redirects, the broker's error (topic_not_found...),
  // and connection errors.
  awaitable<result<lookup_result>> lookup(const std::string& topic);
  // 0 for a topic that is not partitioned.
  awaitable<result<int>> partitions(const std::string& topic);
  // The persistent topics of "tenant/namespace", each partitioned topic once under its
  // own name (the broker lists partitions; upstream's client folds them the same way).
  awaitable<result<std::vector<std::string>>> topics_of_namespace(const std::string& namespace_name);

 private:
  struct service_connection {
    broker_address address;
    std::shared_ptr<connection> open;
  };
  // A connection to one of the service URL's hosts: the next in turn, or, when it
  // can't be reached, the ones after it (a dead broker in the list costs one refused
  // connect, not a back-off); the last connect error when none can be.
  awaitable<result<service_connection>> connect_to_service();

  connection_pool& _pool;
  const std::vector<broker_address> _service;
  const client_config _config;
  std::atomic<std::uint64_t>& _request_ids;
  std::atomic<std::size_t> _next{0};
};

}  // namespace magnetar::client_detail
