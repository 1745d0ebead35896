#include "base/histogram.h"

#include "base/varint.h"

#include <cmath>

namespace magnetar::base {

namespace {

// Serialised form, version 1 (all integers are unsigned LEB128 varints):
//
//   "MGH" version:u8 digits:u8 highest total overflow min max  token*
//
// The tokens cover exactly the slots from min's to max's, the only ones that
// can hold samples, so the size follows the number of distinct values and not
// the range. A token is count << 1 for one non-empty slot, or (n << 1) | 1
// for a run of n empty slots. Only the canonical form is accepted (no
// overlong varints, no adjacent or edge runs, zeros where empty), so a
// truncated stream cannot pass for a shorter valid one, and whatever
// deserialize() accepts is byte for byte what serialize() writes for it.
constexpr std::string_view magic = "MGH";
constexpr std::uint8_t format_version = 1;

// Reads from untrusted bytes; every failure names the byte offset so that a
// bad frame can be found in a capture.
class reader {
 public:
  explicit reader(std::string_view bytes) : _bytes(bytes) {}

  static auto corrupt(std::string_view what, std::size_t at, std::string_view why) {
    return fail(errc::corrupt_data, fmt::format("histogram: {} at byte {}: {}", what, at, why));
  }
  auto truncated(std::string_view what) const {
    return fail(errc::corrupt_data,
                fmt::format("histogram: truncated at byte {} of {} while reading {}", _pos, _bytes.size(), what));
  }

  std::size_t offset() const { return _pos; }
  bool at_end() const { return _pos == _bytes.size(); }

  result<std::uint8_t> byte(std::string_view what) {
    if (at_end()) return truncated(what);
    return static_cast<std::uint8_t>(_bytes[_pos++]);
  }

  // The counts loop's fast path, with no result<> per token. On false
  // nothing is consumed, and varint() then says what is wrong.
  bool next_varint(std::uint64_t& v) noexcept {
    const auto r = read_varint(std::span<const char>(_bytes).subspan(_pos), varint_rules::canonical);
    if (r.status != varint_status::ok) return false;
    _pos += r.size;
    v = r.value;
    return true;
  }

  result<std::uint64_t> varint(std::string_view what) {
    const auto r = read_varint(std::span<const char>(_bytes).subspan(_pos), varint_rules::canonical);
    switch (r.status) {
      case varint_status::ok: _pos += r.size; return r.value;
      case varint_status::truncated: _pos = _bytes.size(); return truncated(what);
      case varint_status::too_long: return corrupt(what, _pos, "varint longer than 64 bits");
      case varint_status::overlong: return corrupt(what, _pos, "overlong varint");
    }
    return corrupt(what, _pos, "unreadable varint");
  }

  // A varint that must fit a non-negative int64.
  result<std::int64_t> int64(std::string_view what) {
    const std::size_t start = _pos;
    MAGNETAR_TRY(v, varint(what));
    if (v > static_cast<std::uint64_t>(INT64_MAX)) return corrupt(what, start, fmt::format("{} exceeds 2^63-1", v));
    return static_cast<std::int64_t>(v);
  }

