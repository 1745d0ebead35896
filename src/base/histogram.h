// histogram: a log-linear histogram of latencies (or any non-negative int64
// quantity) for percentiles, reports and cross-process aggregation.
//
// Memory is fixed at construction by two choices: the highest trackable value
// and the significant decimal digits (1..5). Values are kept in buckets of
// doubling magnitude, each split into equal sub-buckets, so any value the
// histogram reports is within a relative error of 10^-digits of a recorded
// one, while a range of 1 ns .. 1 h costs ~260 KiB at 3 digits (36 KiB at 2,
// 26 MiB at 5). The unit is the caller's (ns, us, bytes); 0 is trackable and
// values below 2 * 10^digits are kept exactly.
//
// record() is allocation-free and branch-light so that it can sit on a hot
// path. A value above the highest trackable one is a fact about the world, not
// a bug: it is clamped to the highest trackable value and counted in
// overflow_count(). A negative value or count is a caller bug and asserts.
//
// Not thread-safe and owned by no shard in particular: each thread or shard
// records into its own histogram and a reporter merge()s copies, which needs
// both sides to have the same layout. serialize() / deserialize() move a
// histogram between processes; deserialize() treats its input as untrusted.
#pragma once

#include "base/assert.h"
#include "base/result.h"

#include <algorithm>
#include <bit>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace magnetar::base {

class histogram {
 public:
  static constexpr int min_significant_digits = 1;
  static constexpr int max_significant_digits = 5;
  static constexpr int default_significant_digits = 3;

  // Asserts on a layout that create() would reject; use create() for values
  // that come from configuration.
  explicit histogram(std::int64_t highest_trackable_value, int significant_digits = default_significant_digits);

  // invalid_argument unless 1 <= highest_trackable_value and digits in 1..5.
  static result<histogram> create(std::int64_t highest_trackable_value,
                                  int significant_digits = default_significant_digits);

  void record(std::int64_t value) noexcept { record(value, 1); }
  // Same as `count` calls of record(value).
  void record(std::int64_t value, std::int64_t count) noexcept;

  // Adds every sample of `other`. invalid_argument when the layouts differ,
  // because a bucket of one layout is not a bucket of the other.
  result<void> merge(const histogram& other);

  // Forgets every sample; keeps the layout and the memory.
  void reset() noexcept;

  std::int64_t highest_trackable_value() const noexcept { return _highest; }
  int significant_digits() const noexcept { return _digits; }

  std::int64_t total_count() const noexcept { return _total; }
  bool empty() const noexcept { return _total == 0; }
  // Samples recorded above highest_trackable_value() (and clamped to it).
  std::int64_t overflow_count() const noexcept { return _overflow; }
  // Exact, not bucketed; 0 when empty. max() is at most highest_trackable_value().
  std::int64_t min() const noexcept { return _total == 0 ? 0 : _min; }
  std::int64_t max() const noexcept { return _max; }
  // From bucket midpoints, so within the histogram's precision; 0 when empty.
  double mean() const noexcept;
  double stddev() const noexcept;

  // The value below or at which `percentile` percent of the samples lie: the
  // highest value equivalent to the sample of rank ceil(p/100 * total_count())
  // (rank at least 1), capped at max(). So p = 100 is the exact max() and
  // results never decrease with p. 0 when empty; asserts unless 0 <= p <= 100.
  std::int64_t value_at_percentile(double percentile) const noexcept;

  // The range of values that share `value`'s bucket, so are indistinguishable
  // in this layout. Defined for any non-negative value, even above the highest
  // trackable one.
  std::int64_t lowest_equivalent_value(std::int64_t value) const noexcept;
  std::int64_t highest_equivalent_value(std::int64_t value) const noexcept;
  bool equivalent(std::int64_t a, std::int64_t b) const noexcept {
    return lowest_equivalent_value(a) == lowest_equivalent_value(b);
  }

  // Calls fn(value_lo, value_hi, count) for each non-empty bucket in
  // increasing value order; [value_lo, value_hi] are equivalent values.
  template <class Fn>
  requires std::invocable<Fn&, std::int64_t, std::int64_t, std::int64_t>
  void for_each_bucket(Fn&& fn) const;

