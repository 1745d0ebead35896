// application: one backend application of the IoT telemetry workload: a Key_Shared
// subscription on every topic, consumed by `podsPerApplication` pods, each a Pulsar
// client of its own with one consumer over all topics (as isolated pods would be).
//
// The pods share the application's sequence tracker, so order is checked as the
// application sees it while Key_Shared moves hash ranges between pods (restarts).
// A late application (applications.joinSeconds > 0) holds its subscription from the start
// without a consumer, so its backlog builds up, and opens its pods on a thread of its own
// `joinSeconds` after the gateways' measurement start; it tracks when it has caught up.
//
// Each pod receives on a thread of its own; everything shared is a thread-safe type
// (tracker, timeline) or an atomic, and each pod keeps its own latency histogram,
// merged when the pods have stopped.
#pragma once

#include "base/histogram.h"
#include "base/result.h"
#include "magnetar/client.h"
#include "perf/measure/catch_up_tracker.h"
#include "perf/measure/sequence_tracker.h"
#include "perf/measure/timeline.h"
#include "perf/scenario/settings.h"
#include "perf/workload/coordination.h"
#include "perf/workload/workload_options.h"

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace magnetar::perf {

class application {
 public:
  // `io`: the io threads that every pod of every application shares
  // (applications.client.ioThreads), as upstream's framework shares its clients' resources.
  application(const iot_telemetry_settings& settings, int index, const workload_options& options,
              const coordination& markers, std::shared_ptr<client_resources> io);
  ~application();

  // Opens every pod (each subscribes to every topic) and starts its receive thread. A late
  // application instead creates its subscription, marks every warmup round received (it
  // reads them after its join) and starts the thread that joins it; that thread gives up
  // at `deadline`.
  result<void> start(std::chrono::steady_clock::time_point deadline);
  bool late() const { return _join_seconds > 0; }
  // Whether a late application's join failed (the reason was printed); false otherwise.
  bool join_failed() const { return _join_failed.load(); }
  // Asks pod `pod` to close its consumer and client and open them again.
  void restart_pod(int pod);
  // Unique messages held so far (warmup included).
  std::uint64_t unique() const;
  // Stops every pod and waits for its thread.
  void stop();
  // Writes the summary, state, histogram and ordering violations to
  // <output>/<subscription>/.
  result<void> write_results(bool timed_out);

  const std::string& subscription() const { return _subscription; }

 private:
  struct pod;
  result<void> open_pods();
  result<void> create_subscription() const;
  void mark_warmup_received(int rounds);
  void join_when_due(std::chrono::steady_clock::time_point deadline);
  void receive_loop(pod& p);
  void handle(pod& p, const message& m);
  void note_warmup_received();
  int topic_index(const std::string& topic) const;
  result<consumer> subscribe(client& c, int pod_index) const;
  result<client> create_client() const;

  const iot_telemetry_settings& _settings;
  const workload_options& _options;
  const coordination& _markers;
  std::shared_ptr<client_resources> _io;
  std::string _subscription;
  int _join_seconds = 0;
  std::filesystem::path _output;
  std::vector<std::string> _topics;
  sequence_tracker _tracker;
  timeline _timeline;
  std::unique_ptr<timeline_writer> _timeline_writer;
  catch_up_tracker _catch_up;
  // Guards _pods while the join thread opens them and stop() closes them.
  std::mutex _pods_mutex;
  std::vector<std::unique_ptr<pod>> _pods;
  std::atomic<bool> _stopping{false};
  std::atomic<bool> _join_failed{false};
  std::jthread _joiner;

  std::atomic<std::uint64_t> _received{0};
  std::atomic<std::uint64_t> _invalid{0};
  std::atomic<std::uint64_t> _measured{0};
  std::atomic<std::int64_t> _first_measured_millis{0};
  std::atomic<std::int64_t> _last_measured_millis{0};
  std::atomic<std::uint64_t> _pod_restarts{0};
  std::mutex _warmup_mutex;
  std::uint64_t _warmup_unique = 0;
  int _warmup_rounds_marked = 0;
};

}  // namespace magnetar::perf
