#include "mledger/range_set.h"

#include "base/assert.h"
#include "base/varint.h"

#include <algorithm>
#include <limits>
#include <string_view>

namespace magnetar::mledger {

namespace {

// Entry ids of acked positions are >= 0, and the largest is kept below INT64_MAX so that
// "last + 1" (adjacency) never overflows.
constexpr std::int64_t max_entry = std::numeric_limits<std::int64_t>::max() - 1;

void check_ackable(position p) {
  MAGNETAR_ASSERT(p.ledger().value() >= 0 && p.entry().value() >= 0 && p.entry().value() <= max_entry,
                  "position {} cannot be acknowledged", p);
}

}  // namespace

bool range_set::add(position p) { return add_range(p, p) == 1; }

std::uint64_t range_set::add_range(position first, position last) {
  check_ackable(first);
  check_ackable(last);
  MAGNETAR_ASSERT(first.ledger() == last.ledger() && first <= last,
                  "a range is one ledger's entries in order, not {}..{}", first, last);
  const ledger_id ledger = first.ledger();
  const std::int64_t lo = first.entry().value();
  std::int64_t hi = last.entry().value();

  // `host` is the range that ends up holding [lo, hi]: the one just below when it touches
  // the new range (the common case, a consecutive ack, then costs no allocation), else a
  // new node. Ranges above that the new one reaches are folded into it.
  std::uint64_t added = 0;
  auto next = _ranges.upper_bound(first);
  map_type::iterator host;
  if (next != _ranges.begin() && std::prev(next)->first.ledger() == ledger &&
      std::prev(next)->second.value() + 1 >= lo) {
    host = std::prev(next);
    if (host->second.value() >= hi) return 0;
    added = static_cast<std::uint64_t>(hi - host->second.value());
    host->second = entry_id(hi);
  } else {
    host = _ranges.emplace_hint(next, first, last.entry());
    added = static_cast<std::uint64_t>(hi - lo) + 1;
  }
  // Ranges above are apart from each other, so once one reaches past `hi` no later one
  // can touch the merged range.
  while (next != _ranges.end() && next->first.ledger() == ledger && next->first.entry().value() <= hi + 1) {
    const std::int64_t next_first = next->first.entry().value();
    const std::int64_t next_last = next->second.value();
    if (next_first <= hi) added -= static_cast<std::uint64_t>(std::min(next_last, hi) - next_first) + 1;
    if (next_last > hi) {
      hi = next_last;
      host->second = entry_id(hi);
    }
    next = _ranges.erase(next);
  }
  _size += added;
  return added;
}

bool range_set::contains(position p) const { return range_containing(p).has_value(); }

std::optional<position_range> range_set::range_containing(position p) const {
  auto it = _ranges.upper_bound(p);
  if (it == _ranges.begin()) return std::nullopt;
  --it;
  if (it->first.ledger() != p.ledger() || it->second < p.entry()) return std::nullopt;
  return position_range{it->first, {it->first.ledger(), it->second}};
}

void range_set::remove_up_to(position p) {
  const auto keep = _ranges.upper_bound(p);
  // Only the last range starting at or below `p` can reach past it.
  map_type::node_type straddling;
  if (keep != _ranges.begin()) {
    const auto last = std::prev(keep);
    if (last->first.ledger() == p.ledger() && last->second > p.entry()) {
      _size -= static_cast<std::uint64_t>(p.entry().value() - last->first.entry().value()) + 1;
      straddling = _ranges.extract(last);
      straddling.key() = p.next_in_ledger();
    }
  }
  for (auto it = _ranges.begin(); it != keep;) {
    _size -= static_cast<std::uint64_t>(it->second.value() - it->first.entry().value()) + 1;
    it = _ranges.erase(it);
  }
  if (!straddling.empty()) _ranges.insert(keep, std::move(straddling));
}

void range_set::clear() {
  _ranges.clear();
  _size = 0;
}

std::uint64_t range_set::size_in_ledger(ledger_id ledger) const {
  std::uint64_t count = 0;
  for (auto it = _ranges.lower_bound(position(ledger, entry_id(std::numeric_limits<std::int64_t>::min())));
       it != _ranges.end() && it->first.ledger() == ledger; ++it) {
    count += static_cast<std::uint64_t>(it->second.value() - it->first.entry().value()) + 1;
  }
  return count;
}

std::optional<position_range> range_set::first_range() const {
  if (_ranges.empty()) return std::nullopt;
  return *begin();
}

std::optional<position_range> range_set::last_range() const {
  if (_ranges.empty()) return std::nullopt;
  return *std::prev(end());
}

std::size_t range_set::memory_bytes() const {
  // A std::map node is three pointers and a colour word ahead of the value; glibc's malloc
  // adds an 8-byte header and rounds to 16.
  constexpr std::size_t node = 4 * sizeof(void*) + sizeof(map_type::value_type);
  constexpr std::size_t chunk = (node + 8 + 15) / 16 * 16;
  return sizeof(*this) + _ranges.size() * chunk;
}

// The persisted form, version 1. Every number is an unsigned LEB128 varint, and every
// number is a difference, so the typical set (a few ranges in one or two ledgers near the
// mark-delete position) takes a handful of bytes:
//
//   u8      version = 1
//   varint  ledger count
//   per ledger, ascending:
//     varint  ledger id (the first), else ledger id - previous ledger id - 1
//     varint  range count (>= 1)
//     per range, ascending:
//       varint  first entry (the first range), else first - previous last - 2
//               (ranges of a ledger are apart by at least one entry)
//       varint  last - first
//
// Every byte string that decodes is a canonical set, so decode needs no merging.
namespace {

constexpr std::uint8_t format_version = 1;

class reader {
 public:
  explicit reader(std::span<const std::byte> bytes) : _bytes(bytes) {}

