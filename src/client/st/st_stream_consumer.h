// st_stream_consumer: the state of one stream consumer (see
// magnetar/st/stream_consumer.h for what users see): an assignment session, one
// Exclusive classic consumer per assigned segment, a position tracker and the shared
// receive queue.
//
// Assignments come from the session's gate (in epoch order, replayed when the listener
// is set). Each one is reconciled against what is attached: released segments are
// stopped and closed at once, their messages still queued dropped and their vector
// entry forgotten; new ones are attached (Exclusive, retrying consumer_busy and the
// broker's ConsumerAssignError up to 10 times while still assigned). Reconciliations
// run one at a time; one arriving meanwhile is taken up after. The first assignment
// completes start() once every segment is attached, or fails it (with not_supported when
// it carries bucket ranges: PIP-486 bucket sharing is not built; later ones skip such
// segments with a warning). A segment whose consumer reports topic_terminated was read
// to its end: closed, and not attached again while the assignment lists it.
//
// Each message is stamped with the tracker's position vector as it enters the queue;
// acknowledge_cumulative sends a cumulative ack of each vector entry to that segment's
// consumer (none for segments no longer attached).
//
// Threading: state under `_mutex`; consumers are called without it.
#pragma once

#include "client/client_impl.h"
#include "client/consumer_impl.h"
#include "client/st/assignment_session.h"
#include "client/st/position_tracker.h"
#include "client/st/segment_feed.h"
#include "magnetar/st/config.h"
#include "magnetar/st/stream_consumer.h"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace magnetar::st::detail {

inline constexpr int max_attach_attempts = 10;

// A previous Exclusive owner still holds the segment: worth another attempt.
bool is_rebalance_collision(const error& e);

class st_stream_consumer : public std::enable_shared_from_this<st_stream_consumer> {
 public:
  st_stream_consumer(std::shared_ptr<client_detail::client_impl> client, std::string topic, std::string subscription,
                     stream_consumer_config config);
  ~st_stream_consumer();

  awaitable<result<void>> start();

  result<message> receive(std::optional<std::chrono::milliseconds> timeout);
  void receive_async(std::function<void(result<message>)> done);
  result<std::vector<message>> receive_multi(std::size_t max, std::chrono::milliseconds timeout);
  result<void> acknowledge_cumulative(const message_id& id);
  awaitable<result<void>> close();
  void shutdown();

  const std::string& topic() const { return _topic; }
  const std::string& subscription() const { return _subscription; }
  const std::string& consumer_name() const { return _session->consumer_name(); }
  const std::shared_ptr<client_detail::client_impl>& client() const { return _client; }

 private:
  using start_callback = std::function<void(result<void>)>;

  void on_assignment(const assignment& a);
  awaitable<void> reconcile();
  // Attaches one assigned segment; success also when it is no longer assigned.
  awaitable<result<void>> attach_segment(assigned_segment s);
  bool still_assigned_locked(const assigned_segment& s) const;
  void on_feed_ended(std::uint64_t segment, const error& why);

  const std::shared_ptr<client_detail::client_impl> _client;
  const std::string _topic;
  const std::string _subscription;
  const stream_consumer_config _config;
  const std::shared_ptr<assignment_session> _session;
  const std::shared_ptr<delivery_queue> _queue;
  const std::shared_ptr<position_tracker> _tracker;
  const std::shared_ptr<const std::string> _topic_ref;
  io::shard& _home;

  mutable std::mutex _mutex;
  bool _closed = false;
  std::optional<assignment> _desired;
  bool _reconciling = false;
  bool _dirty = false;
  bool _first_applied = false;
  start_callback _first_done;
  std::optional<result<void>> _first_result;  // when it came before start() waited
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> _feeds;
  std::map<std::uint64_t, assigned_segment> _attached;
  std::set<std::uint64_t> _drained;
};

}  // namespace magnetar::st::detail