  // A compact binary form: magic and version, the layout and the exact
  // statistics, then the counts from min to max as LEB128 varints with runs of
  // empty buckets collapsed. The size follows the buckets in use, not the
  // range: tens of bytes for a few values, ~2 KB for a thousand latencies
  // spread over 1 us .. 1 s, ~23 KB for a million.
  std::string serialize() const;
  // corrupt_data for anything serialize() could not have produced: bad magic,
  // a truncated or overlong varint, an impossible layout, counts that do not
  // cover exactly the buckets from min to max, statistics that contradict the
  // counts, or trailing bytes; unsupported for another format version. Reads
  // nothing past the input, and allocates only after the header has been
  // checked, at most what a histogram of that layout needs.
  static result<histogram> deserialize(std::string_view bytes);

  // Same layout and the same samples in every bucket and statistic.
  friend bool operator==(const histogram&, const histogram&) = default;

 private:
  struct unchecked {};
  histogram(unchecked, std::int64_t highest_trackable_value, int significant_digits);

  // Counts are laid out as in HdrHistogram: bucket 0 holds values
  // [0, sub_bucket_count) one per slot; bucket b >= 1 holds
  // [half << b, half << (b + 1)) in `half` slots of width 2^b, because its
  // lower half would repeat bucket b - 1. That makes the slot of v simply
  // (b << half_magnitude) + (v >> b).
  int bucket_of(std::int64_t value) const noexcept {
    // The mask's low bit is always set; saying so with | 1 lets the compiler
    // drop countl_zero's test for zero.
    return _bucket_shift - std::countl_zero(static_cast<std::uint64_t>(value) | _sub_bucket_mask | 1);
  }
  std::size_t index_of(std::int64_t value) const noexcept {
    const int bucket = bucket_of(value);
    return (static_cast<std::size_t>(bucket) << _half_magnitude) + static_cast<std::size_t>(value >> bucket);
  }
  // Slots below `half` are bucket 0's lower half: there is no bucket -1.
  int bucket_of_index(std::size_t index) const noexcept {
    return std::max(static_cast<int>(index >> _half_magnitude) - 1, 0);
  }
  std::int64_t value_from_index(std::size_t index) const noexcept {
    const int bucket = bucket_of_index(index);
    return static_cast<std::int64_t>(index - (static_cast<std::size_t>(bucket) << _half_magnitude)) << bucket;
  }

  std::int64_t _highest = 0;
  int _digits = 0;
  // log2(sub_bucket_count / 2): the width in bits of a bucket's slot number.
  int _half_magnitude = 0;
  // 63 - _half_magnitude, so that bucket_of() is one countl_zero and one subtract.
  int _bucket_shift = 0;
  // sub_bucket_count - 1: OR-ing it in keeps small values in bucket 0.
  std::uint64_t _sub_bucket_mask = 0;

  std::int64_t _total = 0;
  std::int64_t _overflow = 0;
  // Starts at the largest value so that the first record() always lowers it.
  std::int64_t _min = INT64_MAX;
  std::int64_t _max = 0;
  std::vector<std::int64_t> _counts;
};

inline void histogram::record(std::int64_t value, std::int64_t count) noexcept {
  std::int64_t total = 0;
  const bool wrapped = __builtin_add_overflow(_total, count, &total);
  // One test for both signs: the OR is negative when either is.
  MAGNETAR_ASSERT((value | count) >= 0 && !wrapped, "histogram: value {} count {} (total {})", value, count, _total);
  if (count == 0) return;  // must not move min or max
  _overflow += value > _highest ? count : 0;
  value = std::min(value, _highest);
  // Cannot wrap: no slot holds more than the total.
  _counts[index_of(value)] += count;
  _total = total;
  _min = std::min(_min, value);
  _max = std::max(_max, value);
}

template <class Fn>
requires std::invocable<Fn&, std::int64_t, std::int64_t, std::int64_t>
void histogram::for_each_bucket(Fn&& fn) const {
  if (_total == 0) return;
  // Nothing lies outside the slots of min and max.
  const std::size_t last = index_of(_max);
  for (std::size_t i = index_of(_min); i <= last; ++i) {
    if (_counts[i] == 0) continue;
    const std::int64_t lo = value_from_index(i);
    fn(lo, lo + ((std::int64_t{1} << bucket_of_index(i)) - 1), _counts[i]);
  }
}

}  // namespace magnetar::base
