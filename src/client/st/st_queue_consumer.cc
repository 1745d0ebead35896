#include "client/st/st_queue_consumer.h"

#include "client/run_all.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::st::detail {

client_detail::consumer_options segment_consumer_options(const segment_info& segment, const std::string& subscription,
                                                         subscription_type type, initial_position position,
                                                         const std::string& consumer_name, unsigned receiver_queue_size,
                                                         std::chrono::milliseconds ack_group_time,
                                                         const std::map<std::string, std::string>& properties) {
  client_detail::consumer_options o;
  o.topic = segment.topic;
  o.subscription = subscription;
  o.config.type = type;
  o.config.position = position;
  if (!consumer_name.empty()) o.config.consumer_name = fmt::format("{}-seg-{}", consumer_name, segment.id);
  o.config.receiver_queue_size = receiver_queue_size;
  o.config.ack_group_time = ack_group_time;
  o.config.properties = properties;
  // PIP-475: a migrated topic's broker counts connections without this as old clients.
  if (segment.is_legacy()) o.config.properties["__pulsar.v5.managed"] = "true";
  return o;
}

st_queue_consumer::st_queue_consumer(std::shared_ptr<client_detail::client_impl> client, std::string topic,
                                     std::string subscription, queue_consumer_config config)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _subscription(std::move(subscription)),
      _config(std::move(config)),
      _watch(std::make_shared<dag_watch>(_client, _topic, true)),
      _queue(std::make_shared<delivery_queue>(_config.receive_queue_capacity)),
      _home(_client->next_shard()) {}

st_queue_consumer::~st_queue_consumer() {
  _watch->close();
  _queue->close();
  std::lock_guard lock(_mutex);
  for (auto& [id, f] : _feeds) f->stop();
  // The segment consumers close themselves as their last reference goes.
}

awaitable<result<void>> st_queue_consumer::start() {
  if (_subscription.empty()) co_return fail(client_errc::invalid_argument, "the subscription name is empty");
  _watch->set_listener([weak = weak_from_this()](const layout_ptr& now, const layout_ptr&) {
    if (auto self = weak.lock()) self->on_layout(now);
  });
  MAGNETAR_CO_TRY(first, co_await _watch->start());
  std::vector<client_detail::task<void>> tasks;
  {
    std::lock_guard lock(_mutex);
    _topic_ref = std::make_shared<const std::string>(_watch->topic_name());
    for (const auto* list : {&first->active(), &first->sealed()}) {
      for (const auto& seg : *list) {
        if (_feeds.contains(seg.id) || !_subscribing.insert(seg.id).second) continue;
        tasks.push_back([self = shared_from_this(), seg]() { return self->subscribe_segment(seg); });
      }
    }
  }
  auto results = co_await client_detail::run_all(*_client, std::move(tasks));
  if (auto r = client_detail::first_failure(results); !r) {
    (void)co_await close();
    co_return r.error();
  }
  {
    std::lock_guard lock(_mutex);
    _started = true;
  }
  // A layout that came while the first one's segments were being subscribed.
  on_layout(_watch->layout());
  co_return success();
}

awaitable<result<void>> st_queue_consumer::subscribe_segment(segment_info segment) {
  auto options = segment_consumer_options(segment, _subscription, subscription_type::shared, _config.position,
                                          _config.consumer_name, _config.receiver_queue_size, _config.ack_group_time,
                                          _config.properties);
  options.config.negative_ack_redelivery_delay = _config.negative_ack_redelivery_delay;
  auto c = std::make_shared<client_detail::consumer_impl>(_client, std::move(options));
  auto r = co_await c->start();
  std::shared_ptr<segment_feed> feed;
  bool unwanted = false;
  {
    std::lock_guard lock(_mutex);
    _subscribing.erase(segment.id);
    if (!r) {
      spdlog::info("client: st queue consumer {} on {}: segment {}: {}", _subscription, _topic, segment.id,
                   r.error().message());
      co_return r.error();
    }
    auto layout = _watch->layout();
    unwanted = _closed || _drained.contains(segment.id) || (layout && layout->find(segment.id) == nullptr);
    if (!unwanted) {
      feed = std::make_shared<segment_feed>(segment.id, c, _queue, nullptr,
                                            [weak = weak_from_this()](std::uint64_t id, const error& why) {
                                              if (auto self = weak.lock()) self->on_feed_ended(id, why);
                                            });
      _feeds[segment.id] = feed;
    }
  }
  if (unwanted) {
    (void)co_await c->close();
    co_return success();
  }
  feed->start();
  co_return success();
}

