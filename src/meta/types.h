// The values that cross the metadata store's interface: a node's stat, a
// value with its stat, create options, change notifications, session events.
//
// They follow Pulsar's org.apache.pulsar.metadata.api (Stat, GetResult,
// CreateOption, Notification, SessionEvent) so that broker logic ported from
// upstream reads the same. Plain value types; not shared unless copied.
#pragma once

#include "base/strong_id.h"

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace magnetar::meta {

// A client session that ephemeral nodes belong to. Unique across restarts of
// a store, so a node left by a dead process never matches a live session.
using session_id = base::strong_id<struct session_id_tag, std::int64_t>;

// The owner of persistent nodes.
inline constexpr session_id no_session{0};

struct stat {
  std::string path;             // the node's real path (with the counter of a sequential create)
  std::int64_t version = 0;     // 0 at creation, +1 per put
  std::int64_t created_ms = 0;  // wall-clock milliseconds since the Unix epoch
  std::int64_t modified_ms = 0;
  bool ephemeral = false;
  session_id owner = no_session;  // the session of an ephemeral node

  friend bool operator==(const stat&, const stat&) = default;
};

struct versioned_value {
  std::string value;
  stat st;

  friend bool operator==(const versioned_value&, const versioned_value&) = default;
};

// Apply only when a put creates the node; a put over an existing node keeps
// its kind (as ZooKeeper's setData does).
struct create_options {
  // The node lives as long as this session (see store::open_session).
  std::optional<session_id> ephemeral;
  // The store appends a counter, unique and increasing within the parent, to
  // the path given (a prefix); the put's stat names the real path.
  bool sequential = false;
};

enum class notification_type { created, modified, deleted, children_changed };

struct notification {
  notification_type type;
  std::string path;

  friend bool operator==(const notification&, const notification&) = default;
};

// The state of the store's connection and session. The embedded store never
// loses either; a ZooKeeper backend reports what its client sees, and the
// broker reacts (e.g. gives up ownership on session_lost).
enum class session_event { connection_lost, reconnected, session_lost, session_reestablished };

std::string_view to_string(notification_type type);
std::string_view to_string(session_event event);

// GoogleTest and logs print these readably.
std::ostream& operator<<(std::ostream& out, notification_type type);
std::ostream& operator<<(std::ostream& out, const notification& n);
std::ostream& operator<<(std::ostream& out, const stat& st);
std::ostream& operator<<(std::ostream& out, session_event event);

}  // namespace magnetar::meta
