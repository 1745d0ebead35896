// impairment_schedule: applies and removes the timed impairments (those with `start`)
// when their time comes: `start` after their anchor (the gateways' `gateways-started` or
// `measurement-started` event, as the workloads log them), for `duration` when set.
// Impairments without `start` are the run's own: the launcher applies them before the
// workloads start and removes them at the end.
//
// A thread wakes every 10 ms: an impairment acts within about that much of its time
// (the network summary records when each really acted). A failure is handed to
// `on_failure` once; the launcher then stops the run.
//
// Thread-safety: start() and stop() from the owner; the thread calls the engine (which
// locks) and the callbacks.
#pragma once

#include "perf/network/impairment_engine.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <thread>

namespace magnetar::perf {

struct anchor_times {
  std::optional<std::chrono::system_clock::time_point> gateways_started;
  std::optional<std::chrono::system_clock::time_point> measurement_started;
};

// The anchors in an events.csv (`epochMillis,source,event`) as far as it is written.
anchor_times read_anchor_times(const std::filesystem::path& events_csv);

class impairment_schedule {
 public:
  impairment_schedule(impairment_engine& engine, std::function<anchor_times()> anchors,
                      std::function<void(const std::string&)> on_failure);
  ~impairment_schedule() { stop(); }
  impairment_schedule(const impairment_schedule&) = delete;
  impairment_schedule& operator=(const impairment_schedule&) = delete;

  void start();
  void stop();

  // One pass over the timed impairments at `now` (the thread's step; tests call it).
  void step(std::chrono::system_clock::time_point now);

 private:
  impairment_engine& _engine;
  std::function<anchor_times()> _anchors;
  std::function<void(const std::string&)> _on_failure;
  anchor_times _known;
  bool _failed = false;
  std::atomic<bool> _stop{false};
  std::thread _thread;
};

}  // namespace magnetar::perf
