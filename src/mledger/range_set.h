// range_set: the positions a cursor has acknowledged individually, beyond its
// mark-delete position (Pulsar's ManagedCursorImpl.individualDeletedMessages).
//
// Consumers ack out of order (Shared subscriptions, negative acks, redeliveries), so a
// cursor keeps the acks above its mark-delete position until the gap below them closes.
// They are kept as ranges of consecutive entries, merged on every add, so a million
// consecutive acks take one range and memory grows with the number of holes, not acks.
//
// A range never crosses a ledger: entry ids of different ledgers are not contiguous by
// arithmetic (5:9 may be followed by 7:0, and only the managed ledger knows that), so
// 5:9 and 7:0 are two ranges here even when nothing lies between them in the topic.
// A caller acking a span over several ledgers adds one range per ledger.
//
// Upstream writes ranges open-closed, (5:3, 5:9] meaning entries 4..9 of ledger 5; here
// ranges are closed, [5:4, 5:9]; `position_range::open_lower()` gives upstream's form.
//
// Owned by the cursor, on its topic's shard; not thread-safe.
#pragma once

#include "base/result.h"
#include "mledger/position.h"

#include <fmt/format.h>

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <optional>
#include <ostream>
#include <span>
#include <vector>

namespace magnetar::mledger {

// Entries first..last of one ledger, both included.
struct position_range {
  position first;
  position last;

  ledger_id ledger() const { return first.ledger(); }
  std::uint64_t size() const { return static_cast<std::uint64_t>(last.entry().value() - first.entry().value()) + 1; }
  // Upstream's exclusive lower endpoint: (L, first - 1).
  position open_lower() const { return {first.ledger(), entry_id(first.entry().value() - 1)}; }

  friend bool operator==(const position_range&, const position_range&) = default;
};

// Pulsar's managedLedgerMaxUnackedRangesToPersist.
inline constexpr std::size_t default_max_ranges_to_persist = 10'000;

class range_set {
  // first position of a range -> its last entry (same ledger).
  using map_type = std::map<position, entry_id>;

 public:
  class const_iterator {
   public:
    using iterator_category = std::bidirectional_iterator_tag;
    using value_type = position_range;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = position_range;

    const_iterator() = default;
    position_range operator*() const { return {_it->first, {_it->first.ledger(), _it->second}}; }
    const_iterator& operator++() { return ++_it, *this; }
    const_iterator operator++(int) { return const_iterator(_it++); }
    const_iterator& operator--() { return --_it, *this; }
    const_iterator operator--(int) { return const_iterator(_it--); }
    friend bool operator==(const const_iterator&, const const_iterator&) = default;

   private:
    friend class range_set;
    explicit const_iterator(map_type::const_iterator it) : _it(it) {}
    map_type::const_iterator _it;
  };

  // Adds one position; false when it was already in the set.
  bool add(position p);
  // Adds entries first..last of one ledger (asserted: same ledger, first <= last, both
  // entries >= 0). Returns how many of them were not in the set before.
  std::uint64_t add_range(position first, position last);

  bool contains(position p) const;
  // The merged range that holds `p`, if any.
  std::optional<position_range> range_containing(position p) const;

  // Forgets every position <= `p`: the mark-delete position moved to `p`, and acks at or
  // below it are implied from now on.
  void remove_up_to(position p);
  void clear();

  bool empty() const { return _ranges.empty(); }
  std::size_t range_count() const { return _ranges.size(); }
  // How many positions the set holds.
  std::uint64_t size() const { return _size; }
  std::uint64_t size_in_ledger(ledger_id ledger) const;

  std::optional<position_range> first_range() const;
  std::optional<position_range> last_range() const;
  const_iterator begin() const { return const_iterator(_ranges.begin()); }
  const_iterator end() const { return const_iterator(_ranges.end()); }

  // Heap bytes held, estimated from the range count (one tree node per range), for
  // metrics and the benchmark's comparison with the measured figure.
  std::size_t memory_bytes() const;

  // The persisted form (for the cursor's ledger or its metadata record). At most
  // `max_ranges` ranges are written: the lowest ones, nearest the mark-delete position,
  // as upstream does. The ranges beyond are dropped, which only forgets acks: a cursor
  // recovered from this copy delivers those messages again (at-least-once, duplicates but
  // no loss). `ranges_dropped` lets the cursor say so (upstream's
  // isCursorDataFullyPersistable) and keep the full set in memory meanwhile.
  struct serialized {
    std::vector<std::byte> bytes;
    std::size_t ranges_written = 0;
    std::size_t ranges_dropped = 0;
  };
  serialized serialize(std::size_t max_ranges = default_max_ranges_to_persist) const;
  // base::errc::corrupt_data for bytes that serialize() could not have written.
  static result<range_set> deserialize(std::span<const std::byte> bytes);

  friend bool operator==(const range_set& a, const range_set& b) { return a._ranges == b._ranges; }

 private:
  map_type _ranges;
  std::uint64_t _size = 0;
};

}  // namespace magnetar::mledger

// "[5:4..5:9]"
template <>
struct fmt::formatter<magnetar::mledger::position_range> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  auto format(const magnetar::mledger::position_range& r, fmt::format_context& ctx) const {
    return fmt::format_to(ctx.out(), "[{}..{}]", r.first, r.last);
  }
};

// "{[5:0..5:3], [7:0..7:0]}", for logs and failed test expectations.
template <>
struct fmt::formatter<magnetar::mledger::range_set> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  auto format(const magnetar::mledger::range_set& set, fmt::format_context& ctx) const {
    auto out = fmt::format_to(ctx.out(), "{{");
    bool first = true;
    for (const auto& r : set) {
      out = fmt::format_to(out, "{}{}", first ? "" : ", ", r);
      first = false;
    }
    return fmt::format_to(out, "}}");
  }
};

namespace magnetar::mledger {

inline std::ostream& operator<<(std::ostream& out, const position_range& r) { return out << fmt::format("{}", r); }
inline std::ostream& operator<<(std::ostream& out, const range_set& set) { return out << fmt::format("{}", set); }

}  // namespace magnetar::mledger
