// multi_topic_consumer: subscribing, pattern re-discovery, seeking and closing. The
// fan-in queue, receiving and acks are in multi_topic_receive.cc.
#include "client/multi_topic_consumer.h"

#include "client/run_all.h"
#include "magnetar/errc.h"
#include "wire/topic_name.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <random>
#include <set>

namespace magnetar::client_detail {

namespace {
std::string random_name() {
  std::random_device device;
  std::mt19937_64 g(device());
  return fmt::format("{:010x}", g() & 0xffffffffff);
}
}  // namespace

multi_topic_consumer::multi_topic_consumer(std::shared_ptr<client_impl> client, std::string name,
                                           multi_topic_options options, std::optional<topic_pattern> pattern)
    : _client(std::move(client)),
      _name(std::move(name)),
      _options(std::move(options)),
      _pattern(std::move(pattern)),
      // One name for every child, so that Failover orders them alike on each partition.
      _consumer_name(_options.config.consumer_name.empty() ? random_name() : _options.config.consumer_name),
      _queue_size(std::max(1u, _options.config.receiver_queue_size)),
      _home(_client->next_shard()),
      _discovery_timer(_home.executor()) {}

multi_topic_consumer::~multi_topic_consumer() {
  // The children close themselves as their last references go with this.
  _discovery_timer.cancel();
}

void multi_topic_consumer::run(actions& a) {
  for (auto& f : a) f();
  a.clear();
}

awaitable<result<void>> multi_topic_consumer::start(std::vector<std::string> topics) {
  if (_options.subscription.empty()) co_return fail(client_errc::invalid_argument, "the subscription name is empty");
  MAGNETAR_CO_TRY(children, co_await add_topics(std::move(topics)));
  if (!_options.durable && _options.start == message_id::latest() && _options.start_inclusive) {
    // A reader from the last message inclusive: each partition's own last message.
    for (const auto& c : children) {
      MAGNETAR_CO_TRY(last, co_await c->consumer->get_last_message_id());
      if (last == message_id::earliest()) continue;
      // Named, not temporaries: GCC 12 mishandles temporaries inside co_await.
      const std::optional<message_id> to = last;
      const std::optional<std::uint64_t> no_time;
      MAGNETAR_CO_TRY(co_await c->consumer->seek(to, no_time));
    }
  }
  {
    std::lock_guard lock(_mutex);
    if (_state != state::starting) co_return closed_error_locked();
    _state = state::ready;
  }
  for (const auto& c : children) pump(c);
  if (_pattern && _options.config.pattern_auto_discovery_period.count() > 0) arm_discovery();
  co_return success();
}

awaitable<result<std::vector<multi_topic_consumer::child_ptr>>> multi_topic_consumer::add_topics(
    std::vector<std::string> topics) {
  std::vector<child_ptr> children;
  std::set<std::string> seen;
  for (const auto& topic : topics) {
    {
      std::lock_guard lock(_mutex);
      if (_by_parent.contains(topic) || !seen.insert(topic).second) continue;
    }
    auto name = wire::topic_name::parse(topic);
    if (!name) co_return fail(client_errc::invalid_topic_name, name.error().message());
    MAGNETAR_CO_TRY(partitions, co_await _client->lookup().partitions(topic));
    // As upstream: each of a topic's partitions gets an equal share of the total.
    auto config = _options.config;
    const unsigned parts = static_cast<unsigned>(std::max(1, partitions));
    config.receiver_queue_size = std::max(
        1u, std::min(config.receiver_queue_size, config.max_total_receiver_queue_size_across_partitions / parts));
    config.consumer_name = _consumer_name;
    for (int i = 0; i < std::max(1, partitions); ++i) {
      auto c = std::make_shared<child>();
      c->parent = topic;
      c->partition = partitions > 0 ? i : -1;
      c->topic = partitions > 0 ? name.value().partition_of(i).full() : topic;
      consumer_options options{c->topic, _options.subscription, config};
      options.durable = _options.durable;
      options.start = _options.start;
      options.start_inclusive = _options.start_inclusive;
      c->consumer = std::make_shared<consumer_impl>(_client, std::move(options));
      children.push_back(std::move(c));
    }
  }
  std::vector<task<void>> starts;
  for (const auto& c : children) starts.push_back([consumer = c->consumer]() { return consumer->start(); });
  auto started = co_await run_all(*_client, std::move(starts));
  if (auto failed = first_failure(started); !failed) {
    for (const auto& c : children) c->consumer->shutdown();
    co_return failed.error();
  }
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closing || _state == state::closed) {
      for (const auto& c : children) c->consumer->shutdown();
      co_return closed_error_locked();
    }
    for (const auto& c : children) {
      _children[c->topic] = c;
      _by_parent[c->parent].push_back(c);
    }
  }
  co_return children;
}

