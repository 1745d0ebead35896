// consumer_config_check: the consumer settings subscribe refuses, with upstream's limits,
// checked before anything is sent so a bad setting fails at once with invalid_argument.
// Pure function; thread-safe.
#pragma once

#include "base/result.h"
#include "magnetar/config.h"

namespace magnetar::client_detail {

// Errors (client_errc::invalid_argument): an ack timeout below 1 s (other than 0) or a
// non-positive tick with it; Key_Shared sticky ranges that are empty, outside 0..65535,
// reversed or overlapping; a negative max_redeliver_count.
result<void> check_consumer_config(const consumer_config& c);

}  // namespace magnetar::client_detail
