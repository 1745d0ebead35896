#include "meta/types.h"

namespace magnetar::meta {

std::string_view to_string(notification_type type) {
  switch (type) {
    case notification_type::created: return "created";
    case notification_type::modified: return "modified";
    case notification_type::deleted: return "deleted";
    case notification_type::children_changed: return "children_changed";
  }
  return "unknown";
}

std::string_view to_string(session_event event) {
  switch (event) {
    case session_event::connection_lost: return "connection_lost";
    case session_event::reconnected: return "reconnected";
    case session_event::session_lost: return "session_lost";
    case session_event::session_reestablished: return "session_reestablished";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& out, notification_type type) { return out << to_string(type); }

std::ostream& operator<<(std::ostream& out, const notification& n) { return out << to_string(n.type) << ' ' << n.path; }

std::ostream& operator<<(std::ostream& out, const stat& st) {
  out << st.path << " v" << st.version << " created " << st.created_ms << " modified " << st.modified_ms;
  if (st.ephemeral) out << " ephemeral of session " << st.owner.value();
  return out;
}

std::ostream& operator<<(std::ostream& out, session_event event) { return out << to_string(event); }

}  // namespace magnetar::meta