 private:
  std::string_view _bytes;
  std::size_t _pos = 0;
};

// Empty when the layout is possible, else why not.
std::string layout_problem(std::int64_t highest, int digits) {
  if (digits < histogram::min_significant_digits || digits > histogram::max_significant_digits) {
    return fmt::format("significant digits {} outside {}..{}", digits, histogram::min_significant_digits,
                       histogram::max_significant_digits);
  }
  if (highest < 1) return fmt::format("highest trackable value {} is below 1", highest);
  return {};
}

}  // namespace

histogram::histogram(unchecked, std::int64_t highest_trackable_value, int significant_digits)
    : _highest(highest_trackable_value), _digits(significant_digits) {
  // The smallest power of two that holds 2 * 10^digits slots: with half of
  // them per bucket, a slot is at most 1 / 10^digits of the values it holds.
  std::uint64_t needed = 2;
  for (int i = 0; i < significant_digits; ++i) needed *= 10;
  const int sub_bucket_magnitude = std::bit_width(needed - 1);
  _half_magnitude = sub_bucket_magnitude - 1;
  _bucket_shift = 63 - _half_magnitude;
  _sub_bucket_mask = (std::uint64_t{1} << sub_bucket_magnitude) - 1;
}

histogram::histogram(std::int64_t highest_trackable_value, int significant_digits)
    : histogram(unchecked{}, highest_trackable_value, significant_digits) {
  const std::string problem = layout_problem(highest_trackable_value, significant_digits);
  MAGNETAR_ASSERT(problem.empty(), "histogram: {}", problem);
  // Values are clamped to _highest, so slots past its own are never used.
  _counts.assign(index_of(_highest) + 1, 0);
}

result<histogram> histogram::create(std::int64_t highest_trackable_value, int significant_digits) {
  if (std::string problem = layout_problem(highest_trackable_value, significant_digits); !problem.empty()) {
    return fail(errc::invalid_argument, "histogram: " + problem);
  }
  return histogram(highest_trackable_value, significant_digits);
}

result<void> histogram::merge(const histogram& other) {
  if (other._highest != _highest || other._digits != _digits) {
    return fail(errc::invalid_argument,
                fmt::format("histogram: cannot merge a layout of highest {} at {} digits into highest {} at {} digits",
                            other._highest, other._digits, _highest, _digits));
  }
  if (other._total == 0) return success();
  std::int64_t total = 0;
  if (__builtin_add_overflow(_total, other._total, &total)) {
    return fail(errc::invalid_argument,
                fmt::format("histogram: merged count {} + {} exceeds 2^63-1", _total, other._total));
  }
  // Read the bounds before updating them: `other` may be *this.
  const std::size_t first = other.index_of(other._min);
  const std::size_t last = other.index_of(other._max);
  for (std::size_t i = first; i <= last; ++i) _counts[i] += other._counts[i];
  _total = total;
  _overflow += other._overflow;
  _min = std::min(_min, other._min);
  _max = std::max(_max, other._max);
  return success();
}

void histogram::reset() noexcept {
  // Only the slots from min's to max's can be non-zero.
  if (_total != 0) std::fill(_counts.begin() + index_of(_min), _counts.begin() + index_of(_max) + 1, 0);
  _total = 0;
  _overflow = 0;
  _min = INT64_MAX;
  _max = 0;
}

std::int64_t histogram::lowest_equivalent_value(std::int64_t value) const noexcept {
  MAGNETAR_ASSERT(value >= 0, "histogram: negative value {}", value);
  const int bucket = bucket_of(value);
  return (value >> bucket) << bucket;
}

std::int64_t histogram::highest_equivalent_value(std::int64_t value) const noexcept {
  MAGNETAR_ASSERT(value >= 0, "histogram: negative value {}", value);
  const int bucket = bucket_of(value);
  // lo + (width - 1), never lo + width: at the top of the int64 range the
  // next slot's first value does not exist.
  return ((value >> bucket) << bucket) + ((std::int64_t{1} << bucket) - 1);
}

double histogram::mean() const noexcept {
  if (_total == 0) return 0;
  // Exact: fewer than 2^63 samples of values below 2^63 sum below 2^126. And
  // integer adds do not queue behind each other the way double adds do.
  __int128 sum = 0;
  for_each_bucket([&](std::int64_t lo, std::int64_t hi, std::int64_t count) {
    sum += static_cast<__int128>(count) * (lo + (hi - lo + 1) / 2);
  });
  return static_cast<double>(sum) / static_cast<double>(_total);
}

double histogram::stddev() const noexcept {
  if (_total == 0) return 0;
  // Two passes: summing squares and subtracting mean^2 loses everything to
  // cancellation when the spread is small next to the values.
  const double m = mean();
  double sum = 0;
  for_each_bucket([&](std::int64_t lo, std::int64_t hi, std::int64_t count) {
    const double d = static_cast<double>(lo + (hi - lo + 1) / 2) - m;
    sum += static_cast<double>(count) * d * d;
  });
  return std::sqrt(sum / static_cast<double>(_total));
}

std::int64_t histogram::value_at_percentile(double percentile) const noexcept {
  MAGNETAR_ASSERT(percentile >= 0.0 && percentile <= 100.0, "histogram: percentile {} outside 0..100", percentile);
  if (_total == 0) return 0;

  const double total = static_cast<double>(_total);
  const double exact = percentile / 100.0 * total;
  double rank_d = std::ceil(exact);
  // 99.9 has no exact double, so p/100 * n can land a hair above the whole
  // rank the caller meant, and ceil would then skip a sample.
  const double nearest = std::round(exact);
  if (std::abs(exact - nearest) <= exact * 1e-12) rank_d = nearest;
  // Compare as doubles first: converting 2^63 to int64 is undefined.
  std::int64_t rank = rank_d >= total ? _total : static_cast<std::int64_t>(rank_d);
  rank = std::max<std::int64_t>(rank, 1);

  const std::size_t first = index_of(_min);
  const std::size_t last = index_of(_max);
  std::size_t found = last;
  // Walk in from the nearer end: reports ask mostly for the tail.
  if (rank <= _total / 2) {
    std::int64_t below = 0;
    for (std::size_t i = first; i <= last; ++i) {
      below += _counts[i];
      if (below >= rank) {
        found = i;
        break;
      }
    }
  } else {
    // The slot whose samples and those above it number at least n - rank + 1.
    const std::int64_t wanted = _total - rank + 1;
    std::int64_t above = 0;
    for (std::size_t i = last + 1; i-- > first;) {
      above += _counts[i];
      if (above >= wanted) {
        found = i;
        break;
      }
    }
  }
  // Capped so that no percentile exceeds the max and p = 100 is exact.
  return std::min(highest_equivalent_value(value_from_index(found)), _max);
}

std::string histogram::serialize() const {
  std::string out;
  out.reserve(64);
  out.append(magic);
  out.push_back(static_cast<char>(format_version));
  out.push_back(static_cast<char>(_digits));
  append_varint(out, static_cast<std::uint64_t>(_highest));
  append_varint(out, static_cast<std::uint64_t>(_total));
  append_varint(out, static_cast<std::uint64_t>(_overflow));
  append_varint(out, static_cast<std::uint64_t>(min()));
  append_varint(out, static_cast<std::uint64_t>(_max));
  if (_total == 0) return out;

  const auto for_each_token = [this](auto&& emit) {
    const std::size_t last = index_of(_max);
    // The slots of min and max hold samples, so every run of empty slots
    // ends before `last` and the skip loop needs no bounds check.
    for (std::size_t i = index_of(_min); i <= last;) {
      emit(static_cast<std::uint64_t>(_counts[i]) << 1);
      if (++i > last) break;
      const std::size_t run_start = i;
      while (_counts[i] == 0) ++i;
      if (i != run_start) emit(((i - run_start) << 1) | 1);
    }
  };
  // Sized first, then written through a pointer: appending byte by byte
  // costs a capacity check per byte and several reallocations.
  const std::size_t header = out.size();
  std::size_t size = header;
  for_each_token([&](std::uint64_t token) { size += varint_size(token); });
  out.resize(size);
  char* p = out.data() + header;
  for_each_token([&](std::uint64_t token) { p = write_varint(p, token); });
  return out;
}

result<histogram> histogram::deserialize(std::string_view bytes) {
  reader in(bytes);
  for (char expected : magic) {
    MAGNETAR_TRY(b, in.byte("magic"));
    if (b != static_cast<std::uint8_t>(expected)) return reader::corrupt("magic", in.offset() - 1, "not a histogram");
  }
  MAGNETAR_TRY(version, in.byte("version"));
  if (version != format_version) {
    return fail(errc::unsupported,
                fmt::format("histogram: format version {}, this build reads {}", version, format_version));
  }
  MAGNETAR_TRY(digits, in.byte("significant digits"));
  const std::size_t highest_at = in.offset();
  MAGNETAR_TRY(highest, in.int64("highest trackable value"));
  if (std::string problem = layout_problem(highest, digits); !problem.empty()) {
    return reader::corrupt("layout", highest_at, problem);
  }
  const std::size_t stats_at = in.offset();
  MAGNETAR_TRY(total, in.int64("total count"));
  MAGNETAR_TRY(overflow, in.int64("overflow count"));
  MAGNETAR_TRY(min, in.int64("min"));
  MAGNETAR_TRY(max, in.int64("max"));

  histogram h(unchecked{}, highest, digits);
  const auto bad_stats = [&](std::string_view why) { return reader::corrupt("statistics", stats_at, why); };
  if (total == 0) {
    if (overflow != 0 || min != 0 || max != 0)
      return bad_stats("an empty histogram with a non-zero overflow, min or max");
    if (!in.at_end()) return reader::corrupt("counts", in.offset(), "trailing bytes after an empty histogram");
    h._counts.assign(h.index_of(highest) + 1, 0);
    return h;
  }
  if (min > max || max > highest)
    return bad_stats(fmt::format("min {} max {} highest {} out of order", min, max, highest));
  if (overflow > total) return bad_stats(fmt::format("overflow {} exceeds total {}", overflow, total));
  // Overflowing samples are clamped to the highest value, so they make it the max.
  if (overflow != 0 && max != highest)
    return bad_stats(fmt::format("overflow {} with max {} below the highest", overflow, max));

  // The header has been checked, so the allocation is no bigger than a
  // legitimate histogram of this layout would need.
  h._counts.assign(h.index_of(highest) + 1, 0);
  h._total = total;
  h._overflow = overflow;
  h._min = min;
  h._max = max;

  const std::size_t first = h.index_of(min);
  const std::size_t last = h.index_of(max);
  std::size_t slot = first;
  std::int64_t sum = 0;
  bool after_run = true;  // an empty run may neither open nor follow another
  while (slot <= last) {
    const std::size_t at = in.offset();
    std::uint64_t token = 0;
    if (!in.next_varint(token)) {
      MAGNETAR_TRY(in.varint("counts"));  // only to say what is wrong with it
      MAGNETAR_UNREACHABLE("histogram: varint {} decoded only the second time", at);
    }
    const std::uint64_t n = token >> 1;
    if ((token & 1) != 0) {
      if (after_run) return reader::corrupt("counts", at, "an empty run at the start or after another");
      // Must end before max's slot, which holds a sample.
      if (n == 0 || n > last - slot) return reader::corrupt("counts", at, fmt::format("empty run of {} slots", n));
      slot += n;
      after_run = true;
      continue;
    }
    if (n == 0) return reader::corrupt("counts", at, "a zero count outside an empty run");
    if (__builtin_add_overflow(sum, static_cast<std::int64_t>(n), &sum)) {
      return reader::corrupt("counts", at, "counts add up past 2^63-1");
    }
    h._counts[slot++] = static_cast<std::int64_t>(n);
    after_run = false;
  }
  if (!in.at_end()) return reader::corrupt("counts", in.offset(), "trailing bytes after the last count");
  if (sum != total) return bad_stats(fmt::format("total {} but the counts add up to {}", total, sum));
  if (overflow > h._counts[last]) {
    return bad_stats(fmt::format("overflow {} exceeds the {} samples at the highest value", overflow, h._counts[last]));
  }
  return h;
}

}  // namespace magnetar::base
