#include "client/st/st_stream_consumer.h"

#include "client/run_all.h"
#include "client/st/st_queue_consumer.h"
#include "io/await_callback.h"
#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

namespace magnetar::st::detail {

namespace {
std::chrono::milliseconds attach_retry_delay(int attempt) {
  return std::chrono::milliseconds(std::min(100 * (attempt + 1), 500));
}

awaitable<void> sleep_for(std::chrono::milliseconds d) {
  asio::steady_timer t(co_await asio::this_coro::executor);
  t.expires_after(d);
  boost::system::error_code ec;
  co_await t.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}
}  // namespace

bool is_rebalance_collision(const error& e) {
  return e == client_errc::consumer_busy || e.detail().find("ConsumerAssignError") != std::string::npos;
}

st_stream_consumer::st_stream_consumer(std::shared_ptr<client_detail::client_impl> client, std::string topic,
                                       std::string subscription, stream_consumer_config config)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _subscription(std::move(subscription)),
      _config(std::move(config)),
      _session(std::make_shared<assignment_session>(
          _client, _topic, _subscription,
          _config.consumer_name.empty() ? random_stream_consumer_name() : _config.consumer_name)),
      _queue(std::make_shared<delivery_queue>(_config.receive_queue_capacity)),
      _tracker(std::make_shared<position_tracker>()),
      _topic_ref(std::make_shared<const std::string>(_topic)),
      _home(_client->next_shard()) {}

st_stream_consumer::~st_stream_consumer() {
  _session->close();
  _queue->close();
  std::lock_guard lock(_mutex);
  for (auto& [id, f] : _feeds) f->stop();
}

awaitable<result<void>> st_stream_consumer::start() {
  if (_subscription.empty()) co_return fail(client_errc::invalid_argument, "the subscription name is empty");
  _session->gate().set_listener([weak = weak_from_this()](const assignment& a, const std::optional<assignment>&) {
    if (auto self = weak.lock()) self->on_assignment(a);
  });
  auto registered = co_await _session->start();
  if (!registered) {
    (void)co_await close();
    co_return registered.error();
  }
  // The first assignment is attached (or refused) by the reconciliation it started.
  auto self = shared_from_this();
  auto begin = [self](start_callback done) {
    std::unique_lock lock(self->_mutex);
    if (self->_first_result) {
      auto r = *self->_first_result;
      lock.unlock();
      done(std::move(r));
      return;
    }
    self->_first_done = std::move(done);
  };
  auto attached = co_await io::await_callback<result<void>>(begin);
  if (!attached) {
    (void)co_await close();
    co_return attached.error();
  }
  co_return success();
}

void st_stream_consumer::on_assignment(const assignment& a) {
  // Under the gate's lock: record and hand over, nothing more.
  std::lock_guard lock(_mutex);
  if (_closed) return;
  _desired = a;
  if (_reconciling) {
    _dirty = true;
    return;
  }
  _reconciling = true;
  asio::co_spawn(
      _home.executor(), [self = shared_from_this()]() { return self->reconcile(); }, asio::detached);
}

bool st_stream_consumer::still_assigned_locked(const assigned_segment& s) const {
  if (_closed || !_desired) return false;
  const auto* now = _desired->find(s.id);
  return now != nullptr && *now == s;
}

awaitable<void> st_stream_consumer::reconcile() {
  while (true) {
    assignment want;
    bool first = false;
    std::vector<std::shared_ptr<segment_feed>> release;
    std::vector<assigned_segment> attach;
    {
      std::lock_guard lock(_mutex);
      if (_closed) {
        _reconciling = false;
        co_return;
      }
      want = *_desired;
      _dirty = false;
      first = !_first_applied;
      for (auto it = _feeds.begin(); it != _feeds.end();) {
        const auto* now = want.find(it->first);
        if (now != nullptr && *now == _attached[it->first]) {
          ++it;
          continue;
        }
        release.push_back(it->second);
        _attached.erase(it->first);
        _tracker->drop(static_cast<std::int64_t>(it->first));
        it = _feeds.erase(it);
      }
      std::erase_if(_drained, [&](std::uint64_t id) { return want.find(id) == nullptr; });
      for (const auto& s : want.segments) {
        if (!_feeds.contains(s.id) && !_drained.contains(s.id)) attach.push_back(s);
      }
    }
    // Released: gone at once; what they queued goes to their new owner instead.
    std::vector<client_detail::task<void>> closing;
    for (auto& f : release) {
      f->stop();
      const auto id = f->segment();
      _queue->remove_if([id](const delivery& d) { return d.segment == id; });
      closing.push_back([c = f->consumer()]() { return c->close(); });
    }
    (void)co_await client_detail::run_all(*_client, std::move(closing));

    std::optional<error> failure;
    if (first && want.has_bucket_ranges()) {
      failure = error(client_errc::not_supported,
                      fmt::format("{}: the controller shares segments by entry buckets (PIP-486), which this client "
                                  "does not support",
                                  _topic));
    } else {
      std::vector<client_detail::task<void>> attaching;
      for (auto& s : attach) {
        if (!s.bucket_ranges.empty()) {
          spdlog::error(
              "client: st consumer {} on {}: segment {} is assigned by entry buckets (PIP-486), which "
              "this client does not support; skipped",
              consumer_name(), _topic, s.id);
          continue;
        }
        attaching.push_back([self = shared_from_this(), s]() { return self->attach_segment(s); });
      }
      auto results = co_await client_detail::run_all(*_client, std::move(attaching));
      for (const auto& r : results) {
        if (r) continue;
        if (first && !failure) failure = r.error();
        if (!first) {
          spdlog::warn("client: st consumer {} on {}: attaching a segment failed: {}", consumer_name(), _topic,
                       r.error().message());
        }
      }
    }

    start_callback done;
    result<void> first_result = success();
    bool again = false;
    {
      std::lock_guard lock(_mutex);
      if (first) {
        _first_applied = true;
        if (failure) first_result = *failure;
        done = std::move(_first_done);
        _first_done = nullptr;
        if (!done) _first_result = first_result;
      }
      again = _dirty && !_closed;
      if (!again) _reconciling = false;
    }
    if (done) done(first_result);
    if (!again) co_return;
  }
}

awaitable<result<void>> st_stream_consumer::attach_segment(assigned_segment s) {
  segment_info info;
  info.id = s.id;
  info.hash_start = s.hash_start;
  info.hash_end = s.hash_end;
  info.topic = s.topic;
  if (s.topic.starts_with("persistent://")) info.legacy_topic = s.topic;
  for (int attempt = 0;; ++attempt) {
    {
      std::lock_guard lock(_mutex);
      if (!still_assigned_locked(s)) co_return success();
    }
    auto options =
        segment_consumer_options(info, _subscription, subscription_type::exclusive, _config.position, consumer_name(),
                                 _config.receiver_queue_size, _config.ack_group_time, _config.properties);
    auto c = std::make_shared<client_detail::consumer_impl>(_client, std::move(options));
    auto r = co_await c->start();
    if (r) {
      std::shared_ptr<segment_feed> feed;
      {
        std::lock_guard lock(_mutex);
        if (still_assigned_locked(s) && !_feeds.contains(s.id)) {
          feed = std::make_shared<segment_feed>(
              s.id, c, _queue,
              [tracker = _tracker](delivery& d) {
                d.positions = tracker->deliver(static_cast<std::int64_t>(d.segment), d.m.id());
              },
              [weak = weak_from_this()](std::uint64_t id, const error& why) {
                if (auto self = weak.lock()) self->on_feed_ended(id, why);
              });
          _feeds[s.id] = feed;
          _attached[s.id] = s;
        }
      }
      if (!feed) {
        (void)co_await c->close();
        co_return success();
      }
      feed->start();
      co_return success();
    }
    if (!is_rebalance_collision(r.error()) || attempt + 1 >= max_attach_attempts) {
      co_return error(r.error().code(), fmt::format("segment {}: {}", s.id, r.error().detail()));
    }
    spdlog::info("client: st consumer {} on {}: segment {} still held by its previous owner ({}); retrying",
                 consumer_name(), _topic, s.id, r.error().message());
    co_await sleep_for(attach_retry_delay(attempt));
  }
}

void st_stream_consumer::on_feed_ended(std::uint64_t segment, const error& why) {
  std::shared_ptr<segment_feed> feed;
  {
    std::lock_guard lock(_mutex);
    auto it = _feeds.find(segment);
    if (it == _feeds.end()) return;
    feed = it->second;
    _feeds.erase(it);
    _attached.erase(segment);
    _tracker->drop(static_cast<std::int64_t>(segment));
    if (why == client_errc::topic_terminated) {
      _drained.insert(segment);
    } else if (!_closed) {
      spdlog::warn("client: st consumer {} on {}: segment {} stopped: {}", consumer_name(), _topic, segment,
                   why.message());
    }
  }
  asio::co_spawn(
      _home.executor(), [c = feed->consumer()]() -> awaitable<void> { (void)co_await c->close(); }, asio::detached);
}

result<message> st_stream_consumer::receive(std::optional<std::chrono::milliseconds> timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  MAGNETAR_TRY(d, _queue->receive(timeout));
  return to_message(std::move(d), _topic_ref);
}

void st_stream_consumer::receive_async(std::function<void(result<message>)> done) {
  _queue->receive_async([topic = _topic_ref, done = std::move(done)](result<delivery> r) {
    if (!r) {
      done(r.error());
    } else {
      done(to_message(std::move(r).value(), topic));
    }
  });
}

result<std::vector<message>> st_stream_consumer::receive_multi(std::size_t max, std::chrono::milliseconds timeout) {
  if (_client->on_io_thread()) {
    return fail(client_errc::invalid_argument, "a blocking receive on a client io thread would deadlock");
  }
  MAGNETAR_TRY(batch, _queue->receive_multi(max, timeout));
  std::vector<message> out;
  out.reserve(batch.size());
  for (auto& d : batch) out.push_back(to_message(std::move(d), _topic_ref));
  return out;
}

result<void> st_stream_consumer::acknowledge_cumulative(const message_id& id) {
  if (id.empty()) return fail(client_errc::invalid_argument, "acknowledge_cumulative of an empty message id");
  std::vector<std::pair<std::shared_ptr<client_detail::consumer_impl>, magnetar::message_id>> acks;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return fail(client_errc::already_closed, fmt::format("the consumer of {} is closed", _topic));
    auto add = [&](std::int64_t segment, const magnetar::message_id& position) {
      if (segment < 0) return;
      auto it = _feeds.find(static_cast<std::uint64_t>(segment));
      // Released or read to its end: nothing to acknowledge here any more.
      if (it != _feeds.end()) acks.emplace_back(it->second->consumer(), position);
    };
    if (id.positions().empty()) {
      add(id.segment_id(), id.segment_message_id());
    } else {
      for (const auto& [segment, position] : id.positions()) add(segment, position);
    }
  }
  for (const auto& [c, position] : acks) {
    auto r = c->acknowledge_cumulative(position);
    // A segment closed meanwhile: its new owner (or nobody, once drained) has it.
    if (!r && r.error() != client_errc::already_closed) return r.error();
  }
  return success();
}

awaitable<result<void>> st_stream_consumer::close() {
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> feeds;
  start_callback first;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return success();
    _closed = true;
    feeds.swap(_feeds);
    _attached.clear();
    first = std::move(_first_done);
    _first_done = nullptr;
  }
  _session->close();
  _queue->close();
  if (first) first(fail(client_errc::already_closed, "the consumer was closed while starting"));
  std::vector<client_detail::task<void>> tasks;
  for (auto& [id, f] : feeds) {
    f->stop();
    tasks.push_back([c = f->consumer()]() { return c->close(); });
  }
  (void)co_await client_detail::run_all(*_client, std::move(tasks));
  co_return success();
}

void st_stream_consumer::shutdown() {
  std::map<std::uint64_t, std::shared_ptr<segment_feed>> feeds;
  start_callback first;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _closed = true;
    feeds.swap(_feeds);
    first = std::move(_first_done);
    _first_done = nullptr;
  }
  _session->close();
  _queue->close();
  if (first) first(fail(client_errc::already_closed, "the client is closed"));
  for (auto& [id, f] : feeds) {
    f->stop();
    f->consumer()->shutdown();
  }
}

}  // namespace magnetar::st::detail