  bool at_end() const { return _offset == _bytes.size(); }

  std::optional<std::uint64_t> varint() {
    const auto r = base::read_varint(_bytes.subspan(_offset), base::varint_rules::exact);
    if (r.status != base::varint_status::ok) return std::nullopt;
    _offset += r.size;
    return r.value;
  }

  std::optional<std::uint8_t> byte() {
    if (_offset == _bytes.size()) return std::nullopt;
    return static_cast<std::uint8_t>(_bytes[_offset++]);
  }

 private:
  std::span<const std::byte> _bytes;
  std::size_t _offset = 0;
};

auto corrupt(std::string_view what) { return fail(base::errc::corrupt_data, fmt::format("range set: {}", what)); }

// base + delta + step when the sum stays within `limit`, else nothing. Computed wide, so
// no varint read from disk can overflow it.
std::optional<std::int64_t> checked_sum(std::int64_t base, std::uint64_t delta, std::int64_t step, std::int64_t limit) {
  const __int128 sum = static_cast<__int128>(base) + delta + step;
  if (sum > limit) return std::nullopt;
  return static_cast<std::int64_t>(sum);
}

}  // namespace

range_set::serialized range_set::serialize(std::size_t max_ranges) const {
  serialized out;
  out.ranges_written = std::min(max_ranges, _ranges.size());
  out.ranges_dropped = _ranges.size() - out.ranges_written;
  const auto stop = std::next(_ranges.begin(), static_cast<std::ptrdiff_t>(out.ranges_written));

  std::uint64_t ledgers = 0;
  for (auto it = _ranges.begin(); it != stop; ++it) {
    if (it == _ranges.begin() || std::prev(it)->first.ledger() != it->first.ledger()) ++ledgers;
  }
  out.bytes.reserve(2 + out.ranges_written * 3);
  out.bytes.push_back(static_cast<std::byte>(format_version));
  base::append_varint(out.bytes, ledgers);

  std::int64_t previous_ledger = -1;
  for (auto group = _ranges.begin(); group != stop;) {
    const ledger_id ledger = group->first.ledger();
    auto group_end = group;
    std::uint64_t count = 0;
    while (group_end != stop && group_end->first.ledger() == ledger) ++group_end, ++count;

    base::append_varint(out.bytes, static_cast<std::uint64_t>(ledger.value() - previous_ledger - 1));
    base::append_varint(out.bytes, count);
    std::int64_t previous_last = -2;
    for (auto it = group; it != group_end; ++it) {
      const std::int64_t first = it->first.entry().value();
      base::append_varint(out.bytes, static_cast<std::uint64_t>(first - previous_last - 2));
      base::append_varint(out.bytes, static_cast<std::uint64_t>(it->second.value() - first));
      previous_last = it->second.value();
    }
    previous_ledger = ledger.value();
    group = group_end;
  }
  return out;
}

result<range_set> range_set::deserialize(std::span<const std::byte> bytes) {
  constexpr std::int64_t max_ledger = std::numeric_limits<std::int64_t>::max();
  reader in(bytes);
  const auto version = in.byte();
  if (!version) return corrupt("no bytes");
  if (*version != format_version) return corrupt(fmt::format("unknown format version {}", *version));
  const auto ledgers = in.varint();
  if (!ledgers) return corrupt("truncated ledger count");

  range_set set;
  std::int64_t previous_ledger = -1;
  for (std::uint64_t l = 0; l < *ledgers; ++l) {
    const auto delta = in.varint();
    const auto count = in.varint();
    if (!delta || !count) return corrupt("truncated ledger header");
    const auto ledger = checked_sum(previous_ledger, *delta, 1, max_ledger);
    if (!ledger) return corrupt("ledger id out of range");
    if (*count == 0) return corrupt(fmt::format("ledger {} without ranges", *ledger));

    std::int64_t previous_last = -2;
    for (std::uint64_t r = 0; r < *count; ++r) {
      const auto gap = in.varint();
      const auto length = in.varint();
      if (!gap || !length) return corrupt(fmt::format("truncated range in ledger {}", *ledger));
      const auto first = checked_sum(previous_last, *gap, 2, max_entry);
      const auto last = first ? checked_sum(*first, *length, 0, max_entry) : std::nullopt;
      if (!last) return corrupt(fmt::format("entry id out of range in ledger {}", *ledger));
      set._ranges.emplace_hint(set._ranges.end(), position(ledger_id(*ledger), entry_id(*first)), entry_id(*last));
      set._size += static_cast<std::uint64_t>(*last - *first) + 1;
      previous_last = *last;
    }
    previous_ledger = *ledger;
  }
  if (!in.at_end()) return corrupt("trailing bytes");
  return set;
}

}  // namespace magnetar::mledger
