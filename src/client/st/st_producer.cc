// st_producer: creation, layout changes, flush and close. The send path is in
// st_producer_send.cc.
#include "client/st/st_producer.h"

#include "magnetar/errc.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <limits>

namespace magnetar::st::detail {

bool is_segment_gone(const error& e) {
  if (e == client_errc::topic_terminated || e == client_errc::already_closed) return true;
  std::string text = e.message();
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text.find("terminated") != std::string::npos;
}

magnetar::producer_config segment_producer_config(const producer_config& config, const segment_info& segment) {
  magnetar::producer_config c;
  if (!config.producer_name.empty()) c.producer_name = fmt::format("{}-seg-{}", config.producer_name, segment.id);
  c.send_timeout = config.send_timeout;
  // The st producer admits sends (max_pending_messages over all segments), so a segment
  // producer never refuses one for room, and never blocks the thread sending to it.
  c.max_pending_messages = std::max<std::size_t>(1, config.max_pending_messages);
  c.block_if_queue_full = false;
  c.batching_enabled = config.batching_enabled;
  c.batching_max_messages = config.batching_max_messages;
  c.batching_max_bytes = config.batching_max_bytes;
  c.batching_max_delay = config.batching_max_delay;
  c.compression = config.compression;
  c.access_mode = config.access_mode;
  c.initial_sequence_id = config.initial_sequence_id;
  c.properties = config.properties;
  // PIP-475: a migrated topic's broker counts connections without this as old clients.
  if (segment.is_legacy()) c.properties["__pulsar.v5.managed"] = "true";
  return c;
}

st_producer::st_producer(std::shared_ptr<client_detail::client_impl> client, std::string topic, producer_config config)
    : _client(std::move(client)),
      _topic(std::move(topic)),
      _config(std::move(config)),
      _watch(std::make_shared<dag_watch>(_client, _topic, true)),
      _home(_client->next_shard()),
      _recheck_timer(_home.executor()) {}

st_producer::~st_producer() {
  _watch->close();
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (!_closed) {
      _closed = true;
      fail_everything_locked(error(client_errc::already_closed, "the producer was destroyed"), out);
    }
  }
  // The segment producers close themselves as their last reference goes.
  run(out);
}

void st_producer::run(actions& a) {
  for (auto& f : a) f();
  a.clear();
}

awaitable<result<void>> st_producer::start() {
  if (_config.max_pending_messages == 0) co_return fail(client_errc::invalid_argument, "max_pending_messages is 0");
  _watch->set_listener([weak = weak_from_this()](const layout_ptr& now, const layout_ptr&) {
    if (auto self = weak.lock()) self->on_layout(now);
  });
  MAGNETAR_CO_TRY(first, co_await _watch->start());
  {
    std::lock_guard lock(_mutex);
    if (!_layout) _layout = first;
    _topic_ref = std::make_shared<const std::string>(_watch->topic_name());
  }
  if (_config.access_mode == producer_access_mode::shared) co_return success();

  // The exclusive modes own every active segment from the start.
  std::vector<std::pair<std::uint64_t, segment_producer>> made;
  std::optional<error> failure;
  for (const auto& seg : first->active()) {
    auto p = std::make_shared<client_detail::producer_impl>(_client, seg.topic, segment_producer_config(_config, seg));
    auto r = co_await p->start();
    if (!r) {
      failure = r.error();
      break;
    }
    made.emplace_back(seg.id, std::move(p));
  }
  if (failure) {
    for (auto& [id, p] : made) (void)co_await p->close();
    _watch->close();
    co_return *failure;
  }
  std::lock_guard lock(_mutex);
  for (auto& [id, p] : made) {
    auto& sl = _slots[id];
    if (sl.producer || sl.creating) continue;  // a later layout made it meanwhile
    sl.topic = p->topic();
    sl.producer = std::move(p);
  }
  co_return success();
}

