#include "perf/bench/key_sequences.h"

#include <algorithm>

namespace magnetar::perf {

key_sequences::key_sequences(unsigned keys) : _highest(keys, -1), _seen(keys) {}

void key_sequences::record(std::uint32_t key, std::uint64_t sequence) {
  if (key >= _seen.size()) return;
  auto& marks = _seen[key];
  // Grown in steps, not per message: sequences arrive mostly in order.
  if (marks.size() <= sequence) marks.resize(sequence + 1024, false);
  if (marks[sequence]) {
    ++_duplicates;
    return;
  }
  marks[sequence] = true;
  ++_unique;
  const auto s = static_cast<std::int64_t>(sequence);
  if (s < _highest[key]) ++_out_of_order;
  _highest[key] = std::max(_highest[key], s);
}

}  // namespace magnetar::perf
