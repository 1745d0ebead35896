// st_queue_consumer: the state of one scalable-topic queue consumer (see
// magnetar/st/queue_consumer.h for what users see): a layout watch and one Shared
// classic consumer per segment (active and sealed), fanned into one receive queue by
// segment_feed loops.
//
// start() completes when every segment of the first layout is subscribed (the first
// failure wins and closes the others). Later layouts: segments that left the DAG are
// closed, new ones subscribed best-effort (a failed one is tried again on the next
// layout). A segment whose consumer reports topic_terminated was read to its end: it is
// closed and remembered as drained, so a layout still listing it (sealed) does not
// subscribe it again, which would deliver its unacknowledged tail twice; it is
// forgotten once the layout drops it.
//
// Threading: state under `_mutex`; consumers are called without it.
#pragma once

#include "client/client_impl.h"
#include "client/consumer_impl.h"
#include "client/st/dag_watch.h"
#include "client/st/segment_feed.h"
#include "magnetar/st/config.h"
#include "magnetar/st/queue_consumer.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>

namespace magnetar::st::detail {

// The classic options of one segment's consumer (shared by queue and stream consumers).
client_detail::consumer_options segment_consumer_options(const segment_info& segment, const std::string& subscription,
                                                         subscription_type type, initial_position position,
                                                         const std::string& consumer_name, unsigned receiver_queue_size,
                                                         std::chrono::milliseconds ack_group_time,
                                                         const std::map<std::string, std::string>& properties);

class st_queue_consumer : public std::enable_shared_from_this<st_queue_consumer> {
 public:
  st_queue_consumer(std::shared_ptr<client_detail::client_impl> client, std::string topic, std::string subscription,
                    queue_consumer_config config);
  ~st_queue_consumer();

  awaitable<result<void>> start();

  result<message> receive(std::optional<std::chrono::milliseconds> timeout);
  void receive_async(std::function<void(result<message>)> done);
  result<std::vector<message>> receive_multi(std::size_t max, std::chrono::milliseconds timeout);
  result<void> acknowledge(const message_id& id);
  result<void> negative_acknowledge(const message_id& id);
  awaitable<result<void>> close();
  void shutdown();

  const std::string& topic() const { return _topic; }
  const std::string& subscription() const { return _subscription; }
  const std::shared_ptr<client_detail::client_impl>& client() const { return _client; }

 private:
  void on_layout(const layout_ptr& now);
  awaitable<result<void>> subscribe_segment(segment_info segment);
  void on_feed_ended(std::uint64_t segment, const error& why);
  std::shared_ptr<segment_feed> feed_of(std::int64_t segment) const;

  const std::shared_ptr<client_detail::client_impl> _client;
  const std::string _topic;
  const std::string _subscription;
  const queue_consumer_config _config;
  const std::shared_ptr<dag_watch> _watch;
  const std::shared_ptr<delivery_queue> _queue;
  io::shard& _home;

  mutable std::mutex _mutex;
  bool _closed = false;
  bool _started = false;
  std::shared_ptr<const std::string> _topic_ref;
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> _feeds;
  std::set<std::uint64_t> _subscribing;
  std::set<std::uint64_t> _drained;
};

}  // namespace magnetar::st::detail
