// deduplication: a topic's producer deduplication (upstream's MessageDeduplication).
//
// Per producer name, the highest sequence id pushed (accepted for persistence) and the
// highest persisted. A SEND whose sequence id is at or below the pushed one is not
// stored again: when it is at or below the persisted one it is a duplicate (answered
// with a receipt for message id -1:-1), otherwise it is still in flight and whether it
// will persist is not known yet (answered with a PersistenceError, so the client
// resends later and then learns). Producers resume their numbering from
// last_sequence_id() (PRODUCER_SUCCESS carries it).
//
// Durability: every brokerDeduplicationEntriesInterval persisted entries, and before the
// topic closes, the persisted map is snapshotted as the properties of the cursor
// "pulsar.dedup", whose mark-delete position is the snapshot's last entry. Enabling
// (topic load, or a policy change) opens that cursor, reads the snapshot, and replays
// the entries after it, reading each one's producer_name and sequence ids from its
// metadata: after a crash nothing acknowledged is forgotten. The cursor holds back
// trimming up to the snapshot only, as upstream's does, and is also snapshotted on a
// timer so that a quiet topic's trimming is not held back. Disabling deletes the cursor
// and forgets the maps.
//
// Owned by its topic, on the topic's shard; not thread-safe.
#pragma once

#include "base/clock.h"
#include "base/result.h"
#include "broker/api/broker_config.h"
#include "io/asio.h"
#include "mledger/managed_cursor.h"
#include "mledger/managed_ledger.h"
#include "mledger/position.h"
#include "mledger/serial_lock.h"
#include "proto/pulsar_api.pb.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace magnetar::broker {

// The name deduplication tracks an entry's sequence ids under: its producer's, or, for
// an entry another cluster replicated here, "<cluster>/<original producer>": a
// replicator forwards many producers' entries, each under its own sequence ids, which
// a resend after a reconnect repeats.
std::string dedup_name(const proto::MessageMetadata& m);

class deduplication {
 public:
  enum class status { disabled, recovering, enabled, removing, failed };
  enum class verdict { publish, duplicate, unknown };

  deduplication(mledger::managed_ledger& ml, const broker_config& config, std::string topic_name);

  // Brings the state to `on`: opens the cursor and recovers the maps, or deletes the
  // cursor and forgets them. Calls are serialised; one that finds the state right does
  // nothing. On failure the status is `failed` and a later call tries again.
  awaitable<result<void>> set_enabled(bool on);

  bool enabled() const { return _status == status::enabled; }
  status current() const { return _status; }
  // Upstream's deduplicationStatus words.
  std::string_view status_name() const;

  // Before appending a SEND (`sequence_id` its first, `highest` its last id).
  verdict check(const std::string& producer, std::int64_t sequence_id, std::int64_t highest);
  // After the entry persisted at `at`; snapshots every entries-interval.
  void persisted(const std::string& producer, std::int64_t highest, mledger::position at);
  // The append failed: what was pushed but not persisted may be sent again.
  void publish_failed(const std::string& producer);
  // The highest sequence id accepted from `producer`, -1 when none (or when off).
  std::int64_t last_sequence_id(const std::string& producer) const;

  // Snapshots now (the topic closes next; the managed ledger's close persists it).
  void snapshot();
  // The time-based snapshot (brokerDeduplicationSnapshotIntervalSeconds): one when
  // entries persisted since the last.
  void snapshot_if_behind();
  // Forgets producer names not among `connected` at any call for longer than `timeout`
  // (brokerDeduplicationProducerInactivityTimeoutMinutes), as upstream bounds the maps.
  // Inactivity is measured in the caller's ticks.
  void purge_inactive(const std::vector<std::string>& connected, base::clock::time_point now,
                      base::clock::duration timeout);

 private:
  awaitable<result<void>> enable();
  awaitable<result<void>> disable();
  awaitable<result<void>> replay_after(mledger::position from);
  void record(const std::string& producer, std::int64_t highest);

  mledger::managed_ledger& _ml;
  const broker_config& _config;
  const std::string _topic;
  status _status = status::disabled;
  mledger::managed_cursor* _cursor = nullptr;
  mledger::serial_lock _changing;
  std::unordered_map<std::string, std::int64_t> _pushed;
  std::unordered_map<std::string, std::int64_t> _persisted;
  mledger::position _last_persisted = mledger::position::earliest();
  std::int64_t _since_snapshot = 0;
  std::unordered_map<std::string, base::clock::time_point> _last_seen;
};

}  // namespace magnetar::broker
