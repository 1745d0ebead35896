// st_producer: the state of one scalable-topic producer (see magnetar/st/producer.h for
// what users see): a layout watch, a router, and one classic producer per segment.
//
// Send path (st_producer_send.cc): each accepted send gets a call-order number, is
// routed on the current layout and queued for its segment's producer (waiting for the
// producer while it is being made). Frames go to the segment producers from one
// outbox, drained by one thread at a time outside the lock, so sends reach them in
// the order they were accepted.
//
// Keeping a key's order across splits and merges: a segment is "retiring" when a send
// there failed because the segment is sealed (topic_terminated, already_closed, or the
// broker's text says terminated), or when a layout drops it while sends are in flight.
// While any segment retires, new sends are held in call order, and failed ones parked.
// A retiring segment is released once the layout no longer lists it as active and it
// has nothing in flight; then the parked and held sends are routed again, in call order,
// on the newest layout. A retiring segment the layout still lists after 10 checks
// (100, 200, ... 500 ms apart) is given up: its parked sends fail, the held ones go on.
// A send is tried at most 10 times.
//
// Threading: state under `_mutex`; user callbacks and calls into segment producers run
// without it. Timers and coroutines on the home shard.
#pragma once

#include "client/client_impl.h"
#include "client/producer_impl.h"
#include "client/st/dag_watch.h"
#include "client/st/segment_router.h"
#include "magnetar/st/config.h"
#include "magnetar/st/producer.h"

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace magnetar::st::detail {

inline constexpr int max_send_attempts = 10;

// Whether a send failed because its segment is sealed (or its producer gone), so that it
// is worth routing again on a newer layout.
bool is_segment_gone(const error& e);

// The classic config of one segment's producer.
magnetar::producer_config segment_producer_config(const producer_config& config, const segment_info& segment);

class st_producer : public std::enable_shared_from_this<st_producer> {
 public:
  st_producer(std::shared_ptr<client_detail::client_impl> client, std::string topic, producer_config config);
  ~st_producer();

  // The first layout; in the exclusive modes also a producer on every active segment.
  awaitable<result<void>> start();

  void send_async(magnetar::message m, send_callback done);
  void flush_async(std::function<void(result<void>)> done);
  awaitable<result<void>> close();
  // The client is closing: no waiting.
  void shutdown();

  const std::string& topic() const { return _topic; }
  const std::string& producer_name() const { return _config.producer_name; }
  std::int64_t last_sequence_id() const;
  const std::shared_ptr<client_detail::client_impl>& client() const { return _client; }

 private:
  using actions = std::vector<std::function<void()>>;
  using segment_producer = std::shared_ptr<client_detail::producer_impl>;

  struct pending_send {
    std::uint64_t seq = 0;  // call order
    magnetar::message m;
    send_callback done;
    int attempts = 0;
    std::uint64_t segment = 0;  // where it was last routed
  };
  struct slot {
    std::string topic;
    segment_producer producer;  // null until made (or after it went)
    bool creating = false;
    std::deque<pending_send> waiting;  // for the producer being made
    int in_flight = 0;                 // routed here, not completed
    bool retiring = false;
    int checks = 0;
  };
  struct outgoing {
    segment_producer producer;
    pending_send send;
  };
  struct flush_waiter {
    std::uint64_t upto;  // every send with seq < upto
    std::optional<error> failure;
    std::function<void(result<void>)> done;
  };

  void on_layout(const layout_ptr& now);
  // st_producer_send.cc
  void route_locked(pending_send s, actions& out);
  void create_segment_producer_locked(std::uint64_t segment);
  awaitable<void> make_segment_producer(std::uint64_t segment, segment_info info);
  void drain();
  void on_sent(std::uint64_t segment, pending_send s, result<magnetar::message_id> r);
  // A send that failed on `segment`: parked for another attempt when the segment is
  // gone, else completed with `e`.
  void handle_failure_locked(std::uint64_t segment, pending_send s, const error& e, actions& out);
  // Queues the send's callback; once it has run, settled() forgets the send.
  void complete_locked(pending_send& s, result<message_id> r, actions& out);
  void settled(std::uint64_t seq, const std::optional<error>& failure);
  void try_release_locked(actions& out);
  void arm_recheck_locked();
  void on_recheck();
  void close_slot_locked(std::uint64_t segment, actions& out);
  void fail_everything_locked(const error& e, actions& out);
  static void run(actions& a);

  const std::shared_ptr<client_detail::client_impl> _client;
  const std::string _topic;
  const producer_config _config;
  const std::shared_ptr<dag_watch> _watch;
  io::shard& _home;
  segment_router _router;

  mutable std::mutex _mutex;
  std::condition_variable _room;
  bool _closed = false;
  layout_ptr _layout;
  std::shared_ptr<const std::string> _topic_ref;  // the resolved name, stamped on ids
  std::map<std::uint64_t, slot> _slots;
  std::set<std::uint64_t> _retiring;
  std::vector<pending_send> _parked;
  std::deque<pending_send> _held;
  std::deque<outgoing> _outbox;
  bool _draining = false;
  std::uint64_t _next_seq = 0;
  std::set<std::uint64_t> _outstanding;  // seqs accepted, not completed
  std::vector<flush_waiter> _flushes;
  asio::steady_timer _recheck_timer;
  bool _recheck_armed = false;
  // The highest sequence id of segment producers closed since.
  std::int64_t _retired_last_sequence_id = -1;
};

}  // namespace magnetar::st::detail
