// Errors of the metadata store: what a get, put, remove or session call can
// fail with, whichever backend (embedded RocksDB, ZooKeeper) serves it.
//
// Values are stable: they are logged, compared by callers (a broker retries a
// put that failed with bad_version after re-reading) and by tests. Each maps
// to the Pulsar MetadataStoreException subclass named beside it.
// Thread-safety: plain values and pure functions.
#pragma once

#include "base/error_category.h"

#include <string_view>
#include <system_error>

namespace magnetar::meta {

enum class errc {
  ok = 0,
  invalid_path,      // malformed path, or the root where a node is needed (InvalidPathException)
  not_found,         // remove of a path that does not exist (NotFoundException)
  bad_version,       // expected version differs, or -1 given and the node exists (BadVersionException)
  not_empty,         // remove of a node that has children (NotEmptyException in ZooKeeper)
  ephemeral_parent,  // a node under an ephemeral node: ephemerals can't have children
  unknown_session,   // an ephemeral put or close_session for a session that isn't open
  not_started,       // an operation before start() succeeded
  corrupt_record,    // a stored record fails its format check
  backend_error,     // the backend (RocksDB, ZooKeeper) failed; its own message is in the detail
  connection_lost,   // ZooKeeper's connection broke mid-call and the write's outcome is unknown (ConnectionLoss)
  session_expired,   // the ZooKeeper session ended; its ephemeral nodes are gone (SessionExpired)
  value_too_large,   // a value past the backend's limit (ZooKeeper's jute.maxbuffer)
  unavailable,       // no server answered within the operation timeout
};

constexpr std::string_view category_name(errc) { return "magnetar.meta"; }
std::string_view describe(errc e);

inline std::error_code make_error_code(errc e) { return base::make_enum_error_code(e); }

}  // namespace magnetar::meta

template <>
struct std::is_error_code_enum<magnetar::meta::errc> : std::true_type {};
