// protocol_error: the one place where an error becomes the protocol's ServerError.
//
// Every failure a client sees goes through here, so the code it branches on (retry
// after a lookup on ServiceNotReady, give up on TopicNotFound...) and the message it
// shows are consistent. Also the builders of the reply frames that carry errors.
// Pure functions; thread-safe.
#pragma once

#include "base/error.h"
#include "proto/pulsar_api.pb.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace magnetar::broker {

proto::ServerError server_error_of(const error& e);
// What the client shows: the error's detail, or its code's description without one.
std::string message_of(const error& e);

std::vector<std::byte> error_frame(std::uint64_t request_id, proto::ServerError code, const std::string& message);
std::vector<std::byte> error_frame(std::uint64_t request_id, const error& e);
std::vector<std::byte> success_frame(std::uint64_t request_id);

}  // namespace magnetar::broker
