// The behaviour suite of meta::store, written against the interface so that
// every backend runs the same tests: a backend instantiates store_test with
// a store_backend (see rocksdb_store_test.cc).
//
// Each test gets a fresh backing location (an empty directory, a fresh
// ZooKeeper chroot), a started store on it and two shards. Tests drive the
// store from shard 0 with run(); reopen() stops the store without closing
// its sessions (what a crashed process leaves) and starts a new one over the
// same location.
#pragma once

#include "base/clock.h"
#include "io/block_on.h"
#include "io/running_shards.h"
#include "meta/store.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace magnetar::meta::testing {

// Where a backend keeps its data for one test; removed with the object.
class store_location {
 public:
  virtual ~store_location() = default;
  // A new, unstarted store over this location. Called again to reopen once
  // the previous store is stopped and destroyed.
  virtual std::unique_ptr<store> open(base::clock& clock) = 0;
};

struct store_backend {
  std::string name;
  std::function<std::unique_ptr<store_location>()> make_location;
  // Where a backend differs by design (its header says why); tests of the
  // embedded behaviour skip there.
  bool server_clock = false;            // a node's times are the server's, not the test's clock
  bool crash_keeps_ephemerals = false;  // a dead process's ephemerals wait for its session to time out
  // Why the backend can't run here (e.g. no ZooKeeper server), or empty: the
  // tests skip with this message.
  std::function<std::string()> unavailable = [] { return std::string(); };
};

// Collects notifications delivered on a listener's executor, for a test
// thread to wait on.
class notification_log {
 public:
  void add(const notification& n);
  // Waits until at least `count` notifications arrived (false after a
  // generous deadline, which only a broken store reaches).
  bool wait_for(std::size_t count);
  // Waits until `done()` holds (checked at each arrival); false after the deadline.
  bool wait_until(const std::function<bool()>& done);
  std::vector<notification> events() const;

 private:
  mutable std::mutex _mutex;
  std::condition_variable _arrived;
  std::vector<notification> _events;
};

class store_test : public ::testing::TestWithParam<store_backend> {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Runs a store call on shard 0 and waits for it.
  template <class T>
  T run(awaitable<T> work) {
    return io::block_on(shards[0], std::move(work));
  }

  // Stops the store (sessions stay open, as when a process dies) and starts
  // a new one over the same data.
  void reopen();

  // Registers a listener on `shard_index` that records into `log`.
  listener_handle listen(notification_log& log, unsigned shard_index = 1);

  // Shorthands for the common calls; they fail the test when the call fails.
  stat put_ok(const std::string& path, const std::string& value = {});
  std::vector<std::string> children_ok(const std::string& path);
  session_id open_session_ok();

  base::manual_clock clock;
  // Declared before the shards so that they outlive every listener call.
  notification_log seen;
  notification_log seen_too;
  io::running_shards shards{2};
  std::unique_ptr<store_location> location;
  std::unique_ptr<store> s;
};

std::string backend_name(const ::testing::TestParamInfo<store_backend>& info);

}  // namespace magnetar::meta::testing
