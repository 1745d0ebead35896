// What the handlers share: running a request's work as a coroutine that keeps the
// connection alive, and the checks of required fields.
#pragma once

#include "broker/api/protocol_error.h"
#include "broker/protocol/connection.h"
#include "io/run_on.h"

#include <fmt/format.h>

#include <memory>
#include <string_view>

namespace magnetar::broker::handlers {

// Starts `work()` (a coroutine returning awaitable<void>) on the connection's shard,
// holding the connection until it ends.
template <class F>
void start_request(connection& conn, F work) {
  io::spawn(conn.shard().executor(),
            [self = conn.shared_from_this(), work = std::move(work)]() mutable { return work(self); });
}

// Answers a request whose required field is missing; true when it was missing.
inline bool missing(connection& conn, bool present, std::uint64_t request_id, std::string_view command,
                    std::string_view field) {
  if (present) return false;
  conn.send(error_frame(request_id, proto::UnknownError, fmt::format("{} without {}", command, field)));
  return true;
}

}  // namespace magnetar::broker::handlers
