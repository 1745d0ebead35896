// position: where an entry sits in a managed ledger, (ledger id, entry id).
//
// The same pair Pulsar's Position and a message id's first two fields carry. Positions
// are ordered by ledger, then entry; that order is the order of the topic, because a
// managed ledger only ever appends to a ledger with a higher id than the last. Entry ids
// are not contiguous across ledgers: (5, 9) may be followed by (7, 0), so no arithmetic
// crosses a ledger boundary here; the managed ledger, which knows its ledgers, does that.
//
// The sentinels are upstream's: earliest() = (-1, -1) sorts before every real position
// ("before everything": a cursor at earliest has consumed nothing), latest() = (max, max)
// after every one. (L, -1) means "before the first entry of ledger L".
// A plain value type; thread-compatible.
#pragma once

#include "base/ids.h"

#include <fmt/format.h>

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

namespace magnetar::mledger {

class position {
 public:
  // Default-constructed is earliest(): "nothing yet" is never mistaken for entry 0:0.
  constexpr position() = default;
  constexpr position(ledger_id ledger, entry_id entry) : _ledger(ledger), _entry(entry) {}

  static constexpr position earliest() { return {}; }
  static constexpr position latest() {
    constexpr auto max = std::numeric_limits<std::int64_t>::max();
    return {ledger_id(max), entry_id(max)};
  }

  constexpr ledger_id ledger() const { return _ledger; }
  constexpr entry_id entry() const { return _entry; }

  // The next entry of the same ledger; whether it exists is the managed ledger's business.
  constexpr position next_in_ledger() const { return {_ledger, entry_id(_entry.value() + 1)}; }

  friend constexpr auto operator<=>(const position&, const position&) = default;

 private:
  ledger_id _ledger{-1};
  entry_id _entry{-1};
};

}  // namespace magnetar::mledger

template <>
struct std::hash<magnetar::mledger::position> {
  std::size_t operator()(const magnetar::mledger::position& p) const noexcept {
    // splitmix64's finaliser: consecutive entries of one ledger spread over all buckets.
    std::uint64_t x = static_cast<std::uint64_t>(p.ledger().value()) * 0x9e3779b97f4a7c15ULL ^
                      static_cast<std::uint64_t>(p.entry().value());
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return static_cast<std::size_t>(x ^ (x >> 31));
  }
};

// "ledger:entry", as Pulsar prints a position.
template <>
struct fmt::formatter<magnetar::mledger::position> {
  constexpr auto parse(fmt::format_parse_context& ctx) { return ctx.begin(); }
  auto format(const magnetar::mledger::position& p, fmt::format_context& ctx) const {
    return fmt::format_to(ctx.out(), "{}:{}", p.ledger(), p.entry());
  }
};

namespace magnetar::mledger {

// GoogleTest prints positions through this.
inline std::ostream& operator<<(std::ostream& out, const position& p) { return out << fmt::format("{}", p); }

}  // namespace magnetar::mledger
