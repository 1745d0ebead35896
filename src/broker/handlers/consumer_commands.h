// Finding the consumer a command names, for the consumer-side handlers.
#pragma once

#include "broker/connection.h"
#include "broker/consumer.h"

#include <memory>

namespace magnetar::broker::handlers {

// The consumer with this id on the connection, or null (closed ones count as gone).
inline std::shared_ptr<consumer> find_consumer(connection& conn, std::uint64_t consumer_id) {
  auto it = conn.consumers().find(consumer_id);
  if (it == conn.consumers().end() || it->second->closed()) return nullptr;
  return it->second;
}

}  // namespace magnetar::broker::handlers
