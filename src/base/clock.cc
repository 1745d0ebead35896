#include "base/clock.h"

#include "base/assert.h"

#include <utility>
#include <vector>

namespace magnetar::base {
namespace {

class real_clock final : public clock {
 public:
  time_point now() const noexcept override { return std::chrono::steady_clock::now(); }
  wall_time_point wall_now() const noexcept override { return std::chrono::system_clock::now(); }
};

}  // namespace

clock& system_clock() {
  static real_clock instance;
  return instance;
}

manual_clock::manual_clock(wall_time_point wall_start)
    : _start(time_point(std::chrono::hours(1))), _wall_start(wall_start) {}

clock::time_point manual_clock::now() const noexcept {
  return _start + duration(_elapsed.load(std::memory_order_acquire));
}

clock::wall_time_point manual_clock::wall_now() const noexcept {
  return _wall_start + std::chrono::duration_cast<wall_time_point::duration>(now() - _start);
}

void manual_clock::advance(duration by) {
  MAGNETAR_ASSERT(by.count() >= 0, "a manual clock only moves forward");
  std::vector<std::function<void()>> due;
  {
    std::lock_guard lock(_mutex);
    _elapsed.fetch_add(by.count(), std::memory_order_acq_rel);
    const auto current = now();
    while (!_wakeups.empty() && _wakeups.begin()->first.first <= current) {
      auto node = _wakeups.extract(_wakeups.begin());
      _deadline_of.erase(node.key().second);
      due.push_back(std::move(node.mapped()));
    }
  }
  for (auto& wakeup : due) wakeup();
}

manual_clock::wakeup_id manual_clock::call_at(time_point deadline, std::function<void()> wakeup) {
  wakeup_id id;
  {
    std::lock_guard lock(_mutex);
    id = _next_id++;
    if (deadline > now()) {
      _wakeups.emplace(std::pair(deadline, id), std::move(wakeup));
      _deadline_of.emplace(id, deadline);
      return id;
    }
  }
  wakeup();
  return id;
}

bool manual_clock::cancel(wakeup_id id) {
  std::lock_guard lock(_mutex);
  auto it = _deadline_of.find(id);
  if (it == _deadline_of.end()) return false;
  _wakeups.erase(std::pair(it->second, id));
  _deadline_of.erase(it);
  return true;
}

std::size_t manual_clock::pending_wakeups() const {
  std::lock_guard lock(_mutex);
  return _wakeups.size();
}

}  // namespace magnetar::base
