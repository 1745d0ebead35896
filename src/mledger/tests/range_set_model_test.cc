// range_set against the obvious model, a std::set of positions, under random operations
// with a fixed seed: a small domain (four ledgers of 64 entries) so that merges, holes,
// trims and ledger boundaries all happen often.
#include "mledger/range_set.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

namespace magnetar::mledger {
namespace {

constexpr std::int64_t ledgers[] = {1, 2, 4, 7};
constexpr std::int64_t entries_per_ledger = 64;

class model {
 public:
  std::uint64_t add_range(position first, position last) {
    std::uint64_t added = 0;
    for (auto e = first.entry().value(); e <= last.entry().value(); ++e) {
      added += _positions.insert({first.ledger(), entry_id(e)}).second ? 1 : 0;
    }
    return added;
  }
  void remove_up_to(position p) { _positions.erase(_positions.begin(), _positions.upper_bound(p)); }
  bool contains(position p) const { return _positions.contains(p); }
  std::size_t size() const { return _positions.size(); }

  // Maximal runs of consecutive entries within a ledger.
  std::vector<position_range> ranges() const {
    std::vector<position_range> out;
    for (const auto& p : _positions) {
      if (!out.empty() && out.back().last.ledger() == p.ledger() &&
          out.back().last.entry().value() + 1 == p.entry().value()) {
        out.back().last = p;
      } else {
        out.push_back({p, p});
      }
    }
    return out;
  }

 private:
  std::set<position> _positions;
};

class random_positions {
 public:
  explicit random_positions(std::uint32_t seed) : _random(seed) {}

  position any() { return {ledger_id(ledgers[pick(0, 3)]), entry_id(pick(0, entries_per_ledger - 1))}; }
  // Sometimes a position between ledgers or before the first entry, for remove_up_to.
  position any_boundary() {
    if (pick(0, 9) == 0) return {ledger_id(pick(0, 8)), entry_id(-1)};
    return any();
  }
  std::int64_t pick(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(_random);
  }

 private:
  std::mt19937 _random;
};

void expect_same(const range_set& set, const model& m, int step) {
  ASSERT_EQ(std::vector<position_range>(set.begin(), set.end()), m.ranges()) << "after step " << step;
  ASSERT_EQ(set.size(), m.size()) << "after step " << step;
  ASSERT_EQ(set.range_count(), m.ranges().size()) << "after step " << step;
}

TEST(range_set_model, matches_a_set_of_positions_under_random_operations) {
  range_set set;
  model m;
  random_positions random(20240611);
  std::size_t most_ranges = 0;
  for (int step = 0; step < 20'000; ++step) {
    const auto op = random.pick(0, 99);
    if (op < 55) {
      const auto p = random.any();
      ASSERT_EQ(set.add(p), m.add_range(p, p) == 1) << "add " << p << " at step " << step;
    } else if (op < 80) {
      const auto first = random.any();
      const auto length = random.pick(0, 12);
      const auto last_entry = std::min(first.entry().value() + length, entries_per_ledger - 1);
      const position last(first.ledger(), entry_id(last_entry));
      ASSERT_EQ(set.add_range(first, last), m.add_range(first, last))
          << "add_range " << first << ".." << last << " at step " << step;
    } else if (op < 85) {
      const auto p = random.any_boundary();
      set.remove_up_to(p);
      m.remove_up_to(p);
    } else if (op < 97) {
      const auto p = random.any();
      ASSERT_EQ(set.contains(p), m.contains(p)) << "contains " << p << " at step " << step;
      continue;
    } else {
      auto read = range_set::deserialize(set.serialize().bytes);
      ASSERT_TRUE(read) << read.error();
      ASSERT_EQ(read.value(), set) << "serialization round trip at step " << step;
      continue;
    }
    expect_same(set, m, step);
    most_ranges = std::max(most_ranges, set.range_count());
  }
  // The run is only worth something if holes and merges were common.
  EXPECT_GT(most_ranges, 30u);
}

}  // namespace
}  // namespace magnetar::mledger
