#include "meta/tests/store_suite.h"

#include <chrono>

namespace magnetar::meta::testing {

namespace {

// Only a broken store gets near this; a passing test never waits for it.
constexpr auto delivery_deadline = std::chrono::seconds(60);

}  // namespace

void notification_log::add(const notification& n) {
  {
    std::lock_guard lock(_mutex);
    _events.push_back(n);
  }
  _arrived.notify_all();
}

bool notification_log::wait_for(std::size_t count) {
  std::unique_lock lock(_mutex);
  return _arrived.wait_for(lock, delivery_deadline, [&] { return _events.size() >= count; });
}

bool notification_log::wait_until(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + delivery_deadline;
  std::unique_lock lock(_mutex);
  for (;;) {
    lock.unlock();
    if (done()) return true;
    lock.lock();
    if (std::chrono::steady_clock::now() >= deadline) return false;
    // A slice, not the whole wait: an arrival between done() and here would be missed.
    _arrived.wait_for(lock, std::chrono::milliseconds(50));
  }
}

std::vector<notification> notification_log::events() const {
  std::lock_guard lock(_mutex);
  return _events;
}

void store_test::SetUp() {
  if (auto why = GetParam().unavailable(); !why.empty()) GTEST_SKIP() << why;
  location = GetParam().make_location();
  s = location->open(clock);
  auto started = run(s->start());
  ASSERT_TRUE(started) << started.error();
}

void store_test::TearDown() {
  if (s) run(s->stop());
  s.reset();
  location.reset();
}

void store_test::reopen() {
  run(s->stop());
  s.reset();
  s = location->open(clock);
  auto started = run(s->start());
  ASSERT_TRUE(started) << started.error();
}

listener_handle store_test::listen(notification_log& log, unsigned shard_index) {
  return s->register_listener(shards[shard_index].executor(), [&log](const notification& n) { log.add(n); });
}

stat store_test::put_ok(const std::string& path, const std::string& value) {
  auto r = run(s->put(path, value, std::nullopt));
  EXPECT_TRUE(r) << "put " << path << ": " << r.error();
  return r ? r.value() : stat{};
}

std::vector<std::string> store_test::children_ok(const std::string& path) {
  auto r = run(s->children(path));
  EXPECT_TRUE(r) << "children " << path << ": " << r.error();
  return r ? r.value() : std::vector<std::string>{};
}

session_id store_test::open_session_ok() {
  auto r = run(s->open_session());
  EXPECT_TRUE(r) << r.error();
  return r ? r.value() : no_session;
}

std::string backend_name(const ::testing::TestParamInfo<store_backend>& info) { return info.param.name; }

}  // namespace magnetar::meta::testing
