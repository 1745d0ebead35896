#include "base/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace magnetar::base {
namespace {

constexpr std::int64_t one_hour_ns = 3'600'000'000'000;

// A percentile and the same percentile in hundredths, so that the reference
// rank is computed in exact integer arithmetic rather than with the doubles
// the histogram uses.
struct percentile_case {
  double p;
  std::int64_t hundredths;
};
constexpr percentile_case report_percentiles[] = {
    {0, 0}, {1, 100}, {50, 5000}, {90, 9000}, {99, 9900}, {99.9, 9990}, {99.99, 9999}, {100, 10000},
};

// The sample of rank ceil(p/100 * n), rank at least 1, from sorted samples.
std::int64_t exact_percentile(const std::vector<std::int64_t>& sorted, std::int64_t hundredths) {
  const auto n = static_cast<std::int64_t>(sorted.size());
  const std::int64_t rank = std::max<std::int64_t>((hundredths * n + 9999) / 10000, 1);
  return sorted[static_cast<std::size_t>(rank - 1)];
}

histogram record_all(const std::vector<std::int64_t>& samples, std::int64_t highest = one_hour_ns, int digits = 3) {
  histogram h(highest, digits);
  for (std::int64_t v : samples) h.record(v);
  return h;
}

void expect_percentiles_match_sorted_samples(std::vector<std::int64_t> samples, int digits = 3) {
  const histogram h = record_all(samples, one_hour_ns, digits);
  std::sort(samples.begin(), samples.end());
  const double tolerance = std::pow(10.0, -digits);
  for (const auto& [p, hundredths] : report_percentiles) {
    const std::int64_t exact = exact_percentile(samples, hundredths);
    const std::int64_t got = h.value_at_percentile(p);
    EXPECT_TRUE(h.equivalent(got, exact)) << "p" << p << ": got " << got << ", exact " << exact;
    EXPECT_LE(std::abs(static_cast<double>(got - exact)), tolerance * static_cast<double>(exact))
        << "p" << p << ": got " << got << ", exact " << exact;
  }
}

std::vector<std::int64_t> uniform_samples(std::size_t n, std::int64_t lo, std::int64_t hi, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> dist(lo, hi);
  std::vector<std::int64_t> out(n);
  for (auto& v : out) v = dist(rng);
  return out;
}

// Evenly spread over orders of magnitude: 1 ns .. 1 h by default.
std::vector<std::int64_t> log_uniform_samples(std::size_t n, std::uint64_t seed, std::int64_t hi = one_hour_ns) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> exponent(0.0, std::log(static_cast<double>(hi)));
  std::vector<std::int64_t> out(n);
  for (auto& v : out) v = std::clamp<std::int64_t>(std::llround(std::exp(exponent(rng))), 1, hi);
  return out;
}

