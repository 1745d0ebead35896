// serve_request: what a bookie does for one request of the bookie protocol
// (proto/bookie_protocol.proto), and the answer, with the bookie's errors as
// BookKeeper's status codes. One function per operation, in the .cc.
// Thread-safety: as bookie (any shard).
#pragma once

#include "bookie/bookie.h"
#include "io/asio.h"
#include "proto/bookie_protocol.pb.h"

#include <string>

namespace magnetar::bookie {

struct request_context {
  std::string bookie_id;
  bool read_only = false;
};

awaitable<bookie_protocol::response> serve_request(bookie& b, request_context context,
                                                   bookie_protocol::request request);

// The status code that stands for a bookie error.
bookie_protocol::status_code status_of(const error& e);

}  // namespace magnetar::bookie