awaitable<void> multi_topic_consumer::remove_topic(std::string parent) {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    auto it = _by_parent.find(parent);
    if (it == _by_parent.end()) co_return;
    children = std::move(it->second);
    _by_parent.erase(it);
    for (const auto& c : children) {
      c->gone = true;
      _children.erase(c->topic);
    }
  }
  spdlog::info("client: consumer {} of {}: {} is no longer matched; closing its consumers", _consumer_name,
               _options.subscription, parent);
  std::vector<task<void>> closes;
  for (const auto& c : children) closes.push_back([consumer = c->consumer]() { return consumer->close(); });
  co_await run_all(*_client, std::move(closes));
}

void multi_topic_consumer::arm_discovery() {
  std::lock_guard lock(_mutex);
  if (_state != state::ready) return;
  _discovery_timer.expires_after(_options.config.pattern_auto_discovery_period);
  _discovery_timer.async_wait([weak = weak_from_this()](boost::system::error_code ec) {
    if (ec) return;
    auto self = weak.lock();
    if (!self) return;
    asio::co_spawn(
        self->_home.executor(), [self]() { return self->discover(); }, asio::detached);
  });
}

awaitable<void> multi_topic_consumer::discover() {
  auto listed = co_await _client->lookup().topics_of_namespace(_pattern->namespace_name());
  if (!listed) {
    spdlog::warn("client: pattern consumer {} ({}): listing {} failed: {}", _consumer_name, _pattern->text(),
                 _pattern->namespace_name(), listed.error().message());
    arm_discovery();
    co_return;
  }
  std::set<std::string> matching;
  for (const auto& t : listed.value()) {
    if (_pattern->matches(t)) matching.insert(t);
  }
  std::vector<std::string> added;
  std::vector<std::string> removed;
  {
    std::lock_guard lock(_mutex);
    for (const auto& t : matching) {
      if (!_by_parent.contains(t)) added.push_back(t);
    }
    for (const auto& [t, children] : _by_parent) {
      if (!matching.contains(t)) removed.push_back(t);
    }
  }
  if (!added.empty()) {
    auto children = co_await add_topics(added);
    if (!children) {
      spdlog::warn("client: pattern consumer {} ({}): subscribing new topics failed: {}; trying again later",
                   _consumer_name, _pattern->text(), children.error().message());
    } else {
      for (const auto& c : children.value()) pump(c);
    }
  }
  for (auto& t : removed) co_await remove_topic(std::move(t));
  arm_discovery();
}

awaitable<result<void>> multi_topic_consumer::seek(std::optional<message_id> id,
                                                   std::optional<std::uint64_t> publish_time_ms) {
  std::vector<child_ptr> targets;
  if (id && *id != message_id::earliest() && *id != message_id::latest()) {
    // A stored position belongs to one topic (as upstream).
    MAGNETAR_CO_TRY(c, route(*id, "seek to"));
    targets.push_back(std::move(c));
  } else {
    std::lock_guard lock(_mutex);
    targets = children_locked();
  }
  {
    std::lock_guard lock(_mutex);
    if (_state != state::ready) co_return closed_error_locked();
    std::set<const child*> sought;
    for (const auto& c : targets) {
      c->seeking = true;
      sought.insert(c.get());
    }
    drop_queued_locked([&](const message& m) {
      auto it = _children.find(m.id().topic_name());
      return it == _children.end() || sought.contains(it->second.get());
    });
  }
  std::vector<task<void>> seeks;
  for (const auto& c : targets) {
    seeks.push_back([consumer = c->consumer, id, publish_time_ms]() { return consumer->seek(id, publish_time_ms); });
  }
  auto results = co_await run_all(*_client, std::move(seeks));
  std::vector<child_ptr> paused;
  {
    std::lock_guard lock(_mutex);
    for (const auto& c : targets) c->seeking = false;
    paused = resumable_locked();
  }
  resume(paused);
  co_return first_failure(results);
}

