#include "meta/store_url.h"

#include "base/errc.h"
#include "meta/rocksdb_store.h"
#include "meta/zookeeper_store.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::meta {

namespace {

result<store_url> parse_zookeeper(std::string_view rest, std::string_view url) {
  store_url parsed{.backend = store_url::kind::zookeeper};
  const auto slash = rest.find('/');
  parsed.servers = std::string(rest.substr(0, slash));
  if (slash != std::string_view::npos) parsed.chroot = std::string(rest.substr(slash));
  if (parsed.chroot == "/") parsed.chroot.clear();
  if (parsed.servers.empty()) {
    return fail(base::errc::invalid_argument, fmt::format("metadata store URL '{}' names no ZooKeeper server", url));
  }
  std::size_t from = 0;
  while (from <= parsed.servers.size()) {
    auto comma = parsed.servers.find(',', from);
    if (comma == std::string::npos) comma = parsed.servers.size();
    const auto server = std::string_view(parsed.servers).substr(from, comma - from);
    const auto colon = server.rfind(':');
    if (server.empty() || colon == std::string_view::npos || colon == 0 || colon + 1 == server.size() ||
        server.substr(colon + 1).find_first_not_of("0123456789") != std::string_view::npos) {
      return fail(base::errc::invalid_argument,
                  fmt::format("metadata store URL '{}': '{}' is not host:port", url, server));
    }
    from = comma + 1;
  }
  if (!parsed.chroot.empty() && parsed.chroot.back() == '/') {
    return fail(base::errc::invalid_argument, fmt::format("metadata store URL '{}': the chroot ends with '/'", url));
  }
  return parsed;
}

}  // namespace

result<store_url> parse_store_url(std::string_view url) {
  std::string_view rest = url;
  if (rest.starts_with("metadata-store:")) rest.remove_prefix(std::string_view("metadata-store:").size());
  if (rest.empty()) return store_url{};
  if (rest.starts_with("rocksdb:")) {
    rest.remove_prefix(std::string_view("rocksdb:").size());
    if (rest.starts_with("//")) rest.remove_prefix(2);
    if (rest.empty()) {
      return fail(base::errc::invalid_argument, fmt::format("metadata store URL '{}' names no directory", url));
    }
    return store_url{.directory = std::string(rest)};
  }
  if (rest.starts_with("zk:")) {
    rest.remove_prefix(3);
    if (rest.starts_with("//")) rest.remove_prefix(2);
    return parse_zookeeper(rest, url);
  }
  if (rest.find("://") != std::string_view::npos || rest.starts_with("memory:") || rest.starts_with("etcd:")) {
    return fail(base::errc::invalid_argument,
                fmt::format("metadata store URL '{}': magnetar stores metadata in ZooKeeper (zk:host:port) or "
                            "in the embedded store (rocksdb:/path)",
                            url));
  }
  return parse_zookeeper(rest, url);
}

result<store_url> parse_metadata_service_uri(std::string_view uri) {
  std::string_view rest = uri;
  if (rest.starts_with("metadata-store:zk:")) {
    rest.remove_prefix(std::string_view("metadata-store:zk:").size());
  } else {
    const auto scheme_end = rest.find("://");
    const auto scheme = rest.substr(0, scheme_end);
    if (scheme_end == std::string_view::npos ||
        (scheme != "zk" && scheme != "zk+null" && scheme != "zk+hierarchical" && scheme != "zk+longhierarchical")) {
      return fail(base::errc::invalid_argument,
                  fmt::format("'{}' is not zk://servers/ledgers (zk+null, zk+hierarchical too) or "
                              "metadata-store:zk:servers/ledgers",
                              uri));
    }
    rest.remove_prefix(scheme_end + 3);
  }
  if (!rest.ends_with("/ledgers")) {
    return fail(base::errc::invalid_argument, fmt::format("'{}': the path must end in /ledgers", uri));
  }
  rest.remove_suffix(std::string_view("/ledgers").size());
  std::string servers_and_chroot(rest);
  // BookKeeper's URIs separate servers with ';'.
  std::replace(servers_and_chroot.begin(), servers_and_chroot.end(), ';', ',');
  return parse_zookeeper(servers_and_chroot, uri);
}

result<std::unique_ptr<store>> make_store(std::string_view url, const store_settings& settings) {
  MAGNETAR_TRY(parsed, parse_store_url(url));
  if (parsed.backend == store_url::kind::zookeeper) {
    return std::unique_ptr<store>(
        std::make_unique<zookeeper_store>(zookeeper_store::options{.servers = parsed.servers,
                                                                   .chroot = parsed.chroot,
                                                                   .session_timeout = settings.session_timeout,
                                                                   .operation_timeout = settings.operation_timeout}));
  }
  return std::unique_ptr<store>(std::make_unique<rocksdb_store>(rocksdb_store::options{
      .directory = parsed.directory.empty() ? settings.default_directory : parsed.directory, .pool = settings.pool}));
}

}  // namespace magnetar::meta
