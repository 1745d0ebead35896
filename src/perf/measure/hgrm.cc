#include "perf/measure/hgrm.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <limits>

namespace magnetar::perf {

namespace {

// HdrHistogram's layout numbers, from the same choices as base::histogram's: the
// smallest power of two holding 2 * 10^digits sub-buckets, and buckets doubling from
// there until the highest trackable value fits.
std::int64_t sub_bucket_count(int digits) {
  std::uint64_t needed = 2;
  for (int i = 0; i < digits; ++i) needed *= 10;
  return std::int64_t{1} << std::bit_width(needed - 1);
}

int bucket_count(std::int64_t highest, int digits) {
  std::int64_t smallest_untrackable = sub_bucket_count(digits);
  int buckets = 1;
  while (smallest_untrackable <= highest) {
    if (smallest_untrackable > std::numeric_limits<std::int64_t>::max() / 2) return buckets + 1;
    smallest_untrackable <<= 1;
    ++buckets;
  }
  return buckets;
}

// The next percentile tick after `level`: the step is 100 / (ticks * 2^(k+1)) where k
// counts the halvings of the distance to 100% already passed, so every half distance
// gets the same number of ticks. Same arithmetic as HdrHistogram's, so that the ticks
// (and so the rows) are the same.
double next_level(double level, int ticks_per_half_distance) {
  if (level >= 100.0) return std::numeric_limits<double>::infinity();
  const double halvings = std::log(100.0 / (100.0 - level)) / std::log(2.0);
  const auto k = std::min<std::int64_t>(static_cast<std::int64_t>(halvings) + 1, 62);
  const auto ticks = static_cast<std::uint64_t>(ticks_per_half_distance) * (std::uint64_t{1} << k);
  return level + 100.0 / static_cast<double>(ticks);
}

}  // namespace

std::string percentile_distribution(const base::histogram& micros) { return percentile_distribution(micros, {}); }

std::string percentile_distribution(const base::histogram& h, const percentile_distribution_options& options) {
  const int digits = h.significant_digits();
  const double scale = options.output_scaling;
  std::string out =
      fmt::format("{:>12} {:>14} {:>10} {:>14}\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)");

  const auto row = [&](std::int64_t value, double level, std::int64_t total) {
    const double fraction = level / 100.0;
    if (level != 100.0) {
      fmt::format_to(std::back_inserter(out), "{:12.{}f} {:2.12f} {:10d} {:14.2f}\n",
                     static_cast<double>(value) / scale, digits, fraction, total, 1.0 / (1.0 - fraction));
    } else {
      fmt::format_to(std::back_inserter(out), "{:12.{}f} {:2.12f} {:10d}\n", static_cast<double>(value) / scale, digits,
                     fraction, total);
    }
  };

  const std::int64_t total = h.total_count();
  if (total > 0) {
    // Walk the non-empty buckets upwards; a bucket that crosses several ticks gives a
    // row for each, all with its value. The bucket that completes the count gives one
    // row, then the closing row at 100%.
    double level = 0.0;
    std::int64_t cumulative = 0;
    bool done = false;
    h.for_each_bucket([&](std::int64_t, std::int64_t highest_equivalent, std::int64_t count) {
      if (done) return;
      cumulative += count;
      const double reached = 100.0 * static_cast<double>(cumulative) / static_cast<double>(total);
      while (reached >= level) {
        row(highest_equivalent, level, cumulative);
        if (cumulative == total) {
          row(highest_equivalent, 100.0, cumulative);
          done = true;
          return;
        }
        level = next_level(level, options.ticks_per_half_distance);
      }
    });
  }

  const std::int64_t max = h.max() == 0 ? 0 : h.highest_equivalent_value(h.max());
  fmt::format_to(std::back_inserter(out), "#[Mean    = {:12.{}f}, StdDeviation   = {:12.{}f}]\n", h.mean() / scale,
                 digits, h.stddev() / scale, digits);
  fmt::format_to(std::back_inserter(out), "#[Max     = {:12.{}f}, Total count    = {:12d}]\n",
                 static_cast<double>(max) / scale, digits, total);
  fmt::format_to(std::back_inserter(out), "#[Buckets = {:12d}, SubBuckets     = {:12d}]\n",
                 bucket_count(h.highest_trackable_value(), digits), sub_bucket_count(digits));
  return out;
}

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

template <class T>
bool parse_number(std::string_view field, T& out) {
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), out);
  return ec == std::errc{} && end == field.data() + field.size();
}

}  // namespace

result<std::vector<hgrm_point>> parse_percentile_distribution(std::string_view text) {
  std::vector<hgrm_point> points;
  std::size_t line_number = 0;
  while (!text.empty()) {
    ++line_number;
    const auto newline = text.find('\n');
    const std::string_view line = trim(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    if (line.empty() || line.front() == '#' || line.starts_with("Value")) continue;

    std::string_view fields[5];
    std::size_t n = 0;
    for (std::string_view rest = line; !rest.empty() && n < 5;) {
      const auto end = rest.find_first_of(" \t");
      fields[n++] = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view{} : trim(rest.substr(end));
    }
    hgrm_point p;
    // The fourth column (1/(1-percentile)) is derived, and absent or "inf" at 100%.
    if ((n != 3 && n != 4) || !parse_number(fields[0], p.value_millis) || !parse_number(fields[1], p.percentile) ||
        !parse_number(fields[2], p.total_count)) {
      return fail(base::errc::invalid_argument,
                  fmt::format("percentile distribution: line {} is not a row of value, percentile, total count: '{}'",
                              line_number, line));
    }
    points.push_back(p);
  }
  return points;
}

}  // namespace magnetar::perf
