// The ids a client picks for its producers and consumers on one connection (PRODUCER's
// producer_id, SUBSCRIBE's consumer_id), as types of their own so that the broker never
// looks one up as the other. They arrive in and go back out in the protocol's uint64
// fields: wrap at the decode, .value() at the encode. A plain value type.
#pragma once

#include "base/strong_id.h"

#include <cstdint>

namespace magnetar::broker {

using producer_id = base::strong_id<struct producer_id_tag, std::uint64_t>;
using consumer_id = base::strong_id<struct consumer_id_tag, std::uint64_t>;

}  // namespace magnetar::broker