// What a broker sees: a tight mode, a slower mode from disk syncs, a thin tail
// of stalls up to the hour, and many repeats of a few exact values.
std::vector<std::int64_t> spiky_samples(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> fast(50'000, 2'000);
  std::normal_distribution<double> sync(2'000'000, 300'000);
  std::uniform_int_distribution<std::int64_t> stall(1'000'000'000, one_hour_ns);
  std::uniform_int_distribution<int> pick(0, 999);
  constexpr std::int64_t repeated[] = {0, 1, 4'096, 1'000'000, 999'999'999};
  std::vector<std::int64_t> out(n);
  for (auto& v : out) {
    const int k = pick(rng);
    if (k < 850)
      v = std::max<std::int64_t>(std::llround(fast(rng)), 0);
    else if (k < 940)
      v = std::max<std::int64_t>(std::llround(sync(rng)), 0);
    else if (k < 990)
      v = repeated[k % 5];
    else
      v = stall(rng);
  }
  return out;
}

// (lo, hi, count) of every non-empty bucket.
std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> buckets_of(const histogram& h) {
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> out;
  h.for_each_bucket([&](std::int64_t lo, std::int64_t hi, std::int64_t count) { out.emplace_back(lo, hi, count); });
  return out;
}

// A histogram with a bit of everything the wire form must carry: exact small
// values, wide gaps, a multi-byte count and overflow.
histogram varied_histogram() {
  histogram h(one_hour_ns);
  for (std::int64_t v : spiky_samples(2'000, 11)) h.record(v);
  h.record(123'456, 1'000'000);
  h.record(one_hour_ns + 5, 3);
  return h;
}

void put_varint(std::string& out, std::uint64_t v) {
  for (; v >= 0x80; v >>= 7) out.push_back(static_cast<char>((v & 0x7f) | 0x80));
  out.push_back(static_cast<char>(v));
}

// Hand-built wire form, for corruptions serialize() would never write.
std::string wire(int digits, std::vector<std::uint64_t> header, std::vector<std::uint64_t> tokens) {
  std::string out = "MGH";
  out.push_back(1);
  out.push_back(static_cast<char>(digits));
  for (std::uint64_t v : header) put_varint(out, v);
  for (std::uint64_t t : tokens) put_varint(out, t);
  return out;
}

// --- recording and statistics ---------------------------------------------

TEST(histogram, empty_histogram_reports_zero_for_every_statistic) {
  histogram h(one_hour_ns);
  EXPECT_TRUE(h.empty());
  EXPECT_EQ(h.total_count(), 0);
  EXPECT_EQ(h.overflow_count(), 0);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.max(), 0);
  EXPECT_EQ(h.mean(), 0.0);
  EXPECT_EQ(h.stddev(), 0.0);
  for (const auto& c : report_percentiles) EXPECT_EQ(h.value_at_percentile(c.p), 0) << c.p;
  EXPECT_TRUE(buckets_of(h).empty());
}

TEST(histogram, percentiles_match_sorted_samples_within_one_bucket_for_uniform_values) {
  expect_percentiles_match_sorted_samples(uniform_samples(100'000, 0, 10'000'000, 1));
}

TEST(histogram, percentiles_match_sorted_samples_within_one_bucket_for_log_uniform_values_from_1ns_to_1h) {
  expect_percentiles_match_sorted_samples(log_uniform_samples(100'000, 2));
}

TEST(histogram, percentiles_match_sorted_samples_within_one_bucket_for_spiky_values) {
  expect_percentiles_match_sorted_samples(spiky_samples(100'000, 3));
}

TEST(histogram, percentiles_stay_within_the_relative_error_of_every_digits_setting) {
  for (int digits = histogram::min_significant_digits; digits <= histogram::max_significant_digits; ++digits) {
    SCOPED_TRACE(digits);
    expect_percentiles_match_sorted_samples(log_uniform_samples(20'000, 4), digits);
  }
}

TEST(histogram, whole_number_ranks_are_not_rounded_up_by_floating_point) {
  // 99.9 / 100 * 1000 is 999.0000000000001 in doubles; the rank is still 999.
  std::vector<std::int64_t> samples(1'000);
  for (std::size_t i = 0; i < samples.size(); ++i) samples[i] = static_cast<std::int64_t>(i) + 1;
  const histogram h = record_all(samples);
  for (int tenths = 0; tenths <= 1'000; ++tenths) {
    EXPECT_EQ(h.value_at_percentile(tenths / 10.0), std::max(tenths, 1)) << tenths / 10.0;
  }
}

TEST(histogram, percentiles_never_decrease_as_p_grows) {
  const histogram h = record_all(spiky_samples(10'000, 5));
  std::int64_t previous = 0;
  for (int i = 0; i <= 10'000; ++i) {
    const std::int64_t v = h.value_at_percentile(i / 100.0);
    EXPECT_GE(v, previous) << i / 100.0;
    previous = v;
  }
}

TEST(histogram, percentile_100_is_the_exact_max) {
  histogram h(one_hour_ns);
  h.record(1'000);
  h.record(1'000'001);  // shares its bucket with values up to 1'000'447
  EXPECT_EQ(h.value_at_percentile(100), 1'000'001);
}

TEST(histogram, percentiles_in_the_bucket_of_the_max_report_the_max) {
  histogram h(one_hour_ns);
  for (int i = 0; i < 9'999; ++i) h.record(1'000);
  h.record(1'000'001);
  h.record(1'000'002);
  EXPECT_EQ(h.value_at_percentile(99.995), 1'000'002);
}

TEST(histogram, every_percentile_of_a_single_sample_is_that_sample) {
  histogram h(one_hour_ns);
  h.record(123'456'789);
  for (const auto& c : report_percentiles) EXPECT_EQ(h.value_at_percentile(c.p), 123'456'789) << c.p;
}

TEST(histogram, min_and_max_are_exact) {
  const std::vector<std::int64_t> samples = log_uniform_samples(10'000, 6);
  const histogram h = record_all(samples);
  EXPECT_EQ(h.min(), *std::min_element(samples.begin(), samples.end()));
  EXPECT_EQ(h.max(), *std::max_element(samples.begin(), samples.end()));
}

TEST(histogram, values_below_twice_ten_to_the_digits_are_kept_exactly) {
  histogram h(one_hour_ns, 3);
  for (std::int64_t v = 0; v < 2'000; ++v) {
    EXPECT_EQ(h.lowest_equivalent_value(v), v);
    EXPECT_EQ(h.highest_equivalent_value(v), v);
  }
}

TEST(histogram, equivalent_range_brackets_the_value_within_the_relative_error) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int64_t> any(0, INT64_MAX);
  for (int digits = histogram::min_significant_digits; digits <= histogram::max_significant_digits; ++digits) {
    const histogram h(1, digits);  // the layout, not the range, decides equivalence
    const double tolerance = std::pow(10.0, -digits);
    for (int i = 0; i < 10'000; ++i) {
      const std::int64_t v = any(rng) >> (i % 63);
      const std::int64_t lo = h.lowest_equivalent_value(v);
      const std::int64_t hi = h.highest_equivalent_value(v);
      ASSERT_LE(lo, v);
      ASSERT_GE(hi, v);
      ASSERT_LE(static_cast<double>(hi - lo), tolerance * static_cast<double>(lo)) << v << " at " << digits;
      if (lo > 0) {
        ASSERT_FALSE(h.equivalent(lo - 1, v));
      }
      if (hi < INT64_MAX) {
        ASSERT_FALSE(h.equivalent(hi + 1, v));
      }
    }
  }
}

TEST(histogram, record_with_a_count_equals_recording_that_many_times) {
  histogram once(one_hour_ns);
  histogram repeated(one_hour_ns);
  once.record(42'000, 5);
  once.record(7, 2);
  for (int i = 0; i < 5; ++i) repeated.record(42'000);
  repeated.record(7);
  repeated.record(7);
  EXPECT_EQ(once, repeated);
}

TEST(histogram, recording_a_zero_count_changes_nothing) {
  histogram h(one_hour_ns);
  h.record(500);
  h.record(1, 0);
  h.record(one_hour_ns * 2, 0);
  EXPECT_EQ(h.total_count(), 1);
  EXPECT_EQ(h.min(), 500);
  EXPECT_EQ(h.max(), 500);
  EXPECT_EQ(h.overflow_count(), 0);
}

TEST(histogram, values_above_the_highest_trackable_are_clamped_and_counted_as_overflow) {
  histogram h(1'000'000);
  h.record(10);
  h.record(1'000'001);
  h.record(INT64_MAX, 3);
  EXPECT_EQ(h.total_count(), 5);
  EXPECT_EQ(h.overflow_count(), 4);
  EXPECT_EQ(h.max(), 1'000'000);
  EXPECT_EQ(h.value_at_percentile(100), 1'000'000);
  EXPECT_TRUE(h.equivalent(h.value_at_percentile(50), 1'000'000));
}

TEST(histogram, tracks_values_up_to_int64_max) {
  histogram h(INT64_MAX);
  h.record(0);
  h.record(INT64_MAX);
  EXPECT_EQ(h.overflow_count(), 0);
  EXPECT_EQ(h.highest_equivalent_value(INT64_MAX), INT64_MAX);
  EXPECT_EQ(h.value_at_percentile(100), INT64_MAX);
  EXPECT_EQ(h.value_at_percentile(50), 0);
}

TEST(histogram, mean_and_stddev_match_the_samples_within_the_precision) {
  const std::vector<std::int64_t> samples = uniform_samples(100'000, 1'000'000, 2'000'000, 8);
  const histogram h = record_all(samples);
  double sum = 0;
  for (std::int64_t v : samples) sum += static_cast<double>(v);
  const double mean = sum / static_cast<double>(samples.size());
  double squares = 0;
  for (std::int64_t v : samples) squares += (static_cast<double>(v) - mean) * (static_cast<double>(v) - mean);
  const double stddev = std::sqrt(squares / static_cast<double>(samples.size()));
  // Each sample is counted at its bucket's midpoint, off by at most 1e-3 of the largest.
  EXPECT_NEAR(h.mean(), mean, 1e-3 * mean);
  EXPECT_NEAR(h.stddev(), stddev, 1e-3 * 2'000'000);
}

TEST(histogram, mean_and_stddev_are_exact_for_values_in_single_value_buckets) {
  histogram h(one_hour_ns);
  h.record(2);
  h.record(4);
  h.record(4);
  h.record(4);
  h.record(5);
  h.record(5);
  h.record(7);
  h.record(9);
  EXPECT_DOUBLE_EQ(h.mean(), 5.0);
  EXPECT_DOUBLE_EQ(h.stddev(), 2.0);
}

TEST(histogram, for_each_bucket_visits_non_empty_buckets_in_increasing_order) {
  const std::vector<std::int64_t> samples = spiky_samples(10'000, 9);
  const histogram h = record_all(samples);
  const auto buckets = buckets_of(h);
  ASSERT_FALSE(buckets.empty());
  std::int64_t total = 0;
  std::int64_t previous_hi = -1;
  for (const auto& [lo, hi, count] : buckets) {
    EXPECT_GT(lo, previous_hi);
    EXPECT_LE(lo, hi);
    EXPECT_TRUE(h.equivalent(lo, hi));
    EXPECT_GT(count, 0);
    total += count;
    previous_hi = hi;
  }
  EXPECT_EQ(total, h.total_count());
  for (std::int64_t v : samples) {
    const auto it = std::find_if(buckets.begin(), buckets.end(),
                                 [&](const auto& b) { return std::get<0>(b) <= v && v <= std::get<1>(b); });
    ASSERT_NE(it, buckets.end()) << v;
  }
}

TEST(histogram, reset_forgets_every_sample_and_keeps_the_layout) {
  histogram h = record_all(spiky_samples(1'000, 10), one_hour_ns, 2);
  h.reset();
  EXPECT_EQ(h, histogram(one_hour_ns, 2));
  h.record(77);
  EXPECT_EQ(h.min(), 77);
  EXPECT_EQ(h.value_at_percentile(50), 77);
}

TEST(histogram, create_rejects_a_layout_outside_the_documented_domain) {
  EXPECT_EQ(histogram::create(one_hour_ns, 0).error(), errc::invalid_argument);
  EXPECT_EQ(histogram::create(one_hour_ns, 6).error(), errc::invalid_argument);
  EXPECT_EQ(histogram::create(0, 3).error(), errc::invalid_argument);
  EXPECT_EQ(histogram::create(-5, 3).error(), errc::invalid_argument);
  ASSERT_TRUE(histogram::create(one_hour_ns, 3));
  EXPECT_EQ(histogram::create(one_hour_ns, 3).value().highest_trackable_value(), one_hour_ns);
}

// --- merge ----------------------------------------------------------------

TEST(histogram, merge_of_two_equals_recording_all_into_one) {
  const std::vector<std::int64_t> a = log_uniform_samples(5'000, 12);
  const std::vector<std::int64_t> b = spiky_samples(5'000, 13);
  histogram merged = record_all(a);
  histogram other = record_all(b);
  other.record(one_hour_ns + 1);
  ASSERT_TRUE(merged.merge(other));

  histogram all = record_all(a);
  for (std::int64_t v : b) all.record(v);
  all.record(one_hour_ns + 1);
  EXPECT_EQ(merged, all);
}

TEST(histogram, merge_rejects_a_different_highest_trackable_value) {
  histogram h(one_hour_ns);
  h.record(5);
  histogram other(one_hour_ns / 2);
  other.record(6);
  const auto merged = h.merge(other);
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), errc::invalid_argument);
  EXPECT_EQ(h.total_count(), 1);
}

TEST(histogram, merge_rejects_different_significant_digits) {
  histogram h(one_hour_ns, 3);
  histogram other(one_hour_ns, 2);
  other.record(6);
  const auto merged = h.merge(other);
  ASSERT_FALSE(merged);
  EXPECT_EQ(merged.error(), errc::invalid_argument);
  EXPECT_TRUE(h.empty());
}

TEST(histogram, merging_an_empty_histogram_changes_nothing) {
  histogram h = record_all(spiky_samples(1'000, 14));
  const histogram before = h;
  ASSERT_TRUE(h.merge(histogram(one_hour_ns)));
  EXPECT_EQ(h, before);
}

TEST(histogram, merging_into_an_empty_histogram_copies_the_other) {
  const histogram other = record_all(spiky_samples(1'000, 15));
  histogram h(one_hour_ns);
  ASSERT_TRUE(h.merge(other));
  EXPECT_EQ(h, other);
}

TEST(histogram, merging_a_histogram_into_itself_doubles_every_count) {
  const std::vector<std::int64_t> samples = spiky_samples(1'000, 16);
  histogram h = record_all(samples);
  ASSERT_TRUE(h.merge(h));
  histogram twice(one_hour_ns);
  for (std::int64_t v : samples) twice.record(v, 2);
  EXPECT_EQ(h, twice);
}

// --- serialised form ------------------------------------------------------

TEST(histogram, serialize_round_trip_preserves_every_bucket_and_statistic) {
  const histogram h = varied_histogram();
  const auto back = histogram::deserialize(h.serialize());
  ASSERT_TRUE(back) << back.error().message();
  const histogram& r = back.value();
  EXPECT_EQ(r.highest_trackable_value(), h.highest_trackable_value());
  EXPECT_EQ(r.significant_digits(), h.significant_digits());
  EXPECT_EQ(r.total_count(), h.total_count());
  EXPECT_EQ(r.overflow_count(), h.overflow_count());
  EXPECT_EQ(r.min(), h.min());
  EXPECT_EQ(r.max(), h.max());
  EXPECT_EQ(r.mean(), h.mean());
  EXPECT_EQ(r.stddev(), h.stddev());
  EXPECT_EQ(buckets_of(r), buckets_of(h));
  for (const auto& c : report_percentiles) EXPECT_EQ(r.value_at_percentile(c.p), h.value_at_percentile(c.p));
  EXPECT_EQ(r, h);
}

TEST(histogram, empty_histogram_round_trips) {
  const histogram h(12'345, 4);
  const auto back = histogram::deserialize(h.serialize());
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back.value(), h);
}

TEST(histogram, histogram_of_one_value_serialises_in_a_few_bytes) {
  histogram h(one_hour_ns);
  h.record(1'500'000, 1'000);
  // Magic, version, digits, five header varints and one count.
  EXPECT_LE(h.serialize().size(), 24u);
}

TEST(histogram, serialised_form_grows_with_distinct_values_not_with_the_range) {
  histogram h(one_hour_ns);
  h.record(1);
  h.record(one_hour_ns);  // ~33,000 empty slots between them
  EXPECT_LE(h.serialize().size(), 32u);
}

TEST(histogram, deserialize_rejects_every_truncated_prefix) {
  const std::string bytes = varied_histogram().serialize();
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    const auto r = histogram::deserialize(std::string_view(bytes).substr(0, n));
    ASSERT_FALSE(r) << "prefix of " << n << " of " << bytes.size() << " bytes accepted";
    EXPECT_EQ(r.error(), errc::corrupt_data) << n;
  }
}

TEST(histogram, deserialize_rejects_random_garbage) {
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> length(0, 64);
  for (int i = 0; i < 20'000; ++i) {
    std::string garbage(length(rng), '\0');
    for (auto& c : garbage) c = static_cast<char>(byte(rng));
    const auto r = histogram::deserialize(garbage);
    ASSERT_FALSE(r) << i;
    EXPECT_EQ(r.error(), errc::corrupt_data) << i;
  }
}

TEST(histogram, deserialize_accepts_only_what_serialize_would_write) {
  // Behind a valid magic and version the decoder sees arbitrary headers and
  // counts; whatever it accepts must be a consistent histogram.
  std::mt19937_64 rng(18);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<std::size_t> length(0, 16);
  const std::string valid = varied_histogram().serialize();
  std::uniform_int_distribution<std::size_t> position(0, valid.size() - 1);
  int accepted = 0;
  std::uniform_int_distribution<int> small(0, 6);
  for (int i = 0; i < 30'000; ++i) {
    std::string bytes;
    if (i % 3 != 2) {
      bytes = "MGH\x01";
      bytes.push_back(static_cast<char>(1 + i % 5));
      // Small bytes make plausible headers and counts, which reach the deep checks.
      for (std::size_t n = length(rng); n > 0; --n)
        bytes.push_back(static_cast<char>(i % 3 == 0 ? byte(rng) : small(rng)));
    } else {
      bytes = valid;
      bytes[position(rng)] = static_cast<char>(byte(rng));
    }
    const auto r = histogram::deserialize(bytes);
    if (!r) continue;
    ++accepted;
    EXPECT_EQ(r.value().serialize(), bytes) << i;
    EXPECT_LE(r.value().value_at_percentile(50), r.value().max()) << i;
  }
  EXPECT_GT(accepted, 0);  // the mutations did reach past the header checks
}

TEST(histogram, deserialize_rejects_each_kind_of_corruption_with_a_detail_naming_it) {
  // Header order: highest, total, overflow, min, max. Slot of v is v below 2048.
  struct corruption {
    std::string bytes;
    std::string detail;
  };
  std::string bad_magic = wire(3, {1000, 1, 0, 5, 5}, {2});
  bad_magic[0] = 'X';
  std::string overlong = wire(3, {1000, 1, 0, 5, 5}, {});
  overlong += std::string("\x82\x00", 2);  // 2 in two bytes
  const corruption cases[] = {
      {bad_magic, "not a histogram"},
      {wire(0, {1000, 0, 0, 0, 0}, {}), "significant digits 0"},
      {wire(3, {0, 0, 0, 0, 0}, {}), "highest trackable value 0"},
      {wire(3, {1000, 0, 0, 0, 9}, {}), "an empty histogram with a non-zero"},
      {wire(3, {1000, 1, 0, 9, 5}, {2}), "out of order"},
      {wire(3, {1000, 1, 0, 5, 1001}, {2}), "out of order"},
      {wire(3, {1000, 2, 1, 5, 900}, {2, 1789, 2}), "below the highest"},
      {wire(3, {1000, 2, 2, 5, 1000}, {2, 994 << 1 | 1, 2}), "exceeds the 1 samples at the highest value"},
      {wire(3, {1000, 1, 0, 5, 5}, {0}), "a zero count"},
      {wire(3, {1000, 2, 0, 5, 7}, {3, 2, 2}), "empty run at the start"},
      {wire(3, {1000, 2, 0, 5, 7}, {2, 5, 2}), "empty run of 2"},
      {wire(3, {1000, 3, 0, 5, 7}, {2, 3, 2}), "add up to 2"},
      {wire(3, {1000, 1, 0, 5, 5}, {2, 2}), "trailing bytes"},
      {wire(3, {1000, 0, 0, 0, 0}, {2}), "trailing bytes"},
      {wire(3, {1000, 1, 0, 5, 5}, {}), "truncated"},
      {overlong, "overlong varint"},
      {wire(3, {1000, 1, 0, 5, 5}, {1ull << 63 | 2}).substr(0, 10) + std::string(10, '\xff'), "longer than 64 bits"},
      {wire(3, {1ull << 63, 0, 0, 0, 0}, {}), "exceeds 2^63-1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.detail);
    const auto r = histogram::deserialize(c.bytes);
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), errc::corrupt_data);
    EXPECT_NE(r.error().detail().find(c.detail), std::string::npos) << r.error().detail();
  }
}

TEST(histogram, deserialize_reports_an_unknown_version_as_unsupported) {
  std::string bytes = histogram(one_hour_ns).serialize();
  bytes[3] = 2;
  const auto r = histogram::deserialize(bytes);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), errc::unsupported);
  EXPECT_NE(r.error().detail().find("version 2"), std::string::npos) << r.error().detail();
}

// --- caller bugs ----------------------------------------------------------

TEST(histogram_death, recording_a_negative_value_aborts) {
  histogram h(one_hour_ns);
  EXPECT_DEATH(h.record(-1), "value -1 count 1");
}

TEST(histogram_death, recording_a_negative_count_aborts) {
  histogram h(one_hour_ns);
  EXPECT_DEATH(h.record(5, -2), "value 5 count -2");
}

TEST(histogram_death, a_percentile_outside_0_to_100_aborts) {
  histogram h(one_hour_ns);
  EXPECT_DEATH((void)h.value_at_percentile(100.5), "percentile 100.5 outside 0..100");
  EXPECT_DEATH((void)h.value_at_percentile(std::nan("")), "outside 0..100");
}

TEST(histogram_death, constructing_an_impossible_layout_aborts) {
  EXPECT_DEATH(histogram(one_hour_ns, 6), "significant digits 6 outside 1..5");
}

}  // namespace
}  // namespace magnetar::base
