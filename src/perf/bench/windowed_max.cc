#include "perf/bench/windowed_max.h"

#include <algorithm>
#include <cstdint>

namespace magnetar::perf {

windowed_max::windowed_max(std::chrono::seconds span) : _values(static_cast<std::size_t>(span / window) + 1) {}

void windowed_max::record(duration since_start, double value) {
  const auto i = static_cast<std::size_t>(std::max<std::int64_t>(0, since_start / window));
  std::lock_guard lock(_mutex);
  if (i >= _values.size()) _values.resize(i + 1);
  _values[i] = std::max(_values[i], value);
}

double windowed_max::max_between(duration from, duration to) const {
  std::lock_guard lock(_mutex);
  double out = 0;
  for (auto i = static_cast<std::size_t>(std::max<std::int64_t>(0, from / window));
       i < _values.size() && static_cast<std::int64_t>(i) * window.count() < to / std::chrono::milliseconds(1); ++i) {
    out = std::max(out, _values[i]);
  }
  return out;
}

}  // namespace magnetar::perf
