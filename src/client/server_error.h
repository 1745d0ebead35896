// server_error: the one place where the protocol's ServerError becomes a client_errc.
// Pure functions; thread-safe.
#pragma once

#include "base/error.h"
#include "magnetar/errc.h"
#include "proto/pulsar_api.pb.h"

#include <string_view>

namespace magnetar::client_detail {

client_errc to_client_errc(proto::ServerError e);

// The error with the broker's message as detail, prefixed with what was asked.
error server_failure(proto::ServerError e, std::string_view message, std::string_view context);

// Errors worth another attempt after a backoff (the topic moving, the broker busy or not
// reachable); the others are final for a producer or consumer.
bool is_retriable(const error& e);

}  // namespace magnetar::client_detail