awaitable<result<message_id>> multi_topic_consumer::get_last_message_id() {
  co_return fail(client_errc::not_supported,
                 fmt::format("{} spans several topics; ask each topic's consumer for its last message id", _name));
}

awaitable<result<bool>> multi_topic_consumer::has_message_available() {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::ready) co_return closed_error_locked();
    if (!_queue.empty()) co_return true;
    children = children_locked();
  }
  std::vector<task<bool>> asks;
  for (const auto& c : children)
    asks.push_back([consumer = c->consumer]() { return consumer->has_message_available(); });
  auto answers = co_await run_all(*_client, std::move(asks));
  MAGNETAR_CO_TRY(first_failure(answers));
  for (const auto& a : answers) {
    if (a.value()) co_return true;
  }
  std::lock_guard lock(_mutex);
  co_return !_queue.empty();
}

awaitable<result<void>> multi_topic_consumer::unsubscribe() {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::ready) co_return closed_error_locked();
    children = children_locked();
  }
  std::vector<task<void>> unsubscribes;
  for (const auto& c : children) {
    unsubscribes.push_back([consumer = c->consumer]() { return consumer->unsubscribe(); });
  }
  auto results = co_await run_all(*_client, std::move(unsubscribes));
  MAGNETAR_CO_TRY(first_failure(results));
  shutdown();
  co_return success();
}

awaitable<result<void>> multi_topic_consumer::close() {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed || _state == state::closing) co_return success();
    _state = state::closing;
    _discovery_timer.cancel();
    children = children_locked();
    for (const auto& c : children) c->gone = true;
  }
  std::vector<task<void>> closes;
  for (const auto& c : children) closes.push_back([consumer = c->consumer]() { return consumer->close(); });
  auto results = co_await run_all(*_client, std::move(closes));
  actions out;
  {
    std::lock_guard lock(_mutex);
    _state = state::closed;
    close_waiters_locked(closed_error_locked(), out);
  }
  _arrived.notify_all();
  run(out);
  co_return first_failure(results);
}

void multi_topic_consumer::shutdown() {
  std::vector<child_ptr> children;
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_state == state::closed) return;
    _state = state::closed;
    _discovery_timer.cancel();
    children = children_locked();
    for (const auto& c : children) c->gone = true;
    close_waiters_locked(closed_error_locked(), out);
  }
  _arrived.notify_all();
  for (const auto& c : children) c->consumer->shutdown();
  run(out);
}

bool multi_topic_consumer::is_active() const {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::ready) return false;
    children = children_locked();
  }
  return !children.empty() &&
         std::all_of(children.begin(), children.end(), [](const auto& c) { return c->consumer->is_active(); });
}

bool multi_topic_consumer::is_closed() const {
  std::lock_guard lock(_mutex);
  return _state == state::closing || _state == state::closed;
}

bool multi_topic_consumer::is_connected() const {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    if (_state != state::ready) return false;
    children = children_locked();
  }
  return std::all_of(children.begin(), children.end(), [](const auto& c) { return c->consumer->is_connected(); });
}

bool multi_topic_consumer::has_reached_end_of_topic() const {
  std::vector<child_ptr> children;
  {
    std::lock_guard lock(_mutex);
    children = children_locked();
  }
  return !children.empty() && std::all_of(children.begin(), children.end(),
                                          [](const auto& c) { return c->consumer->has_reached_end_of_topic(); });
}

std::vector<std::string> multi_topic_consumer::topics() const {
  std::lock_guard lock(_mutex);
  std::vector<std::string> out;
  for (const auto& [t, c] : _children) out.push_back(t);
  return out;
}

std::vector<multi_topic_consumer::child_ptr> multi_topic_consumer::children_locked() const {
  std::vector<child_ptr> out;
  out.reserve(_children.size());
  for (const auto& [t, c] : _children) out.push_back(c);
  return out;
}

error multi_topic_consumer::closed_error_locked() const {
  if (_failure) return *_failure;
  return error(client_errc::already_closed,
               fmt::format("consumer {} of {} on {} is closed", _consumer_name, _options.subscription, _name));
}

void multi_topic_consumer::close_waiters_locked(const error& e, actions& out) {
  for (auto& w : _waiters) out.push_back([w = std::move(w), e] { w(e); });
  _waiters.clear();
}

}  // namespace magnetar::client_detail