void st_queue_consumer::on_layout(const layout_ptr& now) {
  std::vector<std::shared_ptr<segment_feed>> leaving;
  std::vector<segment_info> joining;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    for (auto it = _feeds.begin(); it != _feeds.end();) {
      if (now->find(it->first) != nullptr) {
        ++it;
        continue;
      }
      leaving.push_back(it->second);
      it = _feeds.erase(it);
    }
    std::erase_if(_drained, [&](std::uint64_t id) { return now->find(id) == nullptr; });
    // Before start() finishes, it subscribes the first layout's segments itself.
    if (_started) {
      for (const auto* list : {&now->active(), &now->sealed()}) {
        for (const auto& seg : *list) {
          if (_feeds.contains(seg.id) || _drained.contains(seg.id) || _subscribing.contains(seg.id)) continue;
          _subscribing.insert(seg.id);
          joining.push_back(seg);
        }
      }
    }
  }
  for (auto& f : leaving) {
    f->stop();
    asio::co_spawn(
        _home.executor(), [c = f->consumer()]() -> awaitable<void> { (void)co_await c->close(); }, asio::detached);
  }
  for (auto& seg : joining) {
    asio::co_spawn(
        _home.executor(),
        [self = shared_from_this(), seg]() -> awaitable<void> { (void)co_await self->subscribe_segment(seg); },
        asio::detached);
  }
}

void st_queue_consumer::on_feed_ended(std::uint64_t segment, const error& why) {
  std::shared_ptr<segment_feed> feed;
  {
    std::lock_guard lock(_mutex);
    auto it = _feeds.find(segment);
    if (it == _feeds.end()) return;
    feed = it->second;
    _feeds.erase(it);
    if (why == client_errc::topic_terminated) {
      _drained.insert(segment);
    } else if (!_closed) {
      spdlog::warn("client: st queue consumer {} on {}: segment {} stopped: {}", _subscription, _topic, segment,
                   why.message());
    }
  }
  asio::co_spawn(
      _home.executor(), [c = feed->consumer()]() -> awaitable<void> { (void)co_await c->close(); }, asio::detached);
}

std::shared_ptr<segment_feed> st_queue_consumer::feed_of(std::int64_t segment) const {
  std::lock_guard lock(_mutex);
  if (segment < 0) return nullptr;
  auto it = _feeds.find(static_cast<std::uint64_t>(segment));
  return it == _feeds.end() ? nullptr : it->second;
}

result<message> st_queue_consumer::receive(std::optional<std::chrono::milliseconds> timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  MAGNETAR_TRY(d, _queue->receive(timeout));
  std::lock_guard lock(_mutex);
  return to_message(std::move(d), _topic_ref);
}

void st_queue_consumer::receive_async(std::function<void(result<message>)> done) {
  std::shared_ptr<const std::string> topic;
  {
    std::lock_guard lock(_mutex);
    topic = _topic_ref;
  }
  _queue->receive_async([topic, done = std::move(done)](result<delivery> r) {
    if (!r) {
      done(r.error());
    } else {
      done(to_message(std::move(r).value(), topic));
    }
  });
}

result<std::vector<message>> st_queue_consumer::receive_multi(std::size_t max, std::chrono::milliseconds timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  MAGNETAR_TRY(batch, _queue->receive_multi(max, timeout));
  std::lock_guard lock(_mutex);
  std::vector<message> out;
  out.reserve(batch.size());
  for (auto& d : batch) out.push_back(to_message(std::move(d), _topic_ref));
  return out;
}

result<void> st_queue_consumer::acknowledge(const message_id& id) {
  {
    std::lock_guard lock(_mutex);
    if (_closed) return fail(client_errc::already_closed, fmt::format("the consumer of {} is closed", _topic));
  }
  // A segment no longer consumed: nothing to do, the broker delivers it again.
  auto f = feed_of(id.segment_id());
  if (!f) return success();
  return f->consumer()->acknowledge(id.segment_message_id());
}

result<void> st_queue_consumer::negative_acknowledge(const message_id& id) {
  {
    std::lock_guard lock(_mutex);
    if (_closed) return fail(client_errc::already_closed, fmt::format("the consumer of {} is closed", _topic));
  }
  auto f = feed_of(id.segment_id());
  if (!f) return success();
  return f->consumer()->negative_acknowledge(id.segment_message_id());
}

awaitable<result<void>> st_queue_consumer::close() {
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> feeds;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return success();
    _closed = true;
    feeds.swap(_feeds);
  }
  _watch->close();
  _queue->close();
  std::vector<client_detail::task<void>> tasks;
  for (auto& [id, f] : feeds) {
    f->stop();
    tasks.push_back([c = f->consumer()]() { return c->close(); });
  }
  (void)co_await client_detail::run_all(*_client, std::move(tasks));
  co_return success();
}

void st_queue_consumer::shutdown() {
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> feeds;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _closed = true;
    feeds.swap(_feeds);
  }
  _watch->close();
  _queue->close();
  for (auto& [id, f] : feeds) {
    f->stop();
    f->consumer()->shutdown();
  }
}

}  // namespace magnetar::st::detail
