// managed_cursor: a subscription's place in a managed ledger (Pulsar's ManagedCursorImpl;
// NonDurableCursorImpl when non-durable).
//
// Three things describe it: the mark-delete position (every entry at or before it is
// acknowledged: cumulative acks move it), the individually acknowledged entries after
// it (a range_set), and the read position (the next entry a read returns). Individual
// acks that close the gap after the mark-delete position move it forward, across ledger
// boundaries. Reads skip entries already acknowledged, so a rewind() redelivers only what
// is unacknowledged.
//
// A durable cursor persists its mark-delete position, acked ranges and properties to the
// metadata store, but not on every ack: the managed ledger's tick writes the cursors whose
// state changed (at most once per tick_interval), and close() writes them all. A crash
// therefore forgets at most the acks of the last tick: those messages are delivered again
// (at-least-once); no message is ever lost, because acks only shrink what is redelivered.
// reset() persists at once, since it may move the mark-delete position backwards.
//
// Owned by its managed ledger, on the same shard; not thread-safe. The pointer stays
// valid until delete_cursor() or the managed ledger's end.
#pragma once

#include "base/result.h"
#include "io/asio.h"
#include "mledger/managed_ledger.h"
#include "mledger/metadata.h"
#include "mledger/position.h"
#include "mledger/range_set.h"
#include "mledger/serial_lock.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace magnetar::mledger {

struct cursor_stats {
  std::string name;
  bool durable = true;
  position read_position;
  position mark_delete_position;
  std::uint64_t backlog = 0;
  std::size_t individually_deleted_ranges = 0;
  std::uint64_t persists = 0;  // writes to the metadata store so far
};

class managed_cursor {
 public:
  const std::string& name() const { return _name; }
  durability durability_kind() const { return _kind; }
  bool is_durable() const { return _kind == durability::durable; }

  // The next entry a read returns (it may not exist yet: the next add's position).
  position read_position() const { return _read; }
  position mark_delete_position() const { return _mark_delete; }
  const range_set& individually_deleted() const { return _acked; }

  // Up to max_entries unacknowledged entries from the read position, which moves past
  // them; bounded by max_bytes as managed_ledger::read_entries. Empty when none is there.
  awaitable<result<std::vector<entry>>> read_entries(std::size_t max_entries,
                                                     std::size_t max_bytes = std::numeric_limits<std::size_t>::max());
  bool has_more_entries() const;
  // Completes once has_more_entries() (at once when it is); errc::closed when the
  // managed ledger closes first.
  awaitable<result<void>> wait_for_entries();

  // Cumulative ack: every entry up to `p` is acknowledged. A position at or before the
  // current mark-delete position changes nothing; one past the last entry is
  // errc::invalid_position.
  result<void> mark_delete(position p);
  // Individual ack of one entry (upstream's delete).
  result<void> delete_entry(position p);

  // A batch entry after the mark-delete position that is partly acknowledged: the bit set
  // of its messages still unacknowledged (1: not yet). Persisted with the cursor, and
  // forgotten once the entry is acknowledged whole (mark_delete, delete_entry, reset).
  void set_batch_ack_set(position p, std::vector<std::int64_t> unacked);
  // The bit set of a partly acknowledged entry; null when it has none.
  const std::vector<std::int64_t>* batch_ack_set(position p) const;

  // Reads start again after the mark-delete position (redelivery of what is unacked).
  void rewind();
  // Moves the cursor so the next read returns `p` (or the first entry after it): the
  // mark-delete position becomes the entry before it and the individual acks are
  // forgotten, as upstream's resetCursor does. position::earliest() and latest() seek to
  // the first entry and past the last. Persisted at once for a durable cursor.
  awaitable<result<void>> reset(position p);

  // Entries after the mark-delete position that are not individually acknowledged.
  std::uint64_t backlog() const;

  const std::map<std::string, std::string>& properties() const { return _properties; }
  void set_property(std::string key, std::string value);
  // Replaces them all (a snapshot kept in the properties, which forgets keys too).
  void set_properties(std::map<std::string, std::string> properties);

  // Writes the state now when it changed since the last write (durable cursors only).
  awaitable<result<void>> persist();
  bool has_unpersisted_changes() const { return _dirty; }
  cursor_stats stats() const;

 private:
  friend class managed_ledger;
  managed_cursor(managed_ledger& ml, std::string name, durability kind, cursor_info info, std::int64_t version);

  // Moves the mark-delete position over acked entries that follow it.
  void collapse();
  void changed();

  managed_ledger& _ml;
  const std::string _name;
  const durability _kind;
  position _mark_delete;
  position _read;
  range_set _acked;
  std::map<position, std::vector<std::int64_t>> _batch_ack_sets;
  std::map<std::string, std::string> _properties;
  std::int64_t _version;  // of the cursor's node; -1 before the first write
  bool _dirty = false;
  std::uint64_t _persists = 0;
  serial_lock _persist_lock;
};

}  // namespace magnetar::mledger