void st_producer::on_layout(const layout_ptr& now) {
  actions out;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _layout = now;
    std::vector<std::uint64_t> gone;
    for (auto& [id, sl] : _slots) {
      const auto* seg = now->find(id);
      if (seg != nullptr && !seg->sealed) continue;
      if (sl.in_flight == 0 && !sl.creating && !sl.retiring) {
        gone.push_back(id);
      } else if (!sl.retiring) {
        // Sends in flight there may come back refused: new ones wait until they settle.
        sl.retiring = true;
        sl.checks = 0;
        _retiring.insert(id);
      }
    }
    for (auto id : gone) close_slot_locked(id, out);
    if (_config.access_mode != producer_access_mode::shared) {
      // Best effort: a failure shows on the first send there.
      for (const auto& seg : now->active()) {
        if (!_slots.contains(seg.id)) {
          _slots[seg.id].topic = seg.topic;
          create_segment_producer_locked(seg.id);
        }
      }
    }
    try_release_locked(out);
  }
  run(out);
  drain();
}

void st_producer::close_slot_locked(std::uint64_t segment, actions& out) {
  auto it = _slots.find(segment);
  if (it == _slots.end()) return;
  auto p = std::move(it->second.producer);
  _slots.erase(it);
  if (!p) return;
  _retired_last_sequence_id = std::max(_retired_last_sequence_id, p->last_sequence_id());
  // Not waited for: nothing is in flight there.
  out.push_back([p, home = &_home] {
    asio::co_spawn(
        home->executor(), [p]() -> awaitable<void> { (void)co_await p->close(); }, asio::detached);
  });
}

void st_producer::flush_async(std::function<void(result<void>)> done) {
  std::vector<segment_producer> producers;
  {
    std::unique_lock lock(_mutex);
    if (_closed) {
      lock.unlock();
      done(fail(client_errc::already_closed, fmt::format("the producer on {} is closed", _topic)));
      return;
    }
    if (_outstanding.empty()) {
      lock.unlock();
      done(success());
      return;
    }
    _flushes.push_back(flush_waiter{_next_seq, std::nullopt, std::move(done)});
    for (const auto& [id, sl] : _slots) {
      if (sl.producer) producers.push_back(sl.producer);
    }
  }
  // Sends what is batched now; the receipts complete the flush.
  for (const auto& p : producers) p->flush_async([](result<void>) {});
}

void st_producer::fail_everything_locked(const error& e, actions& out) {
  std::vector<pending_send> failed = std::move(_parked);
  _parked.clear();
  for (auto& s : _held) failed.push_back(std::move(s));
  _held.clear();
  for (auto& o : _outbox) failed.push_back(std::move(o.send));
  _outbox.clear();
  for (auto& [id, sl] : _slots) {
    for (auto& s : sl.waiting) failed.push_back(std::move(s));
    sl.waiting.clear();
  }
  std::sort(failed.begin(), failed.end(), [](const pending_send& a, const pending_send& b) { return a.seq < b.seq; });
  for (auto& s : failed) complete_locked(s, e, out);
  _retiring.clear();
  _room.notify_all();
}

awaitable<result<void>> st_producer::close() {
  actions out;
  std::vector<segment_producer> producers;
  {
    std::lock_guard lock(_mutex);
    if (_closed) co_return success();
    _closed = true;
    fail_everything_locked(error(client_errc::already_closed, fmt::format("the producer on {} is closed", _topic)),
                           out);
    for (auto& [id, sl] : _slots) {
      if (sl.producer) producers.push_back(sl.producer);
    }
    _slots.clear();
  }
  _watch->close();
  run(out);
  // Each flushes first: sends in flight complete (as stored, or failed: no retry now).
  for (const auto& p : producers) (void)co_await p->close();
  co_return success();
}

void st_producer::shutdown() {
  actions out;
  std::vector<segment_producer> producers;
  {
    std::lock_guard lock(_mutex);
    if (_closed) return;
    _closed = true;
    fail_everything_locked(error(client_errc::already_closed, "the client is closed"), out);
    for (auto& [id, sl] : _slots) {
      if (sl.producer) producers.push_back(sl.producer);
    }
    _slots.clear();
  }
  _watch->close();
  run(out);
  for (const auto& p : producers) p->shutdown();
}

std::int64_t st_producer::last_sequence_id() const {
  std::lock_guard lock(_mutex);
  std::int64_t out = std::max(_config.initial_sequence_id, _retired_last_sequence_id);
  for (const auto& [id, sl] : _slots) {
    if (sl.producer) out = std::max(out, sl.producer->last_sequence_id());
  }
  return out;
}

}  // namespace magnetar::st::detail
