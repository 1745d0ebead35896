// backlog_quota: a topic's destination_storage backlog quota (upstream's
// BacklogQuotaManager, size limits): the backlog is what the slowest subscription has
// not consumed, estimated in bytes at the topic's average entry size (upstream
// estimates too; storage size lags until trimming).
//
// Over the quota, by policy:
//   producer_request_hold, producer_exception: new producers are refused
//     (ProducerBlockedQuotaExceededError / ...Exception: the client holds its sends and
//     retries, or fails them), and the periodic check disconnects the producers that are
//     attached, which then meet the refusal when they come back;
//   consumer_backlog_eviction: producers are never refused; the periodic check moves the
//     slowest subscription forward until the backlog is under 90% of the quota.
// On the topic's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "mledger/managed_ledger.h"

#include <cstdint>

namespace magnetar::broker {

class topic;

// Bytes behind the slowest durable subscription (the deduplication cursor is not one).
std::uint64_t estimated_backlog_bytes(const mledger::managed_ledger& ml);

// Whether a producer may attach: errc::producer_blocked_quota_hold or
// producer_blocked_quota_exception when the backlog is over a producer-policy quota.
result<void> admit_producer(const topic& t);

// The periodic check (backlogQuotaCheckIntervalInSeconds).
void enforce_backlog_quota(topic& t);

}  // namespace magnetar::broker
