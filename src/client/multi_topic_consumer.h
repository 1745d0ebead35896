// multi_topic_consumer: one consumer over several topics (a list, the topics of a
// namespace that match a pattern, or a partitioned topic's partitions), made of one
// consumer_impl per topic or partition and fanning their messages into one receive
// queue, as upstream's MultiTopicsConsumerImpl and PatternMultiTopicsConsumerImpl.
//
// Each child keeps its own flow permits; a message moves from a child's queue to the
// shared one while that has room (receiver_queue_size), so a slow application holds the
// brokers back instead of filling memory. Acks, negative acks and seeks to an id go to
// the child that received the message, found by the id's topic name (or, on one
// partitioned topic, its partition). Seeks by time or to earliest/latest, redelivery,
// unsubscribe and close apply to every child. get_last_message_id is not supported (as
// upstream); readers over partitions use it only through has_message_available.
//
// A pattern consumer lists its namespace again every pattern_auto_discovery_period:
// new matching topics are subscribed (from the subscription's initial position), and
// the children of topics that went away are closed.
//
// Threading: state under `_mutex`; children are called without it held. Children call
// back (receive_async) on io threads; the app's callbacks run after the lock is released.
#pragma once

#include "client/client_impl.h"
#include "client/consumer_base.h"
#include "client/consumer_impl.h"
#include "client/receive_waits.h"
#include "client/topic_pattern.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace magnetar::client_detail {

struct multi_topic_options {
  std::string subscription;
  consumer_config config;
  bool durable = true;
  // Readers: where every partition starts.
  message_id start = message_id::earliest();
  bool start_inclusive = false;
};

class multi_topic_consumer final : public consumer_base, public std::enable_shared_from_this<multi_topic_consumer> {
 public:
  // `name` is what topic() answers: the partitioned topic, the pattern, or the list.
  multi_topic_consumer(std::shared_ptr<client_impl> client, std::string name, multi_topic_options options,
                       std::optional<topic_pattern> pattern);
  ~multi_topic_consumer() override;

  // Subscribes to every topic (full names; a partitioned one as all its partitions) at
  // once; if one fails, the others are closed and its error returned. Then starts the
  // pattern's re-discovery, if any.
  awaitable<result<void>> start(std::vector<std::string> topics);

  result<message> receive(std::optional<std::chrono::milliseconds> timeout) override;
  void receive_async(std::function<void(result<message>)> done) override;
  result<std::vector<message>> batch_receive(const batch_receive_policy& policy) override;

  result<void> acknowledge(const message_id& id) override;
  result<void> acknowledge_cumulative(const message_id& id) override;
  result<void> negative_acknowledge(const message_id& id) override;
  void reconsume_later(const message& m, std::chrono::milliseconds delay,
                       std::function<void(result<void>)> done) override;
  result<void> redeliver_unacknowledged() override;

  awaitable<result<void>> seek(std::optional<message_id> id, std::optional<std::uint64_t> publish_time_ms) override;
  awaitable<result<message_id>> get_last_message_id() override;
  awaitable<result<bool>> has_message_available() override;
  awaitable<result<void>> unsubscribe() override;
  awaitable<result<void>> close() override;
  void shutdown() override;

  const std::string& topic() const override { return _name; }
  const std::string& subscription() const override { return _options.subscription; }
  std::string consumer_name() const override { return _consumer_name; }
  bool is_active() const override;
  bool is_connected() const override;
  bool is_closed() const override;
  bool has_reached_end_of_topic() const override;
  const std::shared_ptr<client_impl>& client() const override { return _client; }

  // The topics and partitions consumed now, sorted.
  std::vector<std::string> topics() const;

 private:
  enum class state { starting, ready, closing, closed };
  using actions = std::vector<std::function<void()>>;

  struct child {
    std::string topic;   // the topic or partition it consumes
    std::string parent;  // the topic as subscribed (the partitioned topic, or itself)
    int partition = -1;
    std::shared_ptr<consumer_impl> consumer;
    // Under the parent's _mutex:
    bool waiting = false;  // a receive_async is outstanding on the child
    bool pumping = false;  // a pump loop runs for it
    bool paused = false;   // stopped while the shared queue is full
    bool seeking = false;  // what it hands over meanwhile is from before the seek
    bool gone = false;     // closed, failed or dropped: no more pumping
  };
  using child_ptr = std::shared_ptr<child>;

  // Subscribes children for `topics` not consumed yet; adds them (unpumped) on success.
  awaitable<result<std::vector<child_ptr>>> add_topics(std::vector<std::string> topics);
  // Closes the children of `parent` and forgets them (the pattern no longer lists it).
  awaitable<void> remove_topic(std::string parent);
  void arm_discovery();
  awaitable<void> discover();

  // Moves messages from the child's queue to the shared one while there is room.
  void pump(const child_ptr& c);
  void on_child_message(const child_ptr& c, result<message> r);
  void enqueue_locked(message m, actions& out);
  // Children paused on a full queue, to pump again once it has room.
  std::vector<child_ptr> resumable_locked();
  void resume(const std::vector<child_ptr>& children);
  void drop_queued_locked(const std::function<bool(const message&)>& which);
  // The child that received `id`, or nullptr.
  child_ptr child_for_locked(const message_id& id) const;
  result<child_ptr> route(const message_id& id, std::string_view what) const;
  std::vector<child_ptr> children_locked() const;
  void close_waiters_locked(const error& e, actions& out);
  error closed_error_locked() const;
  static void run(actions& a);

  const std::shared_ptr<client_impl> _client;
  const std::string _name;
  const multi_topic_options _options;
  const std::optional<topic_pattern> _pattern;
  const std::string _consumer_name;
  const unsigned _queue_size;
  io::shard& _home;

  mutable std::mutex _mutex;
  std::condition_variable _arrived;
  receive_waits _blocked_receives;  // woken by arrivals only when one can go on
  state _state = state::starting;
  std::optional<error> _failure;
  // By the child's topic (partition) name.
  std::map<std::string, child_ptr> _children;
  // The topics as subscribed (partitioned ones by their own name).
  std::map<std::string, std::vector<child_ptr>> _by_parent;
  std::deque<message> _queue;
  std::size_t _queued_bytes = 0;
  std::deque<std::function<void(result<message>)>> _waiters;
  asio::steady_timer _discovery_timer;
};

}  // namespace magnetar::client_detail
